"""The cost of drawing a token, measured in both regimes, with each method's exactness checked."""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from ..hardware import median_time
from ..messages import Msg
from ..sampling_cost import COMPLEXITY, COST, METHODS, draw_new_distributions, draw_one_distribution
from ..stats import chi_square
from . import Progress, StopCheck, never, no_progress

NS = (1, 10, 100, 1000, 10000, 100000)
BATCHES = (1, 8, 64)


@dataclass(frozen=True)
class CostRow:
    method: str
    regime: str                # "one": n draws from one distribution; "new": one draw from each of n
    k: int
    n: int
    batch: int                 # rows per call in the "new" regime (1 in "one")
    seconds: float | None      # median wall time of the n draws; None = skipped
    note: str = ""             # why skipped (the predicted time was over the budget)


@dataclass(frozen=True)
class Exactness:
    method: str
    regime: str
    p_value: float             # chi-square of the draws against the exact softmax
    draws: int


@dataclass(frozen=True)
class SamplingCost:
    rows: tuple[CostRow, ...]
    exactness: tuple[Exactness, ...]
    complexity: dict           # method -> the app's O(.) for n draws over k categories (COMPLEXITY)
    crossovers: tuple[str, ...]  # the measured crossovers in plain words
    stopped: bool = False
    probes: tuple[float, ...] = ()  # seconds of the ``probe`` (one target forward) before, between and after the
                                    # regimes: was the machine busy while the methods were timed?
    probe_quiet: float | None = None  # the probe's quiet figure read before the first probe (None: none known here)


QUICK_S = 0.01  # a call this fast is timed more often: one hiccup of the machine would otherwise be a spike


def _timed(fn, repeats: int) -> float:
    """Median of ``repeats`` timed calls after one timed warm-up call when repeats > 1; where the warm-up took under
    ``QUICK_S``, of 3 x ``repeats`` calls (cheap, and a median of three once showed torch.multinomial 200x slower at
    one draw than at ten)."""
    if repeats <= 1:
        return median_time(fn, 1, warmup=0)
    t0 = time.perf_counter()
    fn()
    quick = time.perf_counter() - t0 < QUICK_S
    return median_time(fn, 3 * repeats if quick else repeats, warmup=0)


def _k_logits(logits: torch.Tensor, k: int) -> torch.Tensor:
    """A k-category distribution shaped like the model's: its k largest logits (all of them at k = V)."""
    return logits if k >= logits.numel() else torch.topk(logits, k).values


