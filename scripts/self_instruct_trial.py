"""How many usable, new instructions the model writes from the same seed requests, greedy against sampled.

    python scripts/self_instruct_trial.py --n 192 --settings 0:0,0.8:0.05,1.0:0.1

draws ``--n`` seed requests from the wide bank's training part (``--seed``), lets the embedded model answer
them under each temperature:min-p setting (0 = greedy, as make_corpus did before part x8), and prints what
became of each answer against the instructions already in ``--corpus`` (make_corpus.sort_written: unusable,
not a request, a repeat, kept) with a few kept ones. Session 27's trial chose ``--self-temperature 0.8
--self-min-p 0.05`` for part x8 from it."""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_instructions import InstructionBank  # noqa: E402
from make_corpus import answer_all, pad_id, read_jsonl_gz, sampler, sort_written  # noqa: E402

from decoding_core.models import load_model  # noqa: E402


def main(argv=None) -> dict[str, dict[str, int]]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="assets/corpus", help="instructions already there count as repeats")
    ap.add_argument("--n", type=int, default=192, help="seed requests")
    ap.add_argument("--settings", default="0:0,0.8:0.05,1.0:0.1", help="temperature:min-p pairs (0 = greedy)")
    ap.add_argument("--max-new-tokens", type=int, default=48, help="as make_corpus writes instructions")
    ap.add_argument("--batch", type=int, default=96)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--show", type=int, default=6, help="kept instructions printed per setting")
    args = ap.parse_args(argv)
    settings = [tuple(float(x) for x in pair.split(":")) for pair in args.settings.split(",")]
    seen = {r["instruction"] for f in sorted(Path(args.corpus).glob("*.jsonl.gz")) for r in read_jsonl_gz(f)}
    lm = load_model(dtype=args.dtype)
    rng = random.Random(args.seed)
    bank = InstructionBank(0, wide=True)
    seeds = [bank.self_instruct_seed("train", rng) for _ in range(args.n)]
    prompts = [lm.encode(s, chat=True) for s in seeds]
    print(f"{len(set(seeds))} distinct seed requests of {len(seeds)}; {len(seen)} instructions in {args.corpus}")
    results = {}
    for temperature, min_p in settings:
        t0 = time.perf_counter()
        written = answer_all(lm.model, prompts, args.max_new_tokens, args.batch, set(lm.eos_ids), pad_id(lm),
                             sampler(temperature, min_p, args.seed))
        kept, fate = sort_written(lm, written, set(seen), len(written), requests_only=True)
        name = "greedy" if temperature <= 0 else f"temperature {temperature:g}, min-p {min_p:g}"
        results[name] = fate
        print(f"{name}: " + ", ".join(f"{v} {k}" for k, v in fate.items() if k != "over the share")
              + f" ({time.perf_counter() - t0:.0f} s)")
        for text in kept[: args.show]:
            print("    " + text[:150])
    return results


if __name__ == "__main__":
    main()
