"""Speculative decoding with a confidence stop against N = 1 (the device-aware choice in session 12), paired the
benchmark's way (held-out instructions, 64 tokens, alternating runs): tokens/s, per-pair ratio, tau and drafts per step.

    python scripts/stop_grid.py 4:0.0 3:0.5 4:0.6 6:0.7 8:0.8     # N:stop_below pairs
"""
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from decoding_core.bench import Bench  # noqa: E402
from decoding_core.draft import load_embedded_draft  # noqa: E402
from decoding_core.models import load_model  # noqa: E402
from decoding_core.speculative import SpeculativeDecoder  # noqa: E402

lm = load_model()
bench = Bench(lm, quick=False)
bench.prompts, bench.repeats = bench.heldout, 2
draft = load_embedded_draft(lm)


def runner(n: int, stop: float, metrics: list):
    def run(i):
        r = SpeculativeDecoder(lm, draft, n, "greedy", max_new_tokens=bench.n, stop_at_eos=False,
                               stop_below=stop).start(i).run()
        metrics.append(r.metrics)
        return r
    return run


for n, stop in ((int(a), float(b)) for a, b in (x.split(":") for x in sys.argv[1:])):
    ms = []
    ours, base, ratio = bench.paired(runner(n, stop, ms), runner(1, 0.0, []), lambda r: len(r.tokens),
                                     lambda r: len(r.tokens))
    tau = statistics.median(m["mean_accepted_length"] for m in ms)
    per_step = statistics.median(m["drafted"] / m["verify_steps"] for m in ms)
    print(f"N={n} stop={stop}: {ours:.1f} tok/s vs N=1 {base:.1f}: ratio {ratio:.3f}; tau {tau:.2f}, "
          f"drafted/step {per_step:.2f}", flush=True)
