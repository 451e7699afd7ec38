"""Re-store a trained asset's weights in bfloat16 (half the bytes of float32) as a candidate folder: measure it
with eval_tau.py (the stored weights are what the app loads, so its figures must be re-measured) and install it
with install_asset.py, which refuses it until its held-out tau is measured.

    python scripts/shrink_asset.py eagle runs/eagle-bf16
    python scripts/eval_tau.py --corpus assets/corpus --prompts 48 --max-new-tokens 64 --only eagle1 --eagle1 runs/eagle-bf16 --write
    python scripts/install_asset.py eagle runs/eagle-bf16 --session 25 --data "the same head, stored in bfloat16"

The loaders cast the weights to the target's dtype, so a bfloat16 file loads into a float32 model as before.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from install_asset import FILES, commands_of  # noqa: E402

from decoding_core.models import _sha256  # noqa: E402


def shrink(src: Path, out: Path, weights: str) -> dict:
    """Copy an asset folder to ``out`` with its floating-point weights in bfloat16; the manifest drops the figures
    measured on the old weights (held-out tau, the tau table) and records the new sha256 and storage."""
    from safetensors.torch import load_file, save_file

    out.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file() and f.name != weights:
            shutil.copy(f, out / f.name)
    state = load_file(str(src / weights))
    state = {k: (v.to(torch.bfloat16) if v.is_floating_point() else v).contiguous() for k, v in state.items()}
    save_file(state, str(out / weights))
    manifest = json.loads((src / "manifest.json").read_text())
    for key in ("heldout_tau", "heldout_tau_static", "tau_by_size"):
        manifest.pop(key, None)
    manifest["sha256"] = {**manifest.get("sha256", {}), weights: _sha256(out / weights)}
    manifest["training"] = dict(manifest["training"], stored="bfloat16")
    if isinstance(manifest.get("heldout"), dict):  # the trainer's held-out losses were not measured again
        manifest["heldout"] = dict(manifest["heldout"], measured_on="the float32 weights, before shrink_asset.py")
    manifest["commands"] = commands_of(manifest) + ["python scripts/shrink_asset.py " + " ".join(sys.argv[1:])]
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=sorted(FILES))
    ap.add_argument("out", type=Path, help="the candidate folder to write")
    ap.add_argument("--src", type=Path, default=None, help="the asset folder (default assets/KIND)")
    args = ap.parse_args(argv)
    src = args.src or ROOT / "assets" / args.kind
    weights = FILES[args.kind][0]
    before = (src / weights).stat().st_size
    shrink(src, args.out, weights)
    print(f"{src / weights}: {before / 1e6:.1f} MB -> {args.out / weights}: {(args.out / weights).stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
