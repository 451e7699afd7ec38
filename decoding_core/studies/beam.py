"""Beam-search studies: what pruning saves; how diverse and how good beam search, sample-then-beam, sampling
and stochastic beam search are on one prompt."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import torch
from transformers import DynamicCache

from ..decoders import forward
from ..diversity import distinct_n, pairwise_overlap
from ..models import LoadedModel
from ..settings import Beam, RunSettings, Sample, SamplingSettings, StochasticBeam
from ..strategies import build_decoder
from . import Progress, StopCheck, never, no_progress
from ..messages import Msg


@dataclass(frozen=True)
class SearchCost:
    search: str
    hypotheses_fed: int
    forwards: int
    candidates_scored: int
    wall_s: float
    best_text: str


@dataclass(frozen=True)
class PruningSavings:
    """The same search with pruning on and off: rows fed to the model, forwards, candidates, time."""

    rows: tuple[SearchCost, ...]
    saved: float               # share of hypotheses not fed thanks to pruning
    same_best: bool            # the best hypothesis is the same with and without pruning


def _cost(name: str, dec, lm: LoadedModel) -> SearchCost:
    m, hyps = dec.metrics(), dec.hypotheses()
    return SearchCost(name, m["hypotheses_expanded"], m["target_forwards"], m["candidates_scored"], m["wall_s"],
                      lm.decode(hyps[0].tokens) if hyps else "")


def pruning_savings(lm: LoadedModel, prompt_ids: list[int], strategy: Beam, run: RunSettings,
                    pruned=None) -> PruningSavings:
    """``pruned``: a finished decoder of ``strategy`` to reuse (the page's stepped search), else run here."""
    if pruned is None:
        pruned = build_decoder(lm, strategy, run).start(prompt_ids)
        pruned.run()
    plain = build_decoder(lm, replace(strategy, beam=strategy.beam.without_pruning()), run).start(prompt_ids)
    plain.run()
    a, b = _cost("with pruning", pruned, lm), _cost("pruning off", plain, lm)
    ha, hb = pruned.hypotheses(), plain.hypotheses()
    same = bool(ha) and bool(hb) and ha[0].tokens == hb[0].tokens
    return PruningSavings((a, b), 1 - a.hypotheses_fed / max(1, b.hypotheses_fed), same)


@dataclass(frozen=True)
class DiversityRow:
    method: str
    distinct_1: float          # unique unigrams / all unigrams over the outputs
    distinct_2: float
    pairwise_overlap: float    # mean Jaccard overlap of two outputs' bigram sets
    mean_logprob: float        # quality: mean total log-prob of an output under the target
    mean_logprob_per_token: float
    outputs: tuple[str, ...]


@dataclass(frozen=True)
class Diversity:
    rows: tuple[DiversityRow, ...]
    seeds: tuple[int, ...]
    wall_s: float
    stopped: bool = False


@torch.inference_mode()
def token_logprobs(lm: LoadedModel, prompt_ids: list[int], tokens) -> list[float]:
    """log p(token_i | prompt, tokens_<i) under the target (its raw softmax), for every token: one forward."""
    tokens = list(tokens)
    if not tokens:
        return []
    ids = torch.tensor([list(prompt_ids) + tokens], device=lm.device)
    logp = torch.log_softmax(forward(lm.model, ids, DynamicCache())[0, len(prompt_ids) - 1:-1].float(), -1)
    return logp.gather(-1, torch.tensor(tokens, device=logp.device)[:, None])[:, 0].tolist()


def sequence_logprob(lm: LoadedModel, prompt_ids: list[int], tokens) -> float:
    """log p(tokens | prompt) under the target: the sum of the tokens' log-probs, one forward."""
    return float(sum(token_logprobs(lm, prompt_ids, tokens)))


def diversity(lm: LoadedModel, prompt_ids: list[int], strategy: Beam, run: RunSettings, seeds: int = 4,
              prefix_m: int = 3, progress: Progress = no_progress, should_stop: StopCheck = never) -> Diversity:
    """n = ``seeds`` outputs per method for the same prompt: plain beam search (deterministic: one run stands
    for all seeds), sample-``prefix_m``-then-beam and ancestral sampling (seeds run.seed .. + n - 1, at the
    strategy's prefix temperature), and stochastic beam search (ONE run with k = n: n sequences sampled
    without replacement at that temperature). Diversity (distinct-n, pairwise overlap) and quality (the
    outputs' log-prob under the target) for each."""
    if not isinstance(seeds, int) or seeds < 2:
        raise ValueError(f"seeds must be an integer >= 2, got {seeds!r}")
    t0 = time.perf_counter()
    base = replace(strategy.beam.without_pruning(), sample_prefix=0)
    temperature = strategy.sampling.temperature
    methods = [
        (Msg.of("core.div.plain"), lambda i: build_decoder(lm, replace(strategy, beam=base), replace(run, seed=0))),
        (Msg.of("core.div.sample_then_beam", m=prefix_m), lambda i: build_decoder(
            lm, replace(strategy, beam=replace(base, sample_prefix=min(prefix_m, run.max_new_tokens - 1))),
            replace(run, seed=run.seed + i))),
        (Msg.of("core.div.sampling"), lambda i: build_decoder(lm, Sample(SamplingSettings(temperature=temperature), strategy.sampler),
                                             replace(run, seed=run.seed + i))),
    ]
    groups, stopped, total = {}, False, 2 + 2 * seeds  # plain beam once, n seeds of two methods, stochastic once
    done = 0
    progress(0.0, methods[0][0])
    for name, make in methods:
        runs = 1 if name == "plain beam" else seeds
        outs = []
        for i in range(runs):
            if should_stop():
                stopped = True
                break
            outs.append(make(i).start(prompt_ids).run().tokens)
            done += 1
            progress(done / total, Msg.of("core.progress.seed", label=name, seed=run.seed + i))
        if stopped:
            break
        groups[name] = outs * seeds if name == "plain beam" else outs
    if not stopped and not should_stop():
        dec = build_decoder(lm, StochasticBeam(seeds, temperature), run).start(prompt_ids)
        dec.run()
        groups[Msg.of("core.div.stochastic")] = [list(h.tokens) for h in dec.hypotheses()][:seeds]
        progress(1.0, Msg.of("core.div.stochastic"))
    else:
        stopped = True
    rows = []
    for name, outs in groups.items():
        if not outs:
            continue
        lps = [sequence_logprob(lm, prompt_ids, o) for o in outs]
        n_tok = sum(max(1, len(o)) for o in outs)
        rows.append(DiversityRow(name, distinct_n(outs, 1), distinct_n(outs, 2), pairwise_overlap(outs),
                                 sum(lps) / len(lps), sum(lps) / n_tok, tuple(lm.decode(t) for t in outs)))
    return Diversity(tuple(rows), tuple(run.seed + i for i in range(seeds)), time.perf_counter() - t0, stopped)
