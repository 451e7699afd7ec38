"""What this machine can do: median timings, memory bandwidth, matrix-vector bandwidth, weight bytes.

Used by the benchmark runner (bench.py) to put decoding speeds next to the machine's bounds.
"""
from __future__ import annotations

import statistics
import time

import torch


def _times(fn, repeats: int, warmup: int) -> list[float]:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def median_time(fn, repeats: int, warmup: int = 1) -> float:
    return statistics.median(_times(fn, repeats, warmup))


def fastest_time(fn, repeats: int, warmup: int = 1) -> float:
    """The fastest of ``repeats`` calls after ``warmup`` (noise on a shared machine only adds time)."""
    return min(_times(fn, repeats, warmup))


def memory_bandwidth_gbs(repeats: int = 5) -> float:
    """Read bandwidth: sum over a 1 GiB float32 tensor (far beyond any cache)."""
    x = torch.ones(256 * 1024 * 1024, dtype=torch.float32)
    secs = median_time(lambda: float(x.sum()), repeats)
    return x.numel() * 4 / secs / 1e9


@torch.inference_mode()
def gemv_bandwidth_gbs(model, repeats: int = 5) -> float:
    """What batch-1 matrix-vector products reach on this machine: every Linear of the model applied to
    one vector, in order (the weights stream from memory, as in decoding), bytes read / second."""
    linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    p = next(model.parameters())
    xs = [torch.randn(1, m.in_features, dtype=p.dtype, device=p.device) for m in linears]

    def once():
        for m, x in zip(linears, xs):
            torch.nn.functional.linear(x, m.weight)
        if p.device.type == "cuda":
            torch.cuda.synchronize()

    secs = median_time(once, repeats)
    return sum(m.weight.numel() * m.weight.element_size() for m in linears) / secs / 1e9


def weight_bytes(model) -> int:
    """Bytes of weights read per decoded token (tied embeddings counted once: the LM head reads them)."""
    seen, total = set(), 0
    for p in model.parameters():
        if p.data_ptr() in seen:
            continue
        seen.add(p.data_ptr())
        total += p.numel() * p.element_size()
    emb = model.get_input_embeddings().weight
    tied = emb.data_ptr() == model.get_output_embeddings().weight.data_ptr()
    return total if tied else total - emb.numel() * emb.element_size()  # embedding rows are gathered, not read
