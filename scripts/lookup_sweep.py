"""Held-out tau (and tokens/s, single runs) of the EAGLE head with and without a prompt-lookup branch, for several
tree sizes: the decoder run for real on the held-out instructions, each output checked against plain greedy.

    python scripts/lookup_sweep.py --prompts 48 --sizes 32x5,6x2,4x2,static --lookups 0,4,8,16

A size is TOTALxDEPTH (dynamic tree, top-k 8) or "static" (the reference static tree). Each line prints the
measured tau (accepted drafts + verify steps over verify steps, as the decoders count it), the tokens/s of that
pass (alone on the machine to mean anything; the benchmark times the pairs properly) and whether every output
equals plain greedy decoding.
"""
from __future__ import annotations

import argparse
import time

from eval_tau import run_all
from train_common import ROOT, corpus_rows

from decoding_core.eagle import EagleDecoder
from decoding_core.heads import load_head
from decoding_core.models import load_model
from decoding_core.sizing import greedy_references


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="assets/corpus")
    ap.add_argument("--head", choices=("eagle1", "eagle3"), default="eagle3")
    ap.add_argument("--prompts", type=int, default=48)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--sizes", default="32x5,6x2")
    ap.add_argument("--lookups", default="0,8")
    args = ap.parse_args(argv)
    lm = load_model(device="cpu")
    head = load_head(lm, args.head)
    rows = corpus_rows(ROOT / args.corpus, "heldout")
    prompts = [lm.encode(r["instruction"], chat=True) for r in rows[: args.prompts]]
    n = args.max_new_tokens
    refs = greedy_references(lm, prompts, n)
    out = []
    for size in args.sizes.split(","):
        for k in (int(x) for x in args.lookups.split(",")):
            if size == "static":
                def make(k=k):
                    return EagleDecoder(lm, head, "static", max_new_tokens=n, lookup=k)
            else:
                total, depth = (int(x) for x in size.split("x"))

                def make(k=k, total=total, depth=depth):
                    return EagleDecoder(lm, head, "dynamic", 8, depth, total, max_new_tokens=n, lookup=k)
            t0 = time.perf_counter()
            outputs: list[list[int]] = []
            r = run_all(make, prompts, outputs)
            same = outputs == refs
            r.update(size=size, lookup=k, equal_to_greedy=same, seconds=round(time.perf_counter() - t0))
            print(f"{args.head} {size:>6s} lookup {k:2d}: tau {r['tau']:.4f}  {r['tokens_per_s']:6.2f} tok/s  "
                  f"equal to greedy: {same}  ({r['seconds']} s)", flush=True)
            out.append(r)
    return out


if __name__ == "__main__":
    main()