def exactness(logits: torch.Tensor, draws: int = 20000, k: int = 200, seed: int = 0) -> tuple[Exactness, ...]:
    """Every method in both regimes against the exact softmax of the first k logits (chi-square)."""
    small = _k_logits(logits.float(), k)
    p = torch.softmax(small.double(), -1).numpy()
    out = []
    for m in METHODS:
        g = torch.Generator().manual_seed(seed)
        one = draw_one_distribution(m, small, draws, g).numpy()
        batch = 500 if m != "alias" else 50
        new = torch.cat([draw_new_distributions(m, small.expand(batch, -1), g)
                         for _ in range(max(1, draws // batch // (10 if m == "alias" else 1)))]).numpy()
        for regime, ids in (("one", one), ("new", new)):
            out.append(Exactness(m, regime, chi_square(np.bincount(ids, minlength=k), p)[2], int(ids.size)))
    return tuple(out)


def sampling_cost(logits: torch.Tensor, ks=None, ns=NS, batches=BATCHES, regimes=("one", "new"), n_new: int = 64,
                  budget_s: float = 1.0, seed: int = 0, check: bool = True, progress: Progress = no_progress,
                  should_stop: StopCheck = never, probe=None, probe_quiet: float | None = None) -> SamplingCost:
    """Time every method: regime "one" for each n in ``ns`` and k in ``ks``; regime "new" for ``n_new``
    distributions in batches of each B. A point whose time, predicted from the method's cost model and
    its last measured point, exceeds ``budget_s`` is skipped (and says so). ``probe`` (no arguments, returns seconds;
    the app passes ``sizing.forward_now``) is timed before the first point, where the regimes change and after the
    last point: its figures are kept, with ``probe_quiet`` (what it takes on this machine when quiet, read before the
    study), so a page can say whether the machine was busy meanwhile."""
    v = logits.numel()
    ks = tuple(ks or (100, 1000, 10000, v))
    if any(k < 2 or k > v for k in ks):
        raise ValueError(f"every k must be in [2, {v}], got {ks}")
    if any(n < 1 for n in ns) or n_new < 1:
        raise ValueError("every n must be >= 1")
    g = torch.Generator().manual_seed(seed)
    rows, stopped, probes = [], False, []
    plan = [(m, "one", k) for m in METHODS for k in ks] * ("one" in regimes) + \
           [(m, "new", k) for m in METHODS for k in ks] * ("new" in regimes)
    for i, (m, regime, k) in enumerate(plan):
        if should_stop():
            stopped = True
            break
        if probe is not None and (i == 0 or regime != plan[i - 1][1]):
            probes.append(probe())
        progress(i / len(plan), Msg.of(f"core.progress.cost_{regime}", method=method_name(m), k=k))
        lk = _k_logits(logits.float(), k)
        last = None   # (ops, seconds) of the last measured point: predicts the next
        for size in (ns if regime == "one" else batches):
            n, b = (size, 1) if regime == "one" else (n_new, size)
            ops = COST[m](n, k) if regime == "one" else (n_new // b or 1) * COST[m](b, k) * (b if m == "alias" else 1)
            predicted = last[1] * ops / last[0] if last else 0.0  # from the last measured point's cost per op
            if last and predicted > budget_s:
                rows.append(CostRow(m, regime, k, n, b, None, Msg.of("core.cost.skipped", seconds=predicted)))
                continue
            if regime == "one":
                secs = _timed(lambda: draw_one_distribution(m, lk, n, g), 3 if n * k < 1e7 else 1)
            else:
                rows_in = lk.expand(b, -1).contiguous()
                steps = max(1, n_new // b)
                secs = _timed(lambda: [draw_new_distributions(m, rows_in, g) for _ in range(steps)], 2)
            rows.append(CostRow(m, regime, k, n, b, secs))
            last = (ops, max(secs, 1e-6))
    if probe is not None and not stopped:
        probes.append(probe())
    progress(1.0, Msg.of("core.progress.exactness"))
    exact = exactness(logits, seed=seed) if check and not stopped else ()
    return SamplingCost(tuple(rows), exact, dict(COMPLEXITY), crossovers(rows, ks), stopped, tuple(probes),
                        probe_quiet)


def method_name(method: str) -> Msg:
    """A sampling method's name as shown (its catalogue id ``core.method.<method>``)."""
    return Msg.of(f"core.method.{method}")


def draw_vs_forward(rec: SamplingCost, k: int) -> tuple[CostRow, CostRow, float] | None:
    """What a decoding step's draw costs beside the step's forward: the fastest and the slowest method's rows for one
    draw per new distribution, one row a call, over ``k`` categories (seconds / n per draw), and the fastest probe
    forward (seconds) of the same study; None where the study has neither, or was stopped (its fastest and slowest
    would be of the methods timed before the Stop)."""
    rows = [r for r in rec.rows if r.regime == "new" and r.k == k and r.batch == 1 and r.seconds]
    if not rows or not rec.probes or rec.stopped:
        return None
    return min(rows, key=lambda r: r.seconds), max(rows, key=lambda r: r.seconds), min(rec.probes)


def crossovers(rows, ks) -> tuple[str, ...]:
    """Plain-words crossovers: in regime "one", from which n the alias table and binary search beat
    Gumbel-max at the largest k; in regime "new", which method is fastest per batch at the largest k."""
    k = max(ks)
    out = []
    t = {(r.method, r.n): r.seconds for r in rows if r.regime == "one" and r.k == k and r.seconds}
    gumbel_skipped = min((r.n for r in rows if r.regime == "one" and r.k == k and r.method == "gumbel-max"
                          and r.seconds is None), default=None)
    for m in ("alias", "binary-search"):
        ns = sorted(n for (mm, n) in t if mm == m)

        def wins(n):  # faster than Gumbel-max at n (Gumbel-max skipped there: over the budget, so slower)
            return t[(m, n)] < t[("gumbel-max", n)] if ("gumbel-max", n) in t else \
                gumbel_skipped is not None and n >= gumbel_skipped
        from_n = next((n for i, n in enumerate(ns) if all(wins(x) for x in ns[i:])), None)
        if from_n is not None:
            out.append(Msg.of("core.cost.beats", k=k, method=method_name(m), n=from_n))
    for b in sorted({r.batch for r in rows if r.regime == "new"}):
        new = [r for r in rows if r.regime == "new" and r.k == k and r.batch == b and r.seconds]
        if new:
            best = min(new, key=lambda r: r.seconds)
            alias = next((r for r in new if r.method == "alias"), None)
            extra = Msg.of("core.cost.alias_extra", ratio=alias.seconds / best.seconds) \
                if alias and best.method != "alias" else ""
            out.append(Msg.of("core.cost.fastest", batch=b, k=k, method=method_name(best.method), extra=extra))
    return tuple(out)
