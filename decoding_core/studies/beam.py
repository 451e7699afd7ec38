"""Beam-search studies: what pruning saves, and whether a sampled prefix makes beam search diverse."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

from ..diversity import distinct_n, pairwise_overlap
from ..models import LoadedModel
from ..settings import Beam, RunSettings
from ..strategies import build_decoder
from . import Progress, StopCheck, never, no_progress


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
    outputs: tuple[str, ...]


@dataclass(frozen=True)
class Diversity:
    rows: tuple[DiversityRow, ...]
    seeds: tuple[int, ...]
    wall_s: float
    stopped: bool = False


def diversity(lm: LoadedModel, prompt_ids: list[int], strategy: Beam, run: RunSettings, seeds: int = 4,
              prefix_m: int = 3, progress: Progress = no_progress, should_stop: StopCheck = never) -> Diversity:
    """The same prompt decoded with ``seeds`` seeds: plain beam search (deterministic: one run stands for
    all seeds) against sample-``prefix_m``-then-beam (seeds run.seed .. run.seed + seeds - 1)."""
    if not isinstance(seeds, int) or seeds < 2:
        raise ValueError(f"seeds must be an integer >= 2, got {seeds!r}")
    t0 = time.perf_counter()
    base = replace(strategy.beam.without_pruning(), sample_prefix=0)
    plain = build_decoder(lm, replace(strategy, beam=base), replace(run, seed=0)).start(prompt_ids).run().tokens
    hybrid = replace(strategy, beam=replace(base, sample_prefix=min(prefix_m, run.max_new_tokens - 1)))
    outs, stopped = [], False
    progress(1 / (1 + seeds), "plain beam search")
    for i in range(seeds):
        if should_stop():
            stopped = True
            break
        outs.append(build_decoder(lm, hybrid, replace(run, seed=run.seed + i)).start(prompt_ids).run().tokens)
        progress((2 + i) / (1 + seeds), f"seed {run.seed + i}")
    groups = {"plain beam": [plain] * max(len(outs), 1), f"sample {prefix_m} then beam": outs}
    rows = tuple(DiversityRow(name, distinct_n(o, 1), distinct_n(o, 2), pairwise_overlap(o),
                              tuple(lm.decode(t) for t in o)) for name, o in groups.items() if o)
    return Diversity(rows, tuple(run.seed + i for i in range(len(outs))), time.perf_counter() - t0, stopped)
