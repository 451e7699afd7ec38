"""Give the shipped speculative draft a reduced vocabulary: the V_d most frequent answer tokens of the
corpus's training split (the draft then computes V_d logits per step instead of 49,152; the target still
verifies in its full vocabulary, and lossless sampling treats q as zero outside V_d).

    python scripts/draft_vocab.py --corpus assets/corpus --size 8192 --out assets/draft --seq-len 320

Writes OUT/vocab.safetensors ({"d2t": target ids}) and records its sha256 and the coverage in OUT/manifest.json.
"""
from __future__ import annotations

import argparse
import json

import torch
from safetensors.torch import save_file

from train_common import ROOT, choose_vocab, command_line, load_corpus

from decoding_core.draft import sha256


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="assets/corpus")
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--out", default="assets/draft")
    ap.add_argument("--vocab-size", type=int, default=49152, help="the target's vocabulary size")
    ap.add_argument("--seq-len", type=int, default=320, help="count tokens within this many per sequence "
                    "(train_eagle3.py's --seq-len: the same vocabulary as the EAGLE-3 head)")
    args = ap.parse_args(argv)
    train = load_corpus(ROOT / args.corpus, "train", args.seq_len)
    held = load_corpus(ROOT / args.corpus, "heldout", 10_000)
    d2t, coverage = choose_vocab(train, args.size, args.vocab_size)
    keep = set(d2t)
    held_tokens = [t for seq, n in held for t in seq[n:]]
    held_cov = sum(t in keep for t in held_tokens) / max(1, len(held_tokens))
    out = ROOT / args.out
    save_file({"d2t": torch.tensor(d2t, dtype=torch.long)}, str(out / "vocab.safetensors"))
    path = out / "manifest.json"
    manifest = json.loads(path.read_text()) if path.exists() else {}
    manifest.setdefault("sha256", {})["vocab.safetensors"] = sha256(out / "vocab.safetensors")
    manifest["vocabulary"] = {"size": len(d2t), "train_answer_coverage_by_size": coverage,
                              "heldout_answer_coverage": round(held_cov, 4), "command": command_line(),
                              "note": "the draft's LM head restricted to these rows at inference (not retrained)"}
    path.write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps(manifest["vocabulary"]))


if __name__ == "__main__":
    main()
