"""Held-out tau of the shipped speculative draft mixed with a copy of the context, for several copy weights and
draft lengths N: the greedy replay of decoding_core/sizing.py (chain_tau_table: at every position of the target's
greedy output the draft, mixed with the copy, proposes N tokens; exact for greedy verification).

    python scripts/copy_sweep.py --prompts 48 --copies 0,0.1,0.2,0.3,0.4,0.5
    python scripts/copy_sweep.py --prompts 48 --copies 0.3 --min-ngram 1     # copy after one-token matches too
    python scripts/copy_sweep.py --prompts 48 --copies 0,0.3 --lookup 8 --runner-up   # the tree around the chain

Each line prints the weight, tau for N = 1..6, and the time the replay took. A weight of 0.5 or more makes the copy
win wherever there is one (w > (1 - w) q for every q); below, it wins where the draft's top probability is within
w / (1 - w) of the copied token's.
"""
from __future__ import annotations

import argparse
import time

from train_common import ROOT, corpus_rows

from decoding_core import speculative
from decoding_core.draft import load_embedded_draft
from decoding_core.models import load_model
from decoding_core.sizing import chain_tau_table, greedy_references


def main(argv=None) -> dict[float, dict[int, float]]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="assets/corpus")
    ap.add_argument("--prompts", type=int, default=48)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--copies", default="0,0.3")
    ap.add_argument("--max-n", type=int, default=6)
    ap.add_argument("--min-ngram", type=int, default=speculative.COPY_MIN_NGRAM,
                    help="the shortest match the copy copies after (the decoders' default: 2)")
    ap.add_argument("--lookup", type=int, default=0, help="a lookup branch of up to this many tokens beside the chain")
    ap.add_argument("--runner-up", action="store_true", help="the draft's second choice beside every chain token")
    args = ap.parse_args(argv)
    speculative.COPY_MIN_NGRAM = args.min_ngram
    lm = load_model(device="cpu")
    draft = load_embedded_draft(lm)
    rows = corpus_rows(ROOT / args.corpus, "heldout")
    prompts = [lm.encode(r["instruction"], chat=True) for r in rows[: args.prompts]]
    refs = greedy_references(lm, prompts, args.max_new_tokens)
    ns = tuple(range(1, args.max_n + 1))
    out = {}
    for w in (float(c) for c in args.copies.split(",")):
        t0 = time.perf_counter()
        table = chain_tau_table(lm, draft, prompts, args.max_new_tokens, ns, refs, copy=w, lookup=args.lookup,
                                runner_up=args.runner_up)
        out[w] = table
        taus = "  ".join(f"N={n}: {tau:.4f}" for n, tau in table.items())
        tree = (f", lookup branch {args.lookup}" if args.lookup else "") + (", runner-up leaves" if args.runner_up else "")
        print(f"copy weight {w:g} (matches of {args.min_ngram}+ tokens){tree}: {taus}  ({len(prompts)} held-out instructions, {time.perf_counter() - t0:.0f} s)",
              flush=True)
    return out


if __name__ == "__main__":
    main()
