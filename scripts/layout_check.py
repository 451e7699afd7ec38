"""The CPU weight layout's effect: greedy tokens/s and a 4-token verify pass with Linear weights row-major
([out, in], as loaded by transformers), column-major, packed for oneDNN, blocked for this project's kernel,
and blocked-all (the kernel for one row too; ``decoding_core.layout``: the loader measures and picks one), timed
in alternation, plus the largest logit difference against row-major.

    python scripts/layout_check.py [--dtype float32|bfloat16] [--tokens 32] [--rounds 4]
    python scripts/layout_check.py --matrices    # GB/s of single matrices of the model's shapes by row count
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
def relayout(model: torch.nn.Module, kind: str) -> None:
    """Every Linear as a plain nn.Linear with its weight row-major or column-major, or packed (ties kept)."""
    from decoding_core.layout import BlockedLinear, PackedLinear, _column_major

    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, torch.nn.Linear):
                plain = torch.nn.Linear.__new__(torch.nn.Linear)
                torch.nn.Module.__init__(plain)
                plain.in_features, plain.out_features, plain.bias = child.in_features, child.out_features, child.bias
                plain.weight = child.weight
                setattr(parent, name, plain)
    done: dict = {}
    for m in model.modules():
        if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)):
            w = m.weight
            if id(w) not in done:
                done[id(w)] = torch.nn.Parameter(w.contiguous(), requires_grad=False)
            m.weight = done[id(w)]
    if kind == "column-major":
        col: dict = {}
        for m in list(model.modules()):
            if type(m) is torch.nn.Linear:
                _column_major(model, m, col)
    elif kind in ("packed", "blocked", "blocked-all"):
        decode_layout(model, kind)
        assert any(isinstance(m, PackedLinear if kind == "packed" else BlockedLinear) for m in model.modules()), (
            f"the {kind} layout is unavailable here")


def matrices(rounds: int) -> int:
    """Each of the model's matrix shapes, as many copies as the model reads per token (so that they stream from
    memory, not cache), multiplied by 1-16 rows in each layout: milliseconds and GB/s of weights read."""
    from decoding_core import kernels, layout
    from decoding_core.hardware import fastest_time

    gen = torch.Generator().manual_seed(0)
    for out_f, in_f, copies in ((1536, 576, 60), (576, 1536, 30), (49152, 576, 1)):
        ws = [torch.randn(out_f, in_f, generator=gen) for _ in range(copies)]
        forms = {"row-major": [(torch.nn.functional.linear, w) for w in ws],
                 "column-major": [(torch.nn.functional.linear, w.t().contiguous().t()) for w in ws]}
        if layout.packing_available():
            forms["packed"] = [(lambda x, p: torch.ops.mkldnn._linear_pointwise(x, p, None, "none", [], ""),
                                torch.ops.mkldnn._reorder_linear_weight(w, layout.PACK_ROWS)) for w in ws]
        if kernels.available():
            forms["blocked"] = [(lambda x, b, o=out_f: kernels.blocked_linear(x, b, None, o), kernels.pack(w)) for w in ws]
        mb = copies * out_f * in_f * 4 / 1e6
        print(f"[{out_f} x {in_f}] x {copies} ({mb:.0f} MB)")
        for rows in (1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64):
            x = torch.randn(rows, in_f, generator=gen)
            cells = []
            for name, pairs in forms.items():
                secs = fastest_time(lambda x=x, pairs=pairs: [f(x, w) for f, w in pairs], rounds)
                cells.append(f"{name} {1000 * secs:5.1f} ms {mb / 1000 / secs:4.0f} GB/s")
            print(f"  {rows:2d} rows: " + " | ".join(cells))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--matrices", action="store_true", help="time single matrices by row count instead")
    args = ap.parse_args()
    if args.matrices:
        return matrices(max(3, args.rounds))
    lm = load_model(device="cpu", dtype=args.dtype)
    ids = lm.encode("Explain photosynthesis in simple terms.", chat=True)
    from decoding_core.layout import available_layouts

    fast = [k for k in ("packed", "blocked", "blocked-all") if k in available_layouts()]
    kinds = ["row-major", "column-major"] + (fast if args.dtype == "float32" else [])

    def greedy():
        t0 = time.perf_counter()
        r = AutoregressiveDecoder(lm, max_new_tokens=args.tokens, stop_at_eos=False).start(ids).run()
        return args.tokens / (time.perf_counter() - t0), r.tokens

    def verify4():
        from transformers import DynamicCache

        cache = DynamicCache()
        lm.model(input_ids=torch.tensor([ids]), cache=cache)
        t0 = time.perf_counter()
        lm.model(input_ids=torch.tensor([ids[:4]]), cache=cache)
        return time.perf_counter() - t0

    logits, rates, verify, tokens = {}, {k: [] for k in kinds}, {k: [] for k in kinds}, {}
    for kind in kinds:
        relayout(lm.model, kind)
        with torch.inference_mode():
            logits[kind] = lm.model(input_ids=torch.tensor([ids])).logits
    greedy()
    for _ in range(args.rounds):
        for kind in kinds:
            relayout(lm.model, kind)
            with torch.inference_mode():
                rate, tokens[kind] = greedy()
                verify[kind].append(verify4())
            rates[kind].append(rate)
    base = statistics.median(rates["row-major"])
    for kind in kinds:
        r = rates[kind]
        print(f"{kind:13s} greedy {statistics.median(r):6.2f} tok/s ({statistics.median(r) / base:.2f}x row-major); "
              f"4-token verify pass {1000 * statistics.median(verify[kind]):.0f} ms; "
              f"max |logit - row-major| {float((logits[kind] - logits['row-major']).abs().max()):.3g}; "
              f"same greedy tokens: {tokens[kind] == tokens['row-major']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
