"""The CPU weight layout's effect: greedy tokens/s with Linear weights row-major ([out, in], as loaded by
transformers) against column-major (``decoding_core.models.decode_layout``, what the loader uses on CPU), timed
in alternation, plus the largest logit difference between the two.

    python scripts/layout_check.py [--dtype float32|bfloat16] [--tokens 32] [--rounds 4]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from decoding_core.decoders import AutoregressiveDecoder  # noqa: E402
from decoding_core.models import decode_layout, load_model  # noqa: E402


@torch.no_grad()
def row_major(model: torch.nn.Module) -> None:
    """Undo decode_layout: every Linear weight contiguous again (ties kept)."""
    done = {}
    for m in model.modules():
        if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)):
            w = m.weight
            if id(w) not in done:
                done[id(w)] = torch.nn.Parameter(w.contiguous(), requires_grad=False)
            m.weight = done[id(w)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    lm = load_model(device="cpu", dtype=args.dtype)
    ids = lm.encode("Explain photosynthesis in simple terms.", chat=True)

    def greedy():
        t0 = time.perf_counter()
        r = AutoregressiveDecoder(lm, max_new_tokens=args.tokens, stop_at_eos=False).start(ids).run()
        return args.tokens / (time.perf_counter() - t0), r.tokens

    def logits():
        return lm.model(input_ids=torch.tensor([ids])).logits

    rates = {"row-major": [], "column-major": []}
    with torch.inference_mode():
        col_logits = logits()
    row_major(lm.model)
    with torch.inference_mode():
        row_logits = logits()
    greedy()
    tokens = {}
    for _ in range(args.rounds):
        for name, apply in (("row-major", row_major), ("column-major", decode_layout)):
            apply(lm.model)
            rate, tokens[name] = greedy()
            rates[name].append(rate)
    for name, r in rates.items():
        print(f"{name:13s} greedy {statistics.median(r):6.2f} tok/s  ({', '.join(f'{x:.1f}' for x in r)})")
    print(f"speed-up column/row: {statistics.median(rates['column-major']) / statistics.median(rates['row-major']):.2f}x")
    print(f"max |logit difference|: {float((col_logits - row_logits).abs().max()):.3g}")
    print(f"same greedy tokens: {tokens['row-major'] == tokens['column-major']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
