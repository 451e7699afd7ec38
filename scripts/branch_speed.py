"""Does gating the lookup branch pay? The branch beside a draft copies what followed the latest earlier occurrence of
the context's last 3, 2 (or 1) tokens; this times, on held-out instructions interleaved with plain greedy decoding in
the same run, the speculative default (the draft's chain with its tree: runner-ups and the lookup branch) and EAGLE-3
with the branch, copying after a match of at least each of ``--min-ngrams`` tokens.

    python scripts/branch_speed.py --skip 8 --prompts 8 --min-ngrams 1,2 --ns 1,2 --eagle 6x2 --rounds 2

Prints per configuration tokens/s, the speed-up over plain greedy, the median tau and the mean verify-pass size; every
output is checked against plain greedy (greedy must equal it token for token). Run it alone on the machine.
"""
from __future__ import annotations

import argparse
import statistics
import time

from train_common import ROOT, corpus_rows

from decoding_core import speculative
from decoding_core.decoders import greedy_decoder
from decoding_core.draft import load_embedded_draft
from decoding_core.eagle import EagleDecoder
from decoding_core.heads import load_head
from decoding_core.models import load_model
from decoding_core.settings import Speculative
from decoding_core.speculative import SpeculativeDecoder


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="assets/corpus")
    ap.add_argument("--skip", type=int, default=8, help="held-out instructions to skip first")
    ap.add_argument("--prompts", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--min-ngrams", default="1,2", help="the shortest matches to compare (comma-separated)")
    ap.add_argument("--ns", default="1,2", help="speculative chain lengths N, with the page's defaults otherwise (the "
                    "copy weight, runner-up leaves, the branch)")
    ap.add_argument("--eagle", default="6x2", help="EAGLE-3 tree sizes TOTALxDEPTH with the branch ('' = none)")
    ap.add_argument("--lookup", type=int, default=Speculative.lookup)
    ap.add_argument("--rounds", type=int, default=2, help="timed runs of every configuration per instruction")
    args = ap.parse_args(argv)
    lm = load_model(device="cpu")
    draft = load_embedded_draft(lm)
    head = load_head(lm, "eagle3") if args.eagle else None
    rows = corpus_rows(ROOT / args.corpus, "heldout")[args.skip: args.skip + args.prompts]
    prompts = [lm.encode(r["instruction"], chat=True) for r in rows]
    n, lk, spec = args.max_new_tokens, args.lookup, Speculative()
    gates = [int(m) for m in args.min_ngrams.split(",")]
    configs = {"plain greedy": (lambda: greedy_decoder(lm, n, stop_at_eos=False), None)}
    for m in gates:
        for k in (int(x) for x in args.ns.split(",") if x):
            configs[f"speculative default N = {k}, branch after {m}"] = (
                lambda k=k: SpeculativeDecoder(lm, draft, k, "greedy", max_new_tokens=n, stop_at_eos=False,
                                               copy=spec.copy, lookup=lk, runner_up=spec.runner_up), m)
        for size in (s for s in args.eagle.split(",") if s):
            total, depth = (int(x) for x in size.split("x"))
            configs[f"EAGLE-3 {total}/{depth} + {lk}-token branch after {m}"] = (
                lambda total=total, depth=depth: EagleDecoder(lm, head, "dynamic", 8, depth, total, max_new_tokens=n,
                                                              stop_at_eos=False, lookup=lk), m)
    default_gate = speculative.LOOKUP_MIN_NGRAM

    def run(k):
        """(the decoder, its result) of configuration k on the current instruction, with its gate."""
        make, gate = configs[k]
        speculative.LOOKUP_MIN_NGRAM = default_gate if gate is None else gate
        try:
            dec = make().start(ids)
            return dec, dec.run()
        finally:
            speculative.LOOKUP_MIN_NGRAM = default_gate

    secs = {k: 0.0 for k in configs}
    taus: dict[str, list[float]] = {k: [] for k in configs}
    passes: dict[str, list[int]] = {k: [] for k in configs}
    same = True
    for ids in prompts:
        ref = run("plain greedy")[1].tokens  # also warms every path once
        for k in configs:
            dec, res = run(k)
            same &= res.tokens == ref
            if k != "plain greedy":  # a verify pass: EAGLE's tree (root included), the chain's tree (root + drafts)
                passes[k] += [len(s.tokens) if hasattr(s, "lookup_nodes") else 1 + s.n_drafted
                              for s in dec.history if s.is_verify]
        for _ in range(args.rounds):
            for k in configs:
                t0 = time.perf_counter()
                res = run(k)[1]
                secs[k] += time.perf_counter() - t0
                taus[k].append(res.metrics.get("mean_accepted_length") or 1.0)
    out = {}
    for k in configs:
        out[k] = {"tokens_per_s": len(prompts) * args.rounds * n / secs[k], "speedup": secs["plain greedy"] / secs[k],
                  "tau": statistics.median(taus[k]),
                  "verify_tokens": sum(passes[k]) / len(passes[k]) if passes[k] else 1.0}
        print(f"{k}: {out[k]['tokens_per_s']:.1f} tok/s, {out[k]['speedup']:.3f}x plain greedy, median tau "
              f"{out[k]['tau']:.3f}, mean verify pass {out[k]['verify_tokens']:.1f} tokens", flush=True)
    print(f"every output equal to plain greedy: {same}")
    return {"runs": out, "same": same}


if __name__ == "__main__":
    main()
