"""Candidate speculative drafts side by side: held-out tau for N = 1..8 (replay on the target's greedy output), the
measured cost of one draft step (lean and transformers' forward) and the expected speed-up over plain greedy,
tau(N) x t(1) / (N x draft step + verify(N + 1)), with the verify costs measured here. Used to choose which draft
to ship (assets/draft/manifest.json "experiments").

    python scripts/compare_drafts.py assets/draft runs/draft-s10b
"""
from __future__ import annotations

import argparse
import dataclasses
import time

from train_common import ROOT, corpus_rows

from decoding_core.draft import load_embedded_draft
from decoding_core.models import load_model
from decoding_core.sizing import choose_chain, chain_tau_table, draft_step_cost, forward_costs, greedy_references


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+", help="draft folders (train_draft.py --out)")
    ap.add_argument("--corpus", default="assets/corpus")
    ap.add_argument("--prompts", type=int, default=12)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    args = ap.parse_args(argv)
    lm = load_model(device="cpu")
    rows = corpus_rows(ROOT / args.corpus, "heldout")[: args.prompts]
    prompts = [lm.encode(r["instruction"], chat=True) for r in rows]
    refs = greedy_references(lm, prompts, args.max_new_tokens)
    verify = forward_costs(lm)
    print("target forward over T tokens (ms):", {t: round(v * 1e3, 1) for t, v in verify.items()}, flush=True)
    for folder in args.folders:
        draft = load_embedded_draft(lm, ROOT / folder)
        t0 = time.perf_counter()
        table = chain_tau_table(lm, draft, prompts, args.max_new_tokens, tuple(range(1, 9)), refs)
        step = draft_step_cost(lm, draft)
        plain = draft_step_cost(lm, dataclasses.replace(draft, lean=None))
        n, rates = choose_chain(table, verify, step)
        print(f"{folder} ({draft.name}): draft step {step * 1e3:.2f} ms ({plain * 1e3:.2f} ms through transformers' "
              f"forward); best N = {n}")
        for k in sorted(table):
            print(f"  N = {k}: tau {table[k]:.3f}, expected speed-up {rates[k] * verify[1]:.3f}x")
        print(f"  ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
