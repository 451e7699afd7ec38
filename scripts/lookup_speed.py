"""Does the EAGLE lookup branch pay on this machine? EAGLE-3 at the device-aware size without the branch, at the size
chosen for tree + branch (sizing.auto_tree(lookup=L), from the manifest's tau_by_size_lookup), and at the first size
with the branch added: wall-clock on held-out instructions, interleaved with plain greedy decoding in the same run.

    python scripts/lookup_speed.py --skip 0 --prompts 8 --lookup 8 --rounds 2

Prints the sizes chosen and, per configuration, tokens/s, the speed-up over plain greedy and the median tau; every
output is checked against plain greedy (greedy EAGLE must equal it token for token). Run it alone on the machine.
"""
from __future__ import annotations

import argparse
import statistics
import time

from train_common import ROOT, corpus_rows

from decoding_core.decoders import greedy_decoder
from decoding_core.eagle import EagleDecoder
from decoding_core.heads import load_head
from decoding_core.models import load_model
from decoding_core.sizing import auto_tree


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="assets/corpus")
    ap.add_argument("--skip", type=int, default=0, help="held-out instructions to skip first")
    ap.add_argument("--prompts", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--lookup", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=2, help="timed runs of every configuration per instruction")
    args = ap.parse_args(argv)
    lm = load_model(device="cpu")
    head = load_head(lm, "eagle3")
    alone, looked = auto_tree(lm, head, "eagle3"), auto_tree(lm, head, "eagle3", lookup=args.lookup)
    size = (alone["total_tokens"], alone["depth"])
    size_l = (looked["total_tokens"], looked["depth"])
    print(f"device-aware size: {size[0]} tokens, depth {size[1]} ({alone['reason']}); with a {args.lookup}-token "
          f"lookup branch: {size_l[0]} tokens, depth {size_l[1]} ({looked['reason']}; mean verify pass "
          f"{looked.get('verify_tokens', {}).get(size_l, float('nan')):.1f} tokens)", flush=True)
    rows = corpus_rows(ROOT / args.corpus, "heldout")[args.skip: args.skip + args.prompts]
    prompts = [lm.encode(r["instruction"], chat=True) for r in rows]
    n = args.max_new_tokens

    def eagle(total, depth, lookup=0):
        return lambda: EagleDecoder(lm, head, "dynamic", 8, depth, total, max_new_tokens=n, stop_at_eos=False,
                                    lookup=lookup)

    configs = {"plain greedy": lambda: greedy_decoder(lm, n, stop_at_eos=False),
               f"EAGLE-3 {size[0]}/{size[1]}": eagle(*size),
               f"EAGLE-3 {size_l[0]}/{size_l[1]} + {args.lookup}-token lookup (its own size)": eagle(*size_l, args.lookup),
               f"EAGLE-3 {size[0]}/{size[1]} + {args.lookup}-token lookup": eagle(*size, args.lookup)}
    secs = {k: 0.0 for k in configs}
    taus: dict[str, list[float]] = {k: [] for k in configs}
    same = True
    for ids in prompts:
        ref = configs["plain greedy"]().start(ids).run().tokens  # also warms every path once
        for make in configs.values():
            same &= make().start(ids).run().tokens == ref
        for _ in range(args.rounds):
            for k, make in configs.items():
                t0 = time.perf_counter()
                res = make().start(ids).run()
                secs[k] += time.perf_counter() - t0
                taus[k].append(res.metrics.get("mean_accepted_length") or 1.0)
    out = {}
    for k in configs:
        out[k] = {"tokens_per_s": len(prompts) * args.rounds * n / secs[k], "speedup": secs["plain greedy"] / secs[k],
                  "tau": statistics.median(taus[k])}
        print(f"{k}: {out[k]['tokens_per_s']:.1f} tok/s, {out[k]['speedup']:.3f}x plain greedy, median tau "
              f"{out[k]['tau']:.3f}", flush=True)
    print(f"every output equal to plain greedy: {same}")
    return {"sizes": {"alone": size, "lookup": size_l}, "runs": out, "same": same}


if __name__ == "__main__":
    main()
