"""Experiment: give a shipped asset a wider draft vocabulary WITHOUT training, to measure what the tokens outside
V_d cost (about 2% of held-out answer tokens are outside the shipped 16,384).

    python scripts/widen_vocab.py eagle3 --size 49152 --out runs/widen/v49k   # then eval_tau.py --eagle3 runs/widen/v49k
    python scripts/widen_vocab.py draft --size 49152 --out runs/widen/draft49k  # then eval_tau.py --draft runs/widen/draft49k

The added tokens come after the asset's own, most frequent training-answer tokens first, then the lowest unused ids.
EAGLE-3: their LM-head rows are the target's (times --scale: the trained rows' mean norm is ~0.97 of the target's).
Draft: its LM head is the target's (tied), so only the vocabulary file changes; --size 49152 drops it (no reduction).
Writes a folder with its own manifest sha256s, which the loaders check.
"""
from __future__ import annotations

import argparse
import json
import shutil

import torch
from safetensors.torch import load_file, save_file
from train_common import ROOT, answer_counts, load_corpus

from decoding_core.draft import DRAFT_DIR, sha256
from decoding_core.eagle3_head import EAGLE3_DIR


def widened(d2t: list[int], size: int, vocab_size: int) -> list[int]:
    """``d2t`` followed by the most frequent training-answer tokens it lacks, then the lowest unused ids."""
    if not len(d2t) < size <= vocab_size:
        raise SystemExit(f"--size must be above the asset's {len(d2t):,} tokens and at most the target's {vocab_size:,}")
    counts = answer_counts(load_corpus(ROOT / "assets/corpus", "train", 10_000))
    have = set(d2t)
    extra = [t for t, _ in counts.most_common() if t not in have]
    extra += [t for t in range(vocab_size) if t not in have and t not in counts]
    return d2t + extra[: size - len(d2t)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=("eagle3", "draft"))
    ap.add_argument("--size", type=int, default=49152)
    ap.add_argument("--out", required=True)
    ap.add_argument("--scale", type=float, default=0.97)
    args = ap.parse_args(argv)
    src, out = (EAGLE3_DIR if args.kind == "eagle3" else DRAFT_DIR), ROOT / args.out
    vocab_size = json.loads((src / "config.json").read_text())["vocab_size"]  # the target's (both assets store it)
    weights = src / ("model.safetensors" if args.kind == "eagle3" else "vocab.safetensors")
    state = load_file(str(weights))
    d2t = widened(state["d2t"].tolist(), args.size, vocab_size)  # exits on a --size out of range, before writing
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(src, out)
    manifest = json.loads((out / "manifest.json").read_text())
    if args.kind == "eagle3":
        from decoding_core.models import load_model

        target = load_model("embedded").model.lm_head.weight.detach().float()
        new = torch.tensor(d2t[state["d2t"].numel():], dtype=torch.long)
        state["lm_head.weight"] = torch.cat([state["lm_head.weight"],
                                             (target[new] * args.scale).to(state["lm_head.weight"].dtype)])
        state["d2t"] = torch.tensor(d2t, dtype=torch.long)
        save_file(state, str(out / weights.name))
        config = json.loads((out / "config.json").read_text())
        (out / "config.json").write_text(json.dumps({**config, "draft_vocab_size": len(d2t)}, indent=1) + "\n")
        manifest["sha256"][weights.name] = sha256(out / weights.name)
    elif len(d2t) == vocab_size:  # the whole vocabulary: no reduction, no file
        (out / weights.name).unlink()
        manifest["sha256"].pop(weights.name, None)
    else:
        save_file({"d2t": torch.tensor(d2t, dtype=torch.long)}, str(out / weights.name))
        manifest["sha256"][weights.name] = sha256(out / weights.name)
    manifest["widened"] = {"size": len(d2t), "from": str(src.relative_to(ROOT)), "untrained": True}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{args.kind}: draft vocabulary {len(d2t):,} tokens in {out}")


if __name__ == "__main__":
    main()
