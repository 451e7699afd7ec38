"""Is the EAGLE head's confidence a good ranking for the dynamic tree? Records the full trees the head drafts
(depth 7, top-k 8, every candidate) at every position of the target's greedy output, on held-out AND on
training instructions, then reads off (no model needed once recorded):

- tau of the dynamic tree for every (total_tokens, depth) on both splits (the held-out/training gap);
- per depth, the head's probability against how often that node is the target's next token given its
  parent was (calibration);
- tau when the rerank orders nodes by a calibrated score (per-depth logistic maps fitted on the TRAINING
  split, measured on the held-out split).

    python scripts/tree_calibration.py --prompts 48 --max-new-tokens 64 [--head assets/eagle3] [--draft]

``--mixed`` measures instead four splits drawn afresh from the corpus's (wide) instruction bank, templated only:
training topics in training wordings (new combinations, like the training data), held-out topics in training
wordings, training topics in held-out wordings, and held-out topics in held-out wordings: which of the two shifts
costs tau (session 28).

``--draft`` also measures the speculative draft's tau for N = 1..10 (greedy chains, replay) on both splits;
``--unseen`` adds a third: the training-split rows after ``--train-pool`` (drawn like the training data: tells memorised
sequences from the held-out topics' and phrasings' shift). In session 23 those were extension x3, trained on by no asset;
the session-24 head trained on x3 and the draft on x3 and x4, so for them set --train-pool past the rows they saw.
"""
from __future__ import annotations

import argparse
import math
import random
import time

import torch
from corpus_instructions import InstructionBank
from train_common import ROOT, corpus_rows

from decoding_core.draft import load_embedded_draft
from decoding_core.eagle3_head import EAGLE3_DIR, load_eagle3
from decoding_core.models import load_model
from decoding_core.sizing import chain_tau_table, drafted_trees, greedy_references, trees_tau
from decoding_core.trees import depths as tree_depths

TOTALS = (8, 16, 24, 32, 48, 64)
DEPTHS = (2, 3, 4, 5, 6, 7)


MIXED = (("topics-train/wording-train", "train", "train"), ("topics-held/wording-train", "heldout", "train"),
         ("topics-train/wording-held", "train", "heldout"), ("topics-held/wording-held", "heldout", "heldout"))


def mixed_splits(n: int, seed: int = 28, exclude=()) -> list[tuple[str, list[str]]]:
    """The four topic x wording splits of ``--mixed``: n templated instructions each from the corpus's wide bank
    (its split seed 0), none equal to an instruction in ``exclude`` (the corpus) nor repeated."""
    bank = InstructionBank(0, wide=True)
    rng, seen, out = random.Random(seed), set(exclude), []
    for name, subjects, wording in MIXED:
        got = []
        while len(got) < n:
            _, text = bank.sample(subjects, rng, phrasings=wording)
            if text not in seen:
                seen.add(text)
                got.append(text)
        out.append((name, got))
    return out


def record(lm, head, prompts, n, top_k, d_max, t_max):
    """[(tokens, parents, scores, continuation)] per output position, a list per prompt."""
    return [list(drafted_trees(lm, head, ids, g, top_k, d_max, t_max))
            for ids, g in zip(prompts, greedy_references(lm, prompts, n))]


def node_table(split_rows):
    """(depth, head log-prob of the node given its parent, correct?) for every node whose parent is on the
    target's path (the root always is)."""
    out = []
    for rows in split_rows:
        for tokens, parents, scores, cont in rows:
            d = tree_depths(parents)
            on_path = {0}
            for i in range(1, len(tokens)):
                p = parents[i]
                if p not in on_path or d[i] > len(cont):
                    continue
                ok = tokens[i] == cont[d[i] - 1]
                out.append((d[i], scores[i] - scores[p], ok))
                if ok:
                    on_path.add(i)
    return out


def fit_logistic(table, max_depth):
    """Per depth: P(correct | lp) = sigmoid(a * logit(p) + b), fitted by maximum likelihood."""
    params = {}
    for dd in range(1, max_depth + 1):
        rows = [(lp, ok) for d, lp, ok in table if d == dd]
        p = torch.tensor([min(max(math.exp(lp), 1e-6), 1 - 1e-6) for lp, _ in rows], dtype=torch.float64)
        y = torch.tensor([float(ok) for _, ok in rows], dtype=torch.float64)
        x = torch.log(p) - torch.log1p(-p)
        ab = torch.tensor([1.0, 0.0], dtype=torch.float64, requires_grad=True)
        opt = torch.optim.LBFGS([ab], max_iter=200)

        def closure():
            opt.zero_grad()
            loss = torch.nn.functional.binary_cross_entropy_with_logits(ab[0] * x + ab[1], y)
            loss.backward()
            return loss
        opt.step(closure)
        params[dd] = tuple(ab.detach().tolist())
    return params


def calibrated(params):
    def fn(tokens, parents, scores, d):
        out = [0.0] * len(scores)
        for i in range(1, len(scores)):
            lp = scores[i] - scores[parents[i]]
            p = min(max(math.exp(lp), 1e-6), 1 - 1e-6)
            a, b = params[min(d[i], max(params))]
            z = a * math.log(p / (1 - p)) + b
            out[i] = out[parents[i]] - math.log1p(math.exp(-z))  # log sigmoid(z) <= 0: a child never outranks its parent
        return out
    return fn


