"""Tuning Freitag & Al-Onaizan's pruning thresholds: saving against fidelity over a set of prompts."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

from ..beam import prune
from ..models import LoadedModel
from ..settings import Beam, BeamSettings, RunSettings
from ..strategies import build_decoder
from . import Progress, StopCheck, never, no_progress
from ..messages import Msg

PAPER = {"rp": 0.6, "ap": 2.5, "rpl": 0.02, "mc": 3}   # Freitag & Al-Onaizan 2017's settings
GRID = ([{"rp": v} for v in (0.9, 0.6, 0.3, 0.1, 0.03)] + [{"ap": v} for v in (1.0, 2.5, 5.0, 10.0)]
        + [{"rpl": v} for v in (0.3, 0.1, 0.02, 0.005)] + [{"mc": v} for v in (1, 2, 3)]
        + [PAPER, {"rp": 0.1, "ap": 5.0, "rpl": 0.005, "mc": 3}])
FIDELITY = 0.9   # the share of prompts whose best hypothesis must stay unchanged


@dataclass(frozen=True)
class PruningRow:
    settings: dict             # {"rp", "ap", "rpl", "mc"}: the thresholds used (unused rules None)
    label: str
    expansions_saved: float    # 1 - hypotheses fed with pruning / without, summed over the prompts
    time_saved: float          # 1 - decoding time with pruning / without (on a prompt where the search fed as many
                               # hypotheses and ended on the same best one, nothing pruned included: its time unchanged)
    best_unchanged: float      # share of prompts whose best hypothesis is the same as without pruning
    score_lost: float          # mean (best score without pruning - best score with), log-prob (>= 0)
    paper: bool                # the paper's own settings


@dataclass(frozen=True)
class PruningSweep:
    rows: tuple[PruningRow, ...]
    recommendation: dict | None   # {"settings", "expansions_saved", "best_unchanged"}, or None: none reaches it
    prompts: int
    wall_s: float
    stopped: bool = False
    reused: int = 0               # (setting, prompt) pairs that would prune nothing: the search without pruning, not
                                  # run again (``prunes_nothing``)
    searches: int = 0             # (setting, prompt) pairs of the rows, reused ones included


def label(setting: dict) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in setting.items())


def _run(lm, strategy, run, ids):
    dec = build_decoder(lm, strategy, run).start(ids)
    dec.run()
    hyps = dec.hypotheses()
    m = dec.metrics()
    return (m["hypotheses_expanded"], m["wall_s"], (hyps[0].tokens, hyps[0].score) if hyps else ((), float("-inf")),
            dec.history)


def prunes_nothing(history, beam: BeamSettings) -> bool:
    """Whether ``beam``'s pruning rules would prune no candidate at any step of a search without pruning (its
    ``history``). Then the pruned search meets the same candidates and makes every decision the same: it IS that
    search, token for token, and need not be run again. (The candidates' parents are given as nodes, not row
    indices: the rules only group by parent.)"""
    for step in history:
        if step.kind != "beam":  # a sampled prefix step prunes nothing
            continue
        c = step.candidates
        eligible = [i for i, x in enumerate(c) if x.status != "off-top-k"]  # without pruning: the survivors
        if prune([x.score for x in c], [x.token_logp for x in c], [x.parent for x in c], eligible, beam):
            return False
    return True


def pruning_sweep(lm: LoadedModel, prompts: list[list[int]], strategy: Beam, run: RunSettings, grid=GRID,
                  fidelity: float = FIDELITY, progress: Progress = no_progress,
                  should_stop: StopCheck = never) -> PruningSweep:
    """Every setting in ``grid`` on every prompt against the same search without pruning; the
    recommendation is the setting with the largest expansion saving that keeps the best hypothesis on at
    least ``fidelity`` of the prompts (None when no setting does)."""
    if not prompts:
        raise ValueError("the pruning sweep needs at least one prompt")
    t0 = time.perf_counter()
    base = replace(strategy, beam=replace(strategy.beam.without_pruning(), literal_rp=False))
    total = 1 + len(prompts) * (2 + len(grid))  # the warm-up, twice without pruning, each setting: per prompt
    plain, stopped = [], False
    progress(0.0, Msg.of("core.progress.pruning_warmup"))
    _run(lm, base, run, prompts[0])  # untimed: the first search pays for warm-up, which is no saving of pruning's
    done = 1
    for ids in prompts:
        twice = []
        for _ in range(2):  # progress after each search: the bar moves (and estimates) from the first seconds on
            if should_stop():  # a Stop before every setting was searched without pruning: no row can be measured
                stopped = True
                break
            twice.append(_run(lm, base, run, ids))
            done += 1
            progress(done / total, Msg.of("core.progress.pruning_off"))
        if stopped:
            break
        plain.append(min(twice, key=lambda r: r[1]))  # the faster of two: noise only adds time
    beams = [replace(base.beam, **setting) for setting in grid]
    same = set() if stopped else {(g, i) for g, beam in enumerate(beams) for i, p in enumerate(plain)
                                  if prunes_nothing(p[3], beam)}  # known before any pruned search runs:
    total = done + len(grid) * len(prompts) - len(same)             # the bar counts only the searches run
    if not stopped and total == done:  # every setting is the search without pruning: nothing left to run
        progress(1.0, Msg.of("core.progress.pruning_off"))
    rows, reused = [], 0
    for g, setting in enumerate(grid if not stopped else ()):
        fed = secs = unchanged = lost = 0.0
        for i, (ids, (p_fed, p_secs, (p_best, p_score), _)) in enumerate(zip(prompts, plain)):
            if should_stop():
                stopped = True
                break
            if (g, i) in same:  # the search without pruning: its figures, no time saved
                f, s, best, score = p_fed, p_secs, p_best, p_score
            else:
                f, s, (best, score), _ = _run(lm, replace(base, beam=beams[g]), run, ids)
                if f == p_fed and best == p_best:
                    s = p_secs  # the same work and answer: no time saved, rather than the machine's noise
                done += 1
                progress(done / total, label(setting))
            fed, secs = fed + f, secs + s
            unchanged += best == p_best
            lost += max(0.0, p_score - score) if score > float("-inf") else 0.0
        if stopped:
            break
        n, reused = len(prompts), reused + sum((g, i) in same for i in range(len(prompts)))
        rows.append(PruningRow({k: setting.get(k) for k in ("rp", "ap", "rpl", "mc")}, label(setting),
                               1 - fed / max(1, sum(p[0] for p in plain)), 1 - secs / max(1e-9, sum(p[1] for p in plain)),
                               unchanged / n, lost / n, setting == PAPER))
    ok = [r for r in rows if r.best_unchanged >= fidelity]
    best = max(ok, key=lambda r: (r.expansions_saved, -r.score_lost), default=None)
    rec = None if best is None else {"settings": best.settings, "expansions_saved": best.expansions_saved,
                                     "best_unchanged": best.best_unchanged}
    return PruningSweep(tuple(rows), rec, len(prompts), time.perf_counter() - t0, stopped, reused,
                        len(rows) * len(prompts))


def as_beam(settings: dict, beam: BeamSettings) -> BeamSettings:
    """The beam settings with a sweep row's thresholds (the other fields unchanged)."""
    return replace(beam, **settings)
