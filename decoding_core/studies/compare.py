"""Strategies side by side: the same prompt, seed, length, device and dtype, run one after another."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import torch
from transformers import DynamicCache

from ..decoders import forward
from ..diversity import distinct_n, pairwise_overlap
from ..models import LoadedModel, ModelLoadError
from ..settings import RunSettings
from ..spec import strategy_spec
from ..strategies import Loaders, Sizes, build_decoder, describe, direct_loaders
from . import Progress, StopCheck, never, no_progress
from .beam import token_logprobs
from ..messages import Msg, of_exception


def _run(dec, max_new: int, progress: Progress, should_stop: StopCheck, at: float, share: float, label: str):
    """Step a started decoder to the end (decode time is counted inside step() only), telling progress every
    ~0.3 s (this run covers [at, at + share] of the whole); returns (result, stopped early)."""
    last = time.perf_counter()
    while not dec.done:
        dec.step()
        if should_stop():
            return dec.result(), True
        if time.perf_counter() - last > 0.3:
            made = min(len(dec.tokens), max_new)
            progress(at + share * made / max(1, max_new), Msg.of("core.progress.tokens", label=label, made=made, of=max_new))
            last = time.perf_counter()
    return dec.result(), False


EAGER = ("beam", "stochastic-beam", "eagle")  # these run the target eager whatever the run's backend


def column_run(strategy, run: RunSettings, seed_offset: int = 0) -> RunSettings:
    """The run settings a strategy is decoded with here (and by ``replay`` of a comparison file)."""
    return replace(run, seed=run.seed + seed_offset, backend="eager" if strategy.name in EAGER else run.backend)


def origins(dec, n: int) -> tuple[str, ...]:
    """Where each of the first ``n`` emitted tokens came from, for decoders that draft (speculative: accepted
    draft, correction, bonus or own token; EAGLE: accepted tree token or the target's token after the path);
    () for the others."""
    out: list[str] = []
    for step in getattr(dec, "history", ()):
        if hasattr(step, "next_source"):                 # a speculative step
            out += ["accepted"] * step.n_accepted + [step.next_source]
        elif hasattr(step, "accepted_path"):             # an EAGLE step (the prefill has no path)
            drafted = max(0, len(step.accepted_path) - 1)
            out += ["accepted"] * drafted + ["target"] * (len(step.emitted) - drafted)
        else:
            return ()
    return tuple(out[:n])


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
    spec: str = ""                            # strategy_spec of the strategy (what a link stores)
    logprob: float | None = None              # log p(output | prompt) under the target
    token_texts: tuple[str, ...] = ()         # the output, token by token, as shown (glyphs)
    token_probs: tuple[float, ...] = ()       # autoregressive: p it was drawn with; else the target's p
    origins: tuple[str, ...] = ()             # drafting strategies: where each token came from
    seeds: int = 1                            # outputs made (seeds run.seed ..) for the overlap
    overlap: float | None = None              # mean pairwise bigram overlap of those outputs (seeds > 1)


@dataclass(frozen=True)
class Comparison:
    runs: tuple[StrategyRun, ...]
    reference: str | None      # label of the run the speed-ups are relative to
    stopped: bool = False


def _failed(label: str, strategy, err: str) -> StrategyRun:
    return StrategyRun(label, strategy.name, (), "", 0, 0.0, None, None, 0, None, None, (), 0.0, None, {}, err,
                       strategy_spec(strategy))


def compare(lm: LoadedModel, prompt_ids: list[int], strategies: list, run: RunSettings,
            reference: int | None = 0, loaders: Loaders | None = None, progress: Progress = no_progress,
            should_stop: StopCheck = never, seeds: int = 1) -> Comparison:
    """Run each strategy (or (label, strategy) pair) in turn; speed-up and "same text" are relative to
    ``strategies[reference]`` (None: no reference). Without a label, a run is named by ``describe`` with
    the sizes its decoder actually used. A strategy that cannot be built (a missing draft, a bad combination) gets its
    error in its row and the others still run. With ``seeds`` > 1 each strategy also runs with seeds
    run.seed + 1 .. and its row gets the pairwise overlap of its outputs (the metrics are the first seed's)."""
    loaders = loaders or direct_loaders()
    forward(lm.model, torch.tensor([prompt_ids], device=lm.device), DynamicCache(), 1)  # warm-up, untimed
    done, stopped = [], False
    n = len(strategies)
    for i, item in enumerate(strategies):
        label, strategy = item if isinstance(item, tuple) else (None, item)
        if should_stop():
            stopped = True
            break
        outputs, first = [], None
        try:
            for j in range(seeds):
                own = column_run(strategy, run, j)
                dec = build_decoder(lm, strategy, own, loaders)
                label = label or describe(strategy, Sizes(getattr(dec, "n_draft", None),
                                                          getattr(dec, "total_tokens", None), getattr(dec, "depth", None)))
                said = Msg.of("core.cmp.seed", label=label, seed=own.seed) if seeds > 1 else label
                said = Msg.of("core.cmp.nth", i=i + 1, n=n, label=said) if n > 1 else said  # the bar is over all runs
                progress((i + j / seeds) / n, said)
                r, cut = _run(dec.start(prompt_ids), run.max_new_tokens, progress, should_stop, (i + j / seeds) / n,
                              1 / (n * seeds), said)
                if first is None:
                    first = (r, dec, cut)
                outputs.append(r.tokens)
                if cut or should_stop():
                    stopped = True
                    break
        except (ModelLoadError, ValueError) as exc:
            progress(i / n, label or describe(strategy))
            done.append(_failed(label or describe(strategy), strategy, of_exception(exc)))
            continue
        r, dec, cut = first
        steps = getattr(dec, "history", ())
        drawn = [s.prob for s in steps if hasattr(s, "prob")][: len(r.tokens)]  # autoregressive steps only
        logps = token_logprobs(lm, prompt_ids, r.tokens)
        done.append(dict(label=Msg.of("core.cmp.stopped", label=label, n=r.metrics["new_tokens"]) if cut else label,
                         strategy=strategy, r=r, origins=origins(dec, len(r.tokens)),
                         probs=tuple(drawn) if len(drawn) == len(r.tokens) else tuple(math.exp(x) for x in logps),
                         logprob=float(sum(logps)), texts=tuple(lm.token_text(t) for t in r.tokens),
                         outputs=outputs))
        if stopped:
            break
    progress(1.0, Msg.of("core.progress.done"))
    ok = lambda k: reference is not None and k < len(done) and isinstance(done[k], dict)  # noqa: E731
    ref = done[reference] if ok(reference) else None
    ref_rate = ref["r"].metrics["new_tokens"] / ref["r"].metrics["wall_s"] if ref and ref["r"].metrics["wall_s"] else None
    rows = []
    for d in done:
        if isinstance(d, StrategyRun):
            rows.append(d)
            continue
        r, m = d["r"], d["r"].metrics
        rate = m["new_tokens"] / m["wall_s"] if m["wall_s"] else None
        rows.append(StrategyRun(
            d["label"], d["strategy"].name, tuple(r.tokens), r.text, m["new_tokens"], m["wall_s"], rate,
            rate / ref_rate if rate and ref_rate and d is not ref else None,
            m["target_forwards"], m.get("mean_accepted_length"), m.get("acceptance_rate"),
            tuple(m.get("acceptance_by_depth", ())), distinct_n([r.tokens], 2),
            (r.tokens == ref["r"].tokens) if ref is not None else None, dict(m.get("sizes", {})), None,
            strategy_spec(d["strategy"]), d["logprob"], d["texts"], d["probs"], d["origins"], len(d["outputs"]),
            pairwise_overlap(d["outputs"], 2) if len(d["outputs"]) > 1 else None))
    return Comparison(tuple(rows), ref["label"] if ref else None, stopped)