def raw(tokens, parents, scores, d):
    return scores


def calibration_report(table, name, max_depth):
    print(f"\n{name}: the head's probability against the acceptance rate (nodes whose parent is on the target's path)")
    edges = (0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)
    print("depth  " + "  ".join(f"{a:.2f}-{b:.2f}" for a, b in zip(edges, edges[1:])))
    for dd in range(1, max_depth + 1):
        cells = []
        for a, b in zip(edges, edges[1:]):
            sel = [ok for d, lp, ok in table if d == dd and a <= math.exp(lp) < b]
            cells.append(f"{sum(sel) / len(sel):.2f}({len(sel):4d})" if sel else " " * 10)
        print(f"{dd:5d}  " + " ".join(cells))


def main(argv=None) -> dict:
    """Prints the tables; returns {(ranker, split): {(total_tokens, depth): tau}}."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="assets/corpus")
    ap.add_argument("--head", default=None, help="an EAGLE-3 head folder (default: the shipped one)")
    ap.add_argument("--prompts", type=int, default=48)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--top-k", type=int, default=8)
    ap.add_argument("--train-pool", type=int, default=10446, help="sample the training instructions from the first "
                    "this many training rows (10,446: the corpus before extension x3, as the session-23 figures)")
    ap.add_argument("--draft", action="store_true", help="also the draft's chain tau on both splits")
    ap.add_argument("--unseen", action="store_true", help="also training-split instructions after --train-pool "
                    "(drawn like the training data; unseen only while no asset has trained on them: x3 until session 24)")
    ap.add_argument("--mixed", action="store_true", help="instead: the four topic x wording splits drawn afresh "
                    "from the instruction bank (held-out or training topics, held-out or training wordings)")
    ap.add_argument("--draft-only", default="", help="with --draft: only these splits (comma-separated)")
    ap.add_argument("--cache", default="runs/tree-calibration.pt", help="recorded trees (reused when present)")
    args = ap.parse_args(argv)
    cache = ROOT / args.cache
    held = [r["instruction"] for r in corpus_rows(ROOT / args.corpus, "heldout")][: args.prompts]
    all_train = corpus_rows(ROOT / args.corpus, "train")
    train = [r["instruction"] for r in random.Random(0).sample(all_train[: args.train_pool], args.prompts)]
    splits = [("heldout", held), ("train", train)]
    unseen = all_train[args.train_pool:]  # training-split rows after the pool (session 23: extension x3, then unseen)
    if args.mixed:
        splits = mixed_splits(args.prompts, exclude={r["instruction"] for r in all_train})
    elif args.unseen and unseen:
        splits.append(("unseen", [r["instruction"] for r in random.Random(0).sample(unseen, min(args.prompts, len(unseen)))]))
    data = torch.load(cache) if cache.exists() else {}
    todo = [(name, instr) for name, instr in splits if name not in data]
    lm = load_model(device="cpu") if args.draft or todo else None
    if args.draft:
        draft = load_embedded_draft(lm)
        for name, instr in splits:
            if args.draft_only and name not in args.draft_only.split(","):
                continue
            table = chain_tau_table(lm, draft, [lm.encode(t, chat=True) for t in instr], args.max_new_tokens, tuple(range(1, 11)))
            print(f"draft {name:8s} tau by N: " + "  ".join(f"{n}: {v:.3f}" for n, v in sorted(table.items())), flush=True)
    if todo:
        head = load_eagle3(lm, ROOT / args.head if args.head else EAGLE3_DIR)
        for name, instr in todo:
            t0 = time.perf_counter()
            data[name] = record(lm, head, [lm.encode(t, chat=True) for t in instr], args.max_new_tokens, args.top_k,
                                max(DEPTHS), max(TOTALS))
            print(f"recorded {name}: {len(instr)} prompts in {time.perf_counter() - t0:.0f} s", flush=True)
        cache.parent.mkdir(parents=True, exist_ok=True)
        torch.save(data, cache)
    rankers = [("raw", raw)]
    if not args.mixed:
        tables = {k: node_table(data[k]) for k in ("train", "heldout")}
        for k in ("train", "heldout"):
            calibration_report(tables[k], k, max(DEPTHS))
        params = fit_logistic(tables["train"], max(DEPTHS))
        print("\nper-depth logistic maps fitted on the training split (a, b):",
              {d: (round(a, 3), round(b, 3)) for d, (a, b) in params.items()})
        rankers.append(("calibrated", calibrated(params)))
    width = max(len(s) for s, _ in splits)
    print(f"\ntau (greedy, replay)  {'':{width}s}" + "  ".join(f"{t:>3d}/{d}" for t in TOTALS for d in (3, 5, 7)))
    results = {}
    for name, fn in rankers:
        for split, _ in splits:
            results[name, split] = trees_tau(data[split], [(t, d) for t in TOTALS for d in (3, 5, 7)], fn)
            print(f"{name:10s} {split:{width}s}    " + "  ".join(f"{v:5.3f}" for v in results[name, split].values()),
                  flush=True)
    return results


if __name__ == "__main__":
    main()
