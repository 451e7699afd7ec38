"""Mean accepted length tau of the shipped draft and EAGLE head on HELD-OUT instructions (topics never
trained on), greedy verification; writes the figures into each asset's manifest ("heldout_tau").

    python scripts/eval_tau.py --corpus data/corpus.jsonl --prompts 20 --max-new-tokens 64
"""
from __future__ import annotations

import argparse
import json
import time

from train_common import command_line, load_corpus

from decoding_core.draft import DRAFT_DIR, load_embedded_draft
from decoding_core.eagle import EagleDecoder
from decoding_core.eagle_head import EAGLE_DIR, load_embedded_head
from decoding_core.models import load_model
from decoding_core.speculative import SpeculativeDecoder


def run_all(make, prompts, n):
    acc = steps = tokens = 0
    wall = 0.0
    for ids in prompts:
        m = make().start(ids).run().metrics
        acc += m["accepted"]
        steps += m["verify_steps"]
        tokens += m["new_tokens"]
        wall += m["wall_s"]
    return {"tau": round((acc + steps) / steps, 4), "accepted": acc, "verify_steps": steps, "tokens": tokens,
            "tokens_per_s": round(tokens / wall, 2)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="data/corpus.jsonl")
    ap.add_argument("--prompts", type=int, default=20)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--n-draft", type=int, default=4)
    ap.add_argument("--tree-top-k", type=int, default=8)
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--total-tokens", type=int, default=48)
    ap.add_argument("--write", action="store_true", help="write the figures into the manifests")
    args = ap.parse_args(argv)
    lm = load_model(device="cpu")
    held = [seq[:n_prompt] for seq, n_prompt in load_corpus(args.corpus, "heldout", 10_000)][: args.prompts]
    n = args.max_new_tokens
    t0 = time.perf_counter()
    results = {}
    draft = load_embedded_draft(lm)
    results["draft"] = run_all(lambda: SpeculativeDecoder(lm, draft, args.n_draft, "greedy", max_new_tokens=n), held, n)
    results["draft"]["setting"] = f"greedy match, N = {args.n_draft}, {len(held)} held-out prompts, {n} new tokens"
    head = load_embedded_head(lm)
    results["eagle"] = run_all(lambda: EagleDecoder(lm, head, "dynamic", args.tree_top_k, args.depth, args.total_tokens,
                                                    max_new_tokens=n), held, n)
    results["eagle"]["setting"] = (f"dynamic tree top-k {args.tree_top_k}, depth {args.depth}, total {args.total_tokens}, "
                                   f"greedy, {len(held)} held-out prompts, {n} new tokens")
    results["eagle_static"] = run_all(lambda: EagleDecoder(lm, head, "static", max_new_tokens=n), held, n)
    for r in results.values():
        r["command"] = command_line()
    print(json.dumps(results, indent=1))
    print(f"evaluated in {time.perf_counter() - t0:.0f}s")
    if args.write:
        rows = [json.loads(x) for x in open(args.corpus) if x.strip()]
        held_instr = [r["instruction"] for r in rows if r["split"] == "heldout"]
        (DRAFT_DIR.parent / "heldout_instructions.json").write_text(json.dumps(held_instr, indent=0) + "\n")
        for folder, key in ((DRAFT_DIR, "draft"), (EAGLE_DIR, "eagle")):
            path = folder / "manifest.json"
            manifest = json.loads(path.read_text())
            manifest["heldout_tau"] = results[key]
            if key == "eagle":
                manifest["heldout_tau_static"] = results["eagle_static"]
            path.write_text(json.dumps(manifest, indent=1) + "\n")
        print("manifests updated")


if __name__ == "__main__":
    main()
