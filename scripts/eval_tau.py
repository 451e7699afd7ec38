"""Mean accepted length tau of the shipped draft and EAGLE heads on HELD-OUT instructions (topics AND
phrasings never trained on), greedy verification, for every draft size; writes the figures into each
asset's manifest ("tau_by_size", "heldout_tau") and the held-out instruction list the benchmark uses.

    python scripts/eval_tau.py --corpus assets/corpus --prompts 12 --max-new-tokens 64 --write

tau for every size comes from one replay per prompt (decoding_core/sizing.py: the drafts at every position
of the target's greedy output, read against it); the decoders are then run for real at the reference
sizes and their measured tau is printed beside the replay's, as a check.
"""
from __future__ import annotations

import argparse
import json
import time

from train_common import ROOT, command_line, corpus_rows

from decoding_core.draft import DRAFT_DIR, load_embedded_draft
from decoding_core.eagle import EagleDecoder
from decoding_core.eagle3_head import EAGLE3_DIR, load_eagle3
from decoding_core.eagle_head import EAGLE_DIR, load_embedded_head
from decoding_core.models import ModelLoadError, load_model
from decoding_core.settings import COPY_WEIGHT, Speculative
from decoding_core.sizing import (chain_tau_table, corpus_fallback, greedy_references, recorded_trees, tree_tau_table,
                                  trees_tau)
from decoding_core.speculative import LOOKUP_MIN_NGRAM, SpeculativeDecoder

TOTALS = (4, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64)
DEPTHS = (2, 3, 4, 5, 6, 7)
CHAINS = tuple(range(1, 11))


def run_all(make, prompts, outputs: list | None = None):
    """Pooled tau and tokens/s of make()'s decoder over the prompts; ``outputs`` (a list) also collects each output's
    tokens."""
    acc = steps = tokens = 0
    wall = 0.0
    for ids in prompts:
        result = make().start(ids).run()
        if outputs is not None:
            outputs.append(result.tokens)
        m = result.metrics
        acc += m["accepted"]
        steps += m["verify_steps"]
        tokens += m["new_tokens"]
        wall += m["wall_s"]
    return {"tau": round((acc + steps) / steps, 4), "accepted": acc, "verify_steps": steps, "tokens": tokens,
            "tokens_per_s": round(tokens / wall, 2)}


