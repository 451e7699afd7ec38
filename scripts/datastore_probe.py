"""Would a branch drafted from the corpus (a datastore of the target's own training answers) raise held-out EAGLE-3 tau?

The held-out gap is new topics (README, "Topics, not wording"); the target's phrasing habits are not topical, and the
corpus holds ~3 M tokens of its greedy answers. This probe builds the datastore (decoding_core/datastore.py: exact
n-gram counts, orders 1-4) over the TRAINING answers, drafts a branch of up to ``--branch`` tokens from it at every position of the target's greedy output on
held-out instructions (the most frequent next token after the longest context suffix seen at least ``--min-count``
times, chained), and replays the reference dynamic tree (top-k 8, depth 5, 32 tokens; sizing.trees_tau) with:
- ``head``: the head's tree alone;
- ``head+lookup``: the decoder's prompt-lookup branch (what the app ships);
- ``head+store``: the datastore branch in place of the lookup branch;
- ``head+lookup|store``: the lookup branch, the datastore's where the lookup finds nothing (one branch, as today);
- ``head+lookup+store``: both branches (greedy accepts the longest match: the longer run of the two).
Greedy verification keeps the output equal to plain greedy whatever the branches, so replay tau is exact.

    python scripts/datastore_probe.py --first 48 --count 48   # session 39: docs/eval-s39.log
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
from train_common import ROOT, corpus_rows

from decoding_core.datastore import Datastore
from decoding_core.eagle3_head import load_eagle3
from decoding_core.models import load_model
from decoding_core.sizing import corpus_fallback, drafted_trees, greedy_references, trees_tau

SMALL = [(4, 2), (4, 3), (6, 2), (6, 3), (8, 2), (8, 3), (10, 3), (12, 3)]


def small_tree_study(lm, head, answers, prompts, refs, trees, never, lens: list[int], shares: list[float]) -> dict:
    """Per variant (no branch, the lookup branch, the lookup branch falling back to the datastore's of at most L tokens
    whose guesses followed their suffix >= s of the time): the best small tree by expected tokens/s on this machine
    (sizing.choose_tree over the measured forward costs and head level costs, each size's mean pass from the replay)."""
    from decoding_core.sizing import choose_tree, forward_costs, head_level_cost

    verify = forward_costs(lm)
    by_rows = {n: head_level_cost(lm, head, n) for n in (1, 2, 4, 8)}
    variants = {"head": [[r[:4] for r in rs] for rs in trees], "head+lookup": trees}
    for s in shares:
        store = Datastore(answers, min_count=2, min_share=s)
        for n in lens:
            variants[f"head+lookup|store {n} tokens, share >= {s}"] = corpus_fallback(trees, prompts, refs, store, n,
                                                                                        never)
    study = {}
    for name, rows in variants.items():
        fed: dict = {}
        table = trees_tau(rows, SMALL, verify_tokens=fed)
        best, rates = choose_tree(table, verify, by_rows, 8, fed)
        study[name] = {"size": f"{best[0]}/{best[1]}", "tau": round(table[best], 3), "pass": round(fed[best], 2),
                       "tok/s": round(rates[best], 2)}
        print(json.dumps({name: study[name]}), flush=True)
    return study


def _run(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(ROOT / "assets" / "corpus"))
    ap.add_argument("--first", type=int, default=48, help="the first held-out instruction used")
    ap.add_argument("--count", type=int, default=48)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--branch", type=int, default=8, help="tokens in the datastore branch (and the lookup branch)")
    ap.add_argument("--min-count", default="2,5,20", help="comma-separated: a suffix must have been seen this often")
    ap.add_argument("--store-len", default="", help="comma-separated: the small-tree study: the lookup branch falling "
                    "back to a datastore branch of at most this many tokens (min count 2) ...")
    ap.add_argument("--store-share", default="0", help="... whose guesses followed their suffix at least this share of "
                    "the time (comma-separated); each variant's expected tokens/s at its best small tree, from this "
                    "machine's measured forward and head costs (sizing.choose_tree)")
    args = ap.parse_args(argv)
    answers = [r["answer_ids"] for r in corpus_rows(args.corpus, "train") if r["answer_ids"]]
    lm = load_model(device="cpu")
    head = load_eagle3(lm)
    never = frozenset(getattr(lm.tokenizer, "all_special_ids", []))
    rows = corpus_rows(args.corpus, "heldout")[args.first: args.first + args.count]
    prompts = [lm.encode(r["instruction"], chat=True) for r in rows]
    refs = greedy_references(lm, prompts, args.max_new_tokens)
    t0 = time.perf_counter()
    trees = [list(drafted_trees(lm, head, ids, g, 8, 5, 32, lookup=args.branch)) for ids, g in zip(prompts, refs)]
    print(f"recorded {len(trees)} prompts' trees in {time.perf_counter() - t0:.0f} s", flush=True)
    sizes = [(32, 5), (6, 2)]
    out = {"instructions": f"{args.first}:{args.first + len(prompts)}"}

    def tau(name, rows_):
        fed: dict = {}
        for k, v in trees_tau(rows_, sizes, verify_tokens=fed).items():
            out[f"{name} {k[0]}/{k[1]}"] = v
            out[f"{name} {k[0]}/{k[1]} pass"] = fed.get(k)

    tau("head", [[r[:4] for r in rs] for rs in trees])
    tau("head+lookup", trees)
    for mc in (int(x) for x in args.min_count.split(",")):
        store = Datastore(answers, min_count=mc)
        print(f"datastore: {store.tokens:,} answer tokens, {store.entries:,} suffixes seen >= {mc} times, "
              f"built in {store.build_s:.0f} s", flush=True)
        stores = [[store.branch(ids + g[: i + 1], args.branch, never) for i in range(len(rs))]
                  for ids, g, rs in zip(prompts, refs, trees)]
        found = sum(bool(b) for bs in stores for b in bs) / sum(len(bs) for bs in stores)
        variants = {
            "head+store": lambda r, b: b,
            "head+lookup|store": lambda r, b: r[4] or b,
            "head+lookup+store": lambda r, b: max((r[4], b), key=lambda x: _run(x, r[3])),
        }
        for name, pick in variants.items():
            rows_ = [[(*r[:4], pick(r, b)) for r, b in zip(rs, bs)] for rs, bs in zip(trees, stores)]
            tau(f"{name} (min count {mc})", rows_)
        out[f"store branch found (min count {mc})"] = round(found, 3)
        mean_run = np.mean([_run(b, r[3]) for bs, rs in zip(stores, trees) for b, r in zip(bs, rs)])
        out[f"store branch mean matching run (min count {mc})"] = round(float(mean_run), 3)
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}, indent=0), flush=True)
    if args.store_len:
        out["small trees"] = small_tree_study(lm, head, answers, prompts, refs, trees, never,
                                              [int(x) for x in args.store_len.split(",")],
                                              [float(x) for x in args.store_share.split(",")])
    return out


if __name__ == "__main__":
    main()
