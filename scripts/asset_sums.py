"""Write decoding_core/asset_sums.py: the sha256 of every shipped weight file under assets/, so a damaged asset
is refused even when its manifest.json is missing. Run after retraining an asset (tests/unit/test_asset_sums.py
fails until the two agree).

    python scripts/asset_sums.py
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from decoding_core.models import _sha256  # noqa: E402

WEIGHTS = ("draft/draft.safetensors", "draft/vocab.safetensors", "eagle/model.safetensors", "eagle3/model.safetensors")


def current() -> dict[str, str]:
    return {rel: _sha256(ROOT / "assets" / rel) for rel in WEIGHTS if (ROOT / "assets" / rel).exists()}


def main() -> int:
    lines = ['"""sha256 of the shipped weight files under assets/ (written by scripts/asset_sums.py; checked by the',
             'loaders when an asset\'s manifest.json is missing as well as against it)."""', "", "SUMS = {"]
    lines += [f'    "{rel}": "{digest}",' for rel, digest in current().items()]
    lines += ["}", ""]
    (ROOT / "decoding_core" / "asset_sums.py").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