def corpus_branch(result: dict, lm, head, trees, prompts, refs, sizes, lk: int, top_k: int, n: int, setting: str,
                  t0: float) -> None:
    """The lookup branch with the corpus datastore as its fallback: the replay table (each recorded position's branch
    is the datastore's where prompt lookup found nothing) and a real run at the reference tree."""
    from decoding_core.datastore import load_datastore

    store = load_datastore(lm)
    never = frozenset(getattr(lm.tokenizer, "all_special_ids", ()) or ())
    fell_back = corpus_fallback(trees, prompts, refs, store, lk, never)
    tokens: dict[tuple[int, int], float] = {}
    shares: dict[tuple[int, int], list] = {}
    table = trees_tau(fell_back, sizes, verify_tokens=tokens, pass_sizes=shares)
    measured = run_all(lambda: EagleDecoder(lm, head, "dynamic", top_k, 5, 32, max_new_tokens=n, lookup=lk,
                                            datastore=store), prompts)
    what = (f"+ a {lk}-token lookup branch (copied after {LOOKUP_MIN_NGRAM}-3 matching tokens; where the context has "
            f"none, drafted from the corpus datastore: {store.tokens:,} training-answer tokens, suffixes seen >= "
            f"{store.min_count} times)")
    result["heldout_tau_lookup_corpus"] = {
        **measured, "setting": f"dynamic tree top-k {top_k}, depth 5, total 32, {what}, {setting}", "lookup": lk,
        "lookup_min_ngram": LOOKUP_MIN_NGRAM, "corpus": True, "replay_tau_same_size": round(table[(32, 5)], 4),
        "min_count": store.min_count, "min_share": store.min_share}
    result["tau_by_size_lookup_corpus"] = {
        "top_k": top_k, "lookup": lk, "lookup_min_ngram": LOOKUP_MIN_NGRAM, "corpus": True,
        "min_count": store.min_count, "min_share": store.min_share,
        "columns": ["total_tokens", "depth", "tau", "verify_tokens", "verify_token_shares"],
        "rows": [[t, d, round(v, 4), round(tokens[(t, d)], 2), shares[(t, d)]] for (t, d), v in sorted(table.items())],
        "setting": f"{what}, {setting}",
        "method": "replay of the largest tree and the lookup branch (or the datastore's) at every position of the greedy "
                  "output (decoding_core/sizing.py trees_tau)"}
    print(f"dynamic (32, 5) {what}: measured tau {measured['tau']} vs replay {table[(32, 5)]:.3f}; mean verify tokens "
          f"at (32, 5) {tokens[(32, 5)]:.1f}, at (6, 2) {tokens[(6, 2)]:.1f} ({time.perf_counter() - t0:.0f} s)",
          flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="assets/corpus")
    ap.add_argument("--prompts", type=int, default=12)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--tree-top-k", type=int, default=8)
    ap.add_argument("--only", default="draft,eagle1,eagle3",
                    help="any of draft, eagle1, eagle3, draft-tree (the draft's tree around the chain alone), "
                    "eagle1-lookup / eagle3-lookup (the head's tree with the lookup branch alone)")
    ap.add_argument("--draft", default=None, help="a draft folder to measure instead of the shipped assets/draft "
                    "(a candidate from train_draft.py --out); --write then writes into its manifest")
    ap.add_argument("--eagle1", default=None, help="an EAGLE-1 head folder to measure instead of the shipped assets/eagle "
                    "(e.g. from shrink_asset.py); --write then writes into its manifest")
    ap.add_argument("--eagle3", default=None, help="an EAGLE-3 head folder to measure instead of the shipped assets/eagle3 "
                    "(a candidate from train_eagle3.py --out); --write then writes into its manifest")
    ap.add_argument("--lookup", type=int, default=8, help="EAGLE: also measure the trees with a prompt-lookup "
                    "branch of this many tokens added to them (0: not): tau_by_size_lookup, heldout_tau_lookup")
    ap.add_argument("--corpus-branch", action="store_true", help="EAGLE with --lookup: also the trees whose lookup "
                    "branch falls back to the corpus datastore (decoding_core/datastore.py): tau_by_size_lookup_corpus, "
                    "heldout_tau_lookup_corpus")
    ap.add_argument("--copy", type=float, default=COPY_WEIGHT, help="draft: also measure the draft mixed with "
                    "a copy of the context at this weight (SpeculativeDecoder's copy; 0: not)")
    ap.add_argument("--draft-lookup", type=int, default=Speculative.lookup,
                    help="draft: also measure the chain with a lookup branch of this many tokens (0 = none)")
    ap.add_argument("--runner-up", action=argparse.BooleanOptionalAction, default=Speculative.runner_up,
                    help="draft: ... and with the draft's runner-up leaves")
    ap.add_argument("--write", action="store_true", help="write the figures into the manifests")
    args = ap.parse_args(argv)
    lm = load_model(device="cpu")
    rows = corpus_rows(ROOT / args.corpus, "heldout")
    instructions = [r["instruction"] for r in rows]
    prompts = [lm.encode(t, chat=True) for t in instructions[: args.prompts]]
    n, only = args.max_new_tokens, set(args.only.split(","))
    if only & {"eagle1-lookup", "eagle3-lookup"} and not args.lookup:
        ap.error("--only eagle1-lookup / eagle3-lookup measure the lookup branch: give --lookup > 0")
    refs = greedy_references(lm, prompts, n)  # once, for every replay below
    from decoding_core.layout import draft_weights
    setting = f"greedy, {len(prompts)} held-out instructions, {n} new tokens, drafts' weights {draft_weights()}"
    results, t0 = {}, time.perf_counter()
    heads = {}
    if only & {"eagle1", "eagle1-lookup"}:
        folder = ROOT / args.eagle1 if args.eagle1 else EAGLE_DIR
        heads["eagle1"] = (folder, load_embedded_head(lm, folder))
    if only & {"eagle3", "eagle3-lookup"}:
        try:
            folder = ROOT / args.eagle3 if args.eagle3 else EAGLE3_DIR
            heads["eagle3"] = (folder, load_eagle3(lm, folder))
        except ModelLoadError as exc:
            print(f"skipping EAGLE-3: {exc}")
    sizes = [(t, d) for t in TOTALS for d in DEPTHS]
    for name, (folder, head) in heads.items():
        full, lk = name in only, args.lookup
        results[name] = {"folder": folder}
        if lk:  # the trees with their lookup branch recorded once: the tables with and without it read off them
            trees = list(recorded_trees(lm, head, prompts, n, args.tree_top_k, max(DEPTHS), max(TOTALS), refs, lk))
            tokens: dict[tuple[int, int], float] = {}
            shares: dict[tuple[int, int], list] = {}
            looked_table = trees_tau(trees, sizes, verify_tokens=tokens, pass_sizes=shares)
            table = trees_tau(([row[:4] for row in rows] for rows in trees), sizes) if full else None
        else:
            table = tree_tau_table(lm, head, prompts, n, args.tree_top_k, TOTALS, DEPTHS, refs)
        if full:
            direct = run_all(lambda: EagleDecoder(lm, head, "dynamic", args.tree_top_k, 5, 32, max_new_tokens=n), prompts)
            static = run_all(lambda: EagleDecoder(lm, head, "static", max_new_tokens=n), prompts)
            results[name].update({
                "tau_by_size": {"top_k": args.tree_top_k, "columns": ["total_tokens", "depth", "tau"], "setting": setting,
                                "rows": [[t, d, round(v, 4)] for (t, d), v in sorted(table.items())],
                                "method": "replay of the largest tree at every position of the greedy output "
                                          "(decoding_core/sizing.py tree_tau_table)"},
                "heldout_tau": {**direct, "setting": f"dynamic tree top-k {args.tree_top_k}, depth 5, total 32, {setting}",
                                "params": {"tree": "dynamic", "top_k": args.tree_top_k, "depth": 5, "total_tokens": 32,
                                           "prompts": len(prompts), "new_tokens": n},
                                "replay_tau_same_size": round(table[(32, 5)], 4)},
                "heldout_tau_static": {**static, "setting": f"reference static tree (26 tokens), {setting}"},
            })
            print(f"{name}: dynamic (32, 5) measured tau {direct['tau']} vs replay {table[(32, 5)]:.3f}; "
                  f"static {static['tau']}; best replay tau {max(table.values()):.3f} "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
        if lk:
            looked = run_all(lambda: EagleDecoder(lm, head, "dynamic", args.tree_top_k, 5, 32, max_new_tokens=n,
                                                  lookup=lk), prompts)
            what = f"+ a {lk}-token prompt-lookup branch (copied after {LOOKUP_MIN_NGRAM}-3 matching tokens)"
            results[name]["heldout_tau_lookup"] = {
                **looked, "setting": f"dynamic tree top-k {args.tree_top_k}, depth 5, total 32, {what}, {setting}",
                "lookup": lk, "lookup_min_ngram": LOOKUP_MIN_NGRAM,
                "replay_tau_same_size": round(looked_table[(32, 5)], 4)}
            results[name]["tau_by_size_lookup"] = {
                "top_k": args.tree_top_k, "lookup": lk, "lookup_min_ngram": LOOKUP_MIN_NGRAM,
                "columns": ["total_tokens", "depth", "tau", "verify_tokens", "verify_token_shares"],
                "rows": [[t, d, round(v, 4), round(tokens[(t, d)], 2), shares[(t, d)]]
                         for (t, d), v in sorted(looked_table.items())],
                "setting": f"{what}, {setting}",
                "method": "replay of the largest tree and the lookup branch at every position of the greedy output; "
                          "verify_tokens: the mean size of a step's verify pass, verify_token_shares: how often each "
                          "size came ([[tokens, share], ...]; decoding_core/sizing.py trees_tau)"}
            print(f"{name}: dynamic (32, 5) {what}: measured tau {looked['tau']} vs replay {looked_table[(32, 5)]:.3f}; "
                  f"mean verify tokens at (32, 5) {tokens[(32, 5)]:.1f}, at (6, 2) {tokens[(6, 2)]:.1f} "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
        if lk and args.corpus_branch:
            corpus_branch(results[name], lm, head, trees, prompts, refs, sizes, lk, args.tree_top_k, n, setting, t0)
    if only & {"draft", "draft-tree"}:
        folder = ROOT / args.draft if args.draft else DRAFT_DIR
        draft = load_embedded_draft(lm, folder)
        results["draft"] = {"folder": folder}
    if "draft" in only:
        table = chain_tau_table(lm, draft, prompts, n, CHAINS, refs)
        direct = run_all(lambda: SpeculativeDecoder(lm, draft, 4, "greedy", max_new_tokens=n), prompts)
        results["draft"].update({
            "tau_by_size": {"columns": ["n_draft", "tau"], "setting": setting,
                            "rows": [[k, round(v, 4)] for k, v in sorted(table.items())],
                            "method": "replay of a 10-token chain at every position of the greedy output "
                                      "(decoding_core/sizing.py chain_tau_table)"},
            "heldout_tau": {**direct, "setting": f"greedy match, N = 4, {setting}", "replay_tau_same_size": round(table[4], 4)},
        })
        print(f"draft: N = 4 measured tau {direct['tau']} vs replay {table[4]:.3f} ({time.perf_counter() - t0:.0f} s)")
        if args.copy:
            w = args.copy
            table = chain_tau_table(lm, draft, prompts, n, CHAINS, refs, copy=w)
            mixed = run_all(lambda: SpeculativeDecoder(lm, draft, 4, "greedy", max_new_tokens=n, copy=w), prompts)
            results["draft"]["tau_by_size_copy"] = {
                **results["draft"]["tau_by_size"], "rows": [[k, round(v, 4)] for k, v in sorted(table.items())],
                "copy": w, "setting": f"copy weight {w}, {setting}"}
            results["draft"]["heldout_tau_copy"] = {**mixed, "copy": w, "replay_tau_same_size": round(table[4], 4),
                                                    "setting": f"greedy match, N = 4, copy weight {w}, {setting}"}
            print(f"draft with copy weight {w}: N = 4 measured tau {mixed['tau']} vs replay {table[4]:.3f} "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
    if only & {"draft", "draft-tree"} and (args.draft_lookup or args.runner_up):
        w, lk, ru = args.copy, args.draft_lookup, args.runner_up
        tokens: dict[int, float] = {}
        shares: dict[int, list] = {}
        table = chain_tau_table(lm, draft, prompts, n, CHAINS, refs, copy=w, lookup=lk, runner_up=ru,
                                verify_tokens=tokens, pass_sizes=shares)
        treed = run_all(lambda: SpeculativeDecoder(lm, draft, 4, "greedy", max_new_tokens=n, copy=w, lookup=lk,
                                                   runner_up=ru), prompts)
        what = (f"copy weight {w}, a {lk}-token lookup branch (copied after {LOOKUP_MIN_NGRAM}-3 matching tokens)"
                f"{', runner-up leaves' if ru else ''}")
        results["draft"]["tau_by_size_tree"] = {
            "columns": ["n_draft", "tau", "verify_tokens", "verify_token_shares"],
            "rows": [[k, round(v, 4), round(tokens[k], 2), shares[k]] for k, v in sorted(table.items())],
            "copy": w, "lookup": lk, "lookup_min_ngram": LOOKUP_MIN_NGRAM, "runner_up": ru, "setting": f"{what}, {setting}",
            "method": "replay of a 10-token chain and its tree at every position of the greedy output; verify_tokens: "
                      "the mean size of a step's verify pass, verify_token_shares: how often each size came "
                      "([[tokens, share], ...]; decoding_core/sizing.py chain_tau_table)"}
        results["draft"]["heldout_tau_tree"] = {**treed, "copy": w, "lookup": lk, "lookup_min_ngram": LOOKUP_MIN_NGRAM,
                                                "runner_up": ru,
                                                "replay_tau_same_size": round(table[4], 4),
                                                "setting": f"greedy match, N = 4, {what}, {setting}"}
        print(f"draft with {what}: N = 4 measured tau {treed['tau']} vs replay {table[4]:.3f}; mean verify tokens "
              + ", ".join(f"N={k}: {v:.1f}" for k, v in sorted(tokens.items())) + f" ({time.perf_counter() - t0:.0f} s)",
              flush=True)
    for r in results.values():
        for v in r.values():
            if isinstance(v, dict):
                v["command"] = command_line()
    print(json.dumps({k: {kk: vv for kk, vv in v.items() if kk != "folder"} for k, v in results.items()}, indent=1,
                     default=str))
    if args.write:
        (ROOT / "assets" / "heldout_instructions.json").write_text(json.dumps(instructions, indent=0) + "\n")
        for r in results.values():
            path = r.pop("folder") / "manifest.json"
            manifest = json.loads(path.read_text())
            manifest.update(r)
            path.write_text(json.dumps(manifest, indent=1) + "\n")
        print("manifests updated")
    return results


if __name__ == "__main__":
    main()
