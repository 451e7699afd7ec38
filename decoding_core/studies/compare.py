"""Strategies side by side: the same prompt, seed, length, device and dtype, run one after another."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import torch
from transformers import DynamicCache

from ..decoders import forward
from ..diversity import distinct_n
from ..models import LoadedModel, ModelLoadError
from ..settings import RunSettings
from ..strategies import Loaders, Sizes, build_decoder, describe, direct_loaders
from . import Progress, StopCheck, never, no_progress


def _run(dec, max_new: int, progress: Progress, should_stop: StopCheck, i: int, n: int, label: str):
    """Step a started decoder to the end (decode time is counted inside step() only), telling progress every
    ~0.3 s; returns (result, stopped early)."""
    last = time.perf_counter()
    while not dec.done:
        dec.step()
        if should_stop():
            return dec.result(), True
        if time.perf_counter() - last > 0.3:
            made = min(len(dec.tokens), max_new)
            progress((i + made / max(1, max_new)) / n, f"{label}: {made} of {max_new} tokens")
            last = time.perf_counter()
    return dec.result(), False


@dataclass(frozen=True)
class StrategyRun:
    label: str
    strategy: str              # greedy, sample, beam, speculative, eagle
    tokens: tuple[int, ...]
    text: str
    new_tokens: int
    wall_s: float              # decoding only (the model is loaded and warmed up before)
    tokens_per_s: float | None
    speedup: float | None      # tokens/s over the reference run's (None for the reference or without one)
    target_forwards: int
    tau: float | None          # mean accepted length, speculative and EAGLE only
    acceptance_rate: float | None
    acceptance_by_depth: tuple[float, ...]
    distinct_2: float          # unique bigrams / all bigrams in this output
    same_as_reference: bool | None
    sizes: dict
    error: str | None = None


@dataclass(frozen=True)
class Comparison:
    runs: tuple[StrategyRun, ...]
    reference: str | None      # label of the run the speed-ups are relative to
    stopped: bool = False


def compare(lm: LoadedModel, prompt_ids: list[int], strategies: list, run: RunSettings,
            reference: int | None = 0, loaders: Loaders | None = None, progress: Progress = no_progress,
            should_stop: StopCheck = never) -> Comparison:
    """Run each strategy (or (label, strategy) pair) in turn; speed-up and "same text" are relative to
    ``strategies[reference]`` (None: no reference). Without a label, a run is named by ``describe`` with
    the sizes its decoder actually used. A strategy that cannot be built (a missing draft, a bad combination) gets its
    error in its row and the others still run."""
    loaders = loaders or direct_loaders()
    forward(lm.model, torch.tensor([prompt_ids], device=lm.device), DynamicCache(), 1)  # warm-up, untimed
    done, stopped = [], False
    for i, item in enumerate(strategies):
        label, strategy = item if isinstance(item, tuple) else (None, item)
        if should_stop():
            stopped = True
            break
        eager = strategy.name in ("beam", "stochastic-beam", "eagle")  # these run the target eager
        own = replace(run, backend="eager") if eager else run
        try:
            dec = build_decoder(lm, strategy, own, loaders)
            label = label or describe(strategy, Sizes(getattr(dec, "n_draft", None), getattr(dec, "total_tokens", None),
                                                      getattr(dec, "depth", None)))
            progress(i / len(strategies), label)
            r, cut = _run(dec.start(prompt_ids), run.max_new_tokens, progress, should_stop, i, len(strategies), label)
            done.append((label + (f" (stopped after {r.metrics['new_tokens']} tokens)" if cut else ""), strategy, r,
                         None))
            if cut:
                stopped = True
                break
        except (ModelLoadError, ValueError) as exc:
            progress(i / len(strategies), label or describe(strategy))
            done.append((label or describe(strategy), strategy, None, str(exc)))
    progress(1.0, "done")
    ref = done[reference] if reference is not None and reference < len(done) and done[reference][2] else None
    ref_rate = ref[2].metrics["new_tokens"] / ref[2].metrics["wall_s"] if ref else None
    rows = []
    for label, strategy, r, err in done:
        if r is None:
            rows.append(StrategyRun(label, strategy.name, (), "", 0, 0.0, None, None, 0, None, None, (), 0.0, None, {},
                                    err))
            continue
        m = r.metrics
        rate = m["new_tokens"] / m["wall_s"] if m["wall_s"] else None
        rows.append(StrategyRun(
            label, strategy.name, tuple(r.tokens), r.text, m["new_tokens"], m["wall_s"], rate,
            rate / ref_rate if rate and ref_rate and ref is not None and label != ref[0] else None,
            m["target_forwards"], m.get("mean_accepted_length"), m.get("acceptance_rate"),
            tuple(m.get("acceptance_by_depth", ())), distinct_n([r.tokens], 2),
            (r.tokens == ref[2].tokens) if ref is not None else None, dict(m.get("sizes", {}))))
    return Comparison(tuple(rows), ref[0] if ref else None, stopped)
