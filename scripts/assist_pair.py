"""Ours (speculative, the draft over the full vocabulary, N = 4) against transformers' assisted generation with
the same draft, for one or more draft folders, paired exactly as the benchmark pairs them (Bench.assisted_pairing:
held-out instructions, 64 tokens, alternating runs); prints tokens/s of each, the median per-pair ratio and ours' tau.

    python scripts/assist_pair.py runs/draft-s10-old assets/draft runs/draft-s10-old
"""
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from decoding_core.bench import Bench  # noqa: E402
from decoding_core.draft import load_embedded_draft  # noqa: E402
from decoding_core.models import load_model  # noqa: E402

lm = load_model()
bench = Bench(lm, quick=False)
bench.prompts, bench.repeats = bench.heldout, 2
for folder in sys.argv[1:]:
    ours, assisted = bench.assisted_pairing(load_embedded_draft(lm, Path(folder)))
    taus = []

    def ours_tau(i):
        r = ours(i)
        taus.append(r.metrics["mean_accepted_length"])
        return r

    ours_s, theirs_s, ratio = bench.paired(ours_tau, assisted, lambda r: len(r.tokens), lambda o: bench.n)
    print(f"{folder}: ours {ours_s:.2f} tok/s, assisted {theirs_s:.2f} tok/s, ratio {ratio:.3f}, "
          f"tau (full vocabulary) {statistics.median(taus):.2f}", flush=True)
