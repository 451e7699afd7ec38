"""Sampling studies: the next-token distribution, samplers against the exact probabilities, reused noise."""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
from transformers import DynamicCache

from ..decoders import entropy, forward
from ..models import LoadedModel
from ..processors import apply_processors, build_processors
from ..samplers import ReusedNoiseGumbel, draw_many
from ..settings import SAMPLERS, SamplingSettings
from ..stats import fit_report
from ..messages import Msg


def next_token_logits(lm: LoadedModel, prompt_ids: list[int]) -> torch.Tensor:
    """Raw logits [V] (CPU float32) for the token after the prompt: one target forward."""
    if not prompt_ids:
        raise ValueError(Msg.of("core.err.empty_prompt"))
    logits = forward(lm.model, torch.tensor([prompt_ids], device=lm.device), DynamicCache(), logits_to_keep=1)
    return logits[0, -1].cpu()


def processed_logits(raw: torch.Tensor, prompt_ids: list[int], sampling: SamplingSettings) -> torch.Tensor:
    """The logits after the processors (temperature, top-k, top-p, min-p, repetition penalty) [V]."""
    return apply_processors(build_processors(sampling), torch.tensor([prompt_ids]), raw.unsqueeze(0))[0]


@dataclass(frozen=True)
class NextToken:
    """The next-token distribution before and after the processors, on the raw top-n tokens."""

    ids: tuple[int, ...]
    texts: tuple[str, ...]
    raw: tuple[float, ...]
    processed: tuple[float, ...]
    kept: int                  # tokens with probability > 0 after the processors
    top_p: float               # the largest processed probability
    entropy_raw: float         # nats
    entropy_processed: float
    context: str               # the last characters of the prompt, for the chart title


def next_token(lm: LoadedModel, prompt_ids: list[int], sampling: SamplingSettings, top_n: int = 25,
               raw: torch.Tensor | None = None) -> NextToken:
    raw = next_token_logits(lm, prompt_ids) if raw is None else raw
    raw_p = torch.softmax(raw, -1)
    proc_p = torch.softmax(processed_logits(raw, prompt_ids, sampling), -1)
    top = torch.topk(raw_p, min(top_n, raw_p.numel())).indices.tolist()
    return NextToken(tuple(top), tuple(lm.token_text(i) for i in top), tuple(raw_p[top].tolist()),
                     tuple(proc_p[top].tolist()), int((proc_p > 0).sum()), float(proc_p.max()), entropy(raw_p),
                     entropy(proc_p), lm.decode(prompt_ids[-6:])[-40:])


@dataclass(frozen=True)
class SamplerRun:
    sampler: str
    draws: int
    tv: float                  # total-variation distance of the histogram to the exact distribution
    chi2: float
    dof: int
    p_value: float
    seconds: float             # wall time of the M draws on this machine
    shown_freq: tuple[float, ...]   # empirical frequency of each shown token


@dataclass(frozen=True)
class SamplerFit:
    """M draws from ONE distribution with each sampler, compared with the exact probabilities."""

    shown_ids: tuple[int, ...]
    shown_texts: tuple[str, ...]
    exact: tuple[float, ...]   # exact probability of each shown token
    runs: tuple[SamplerRun, ...]


def sampler_fit(lm: LoadedModel, prompt_ids: list[int], sampling: SamplingSettings, samplers=("multinomial", "gumbel"),
                draws: int = 10000, seed: int = 0, shown: int = 20, raw: torch.Tensor | None = None) -> SamplerFit:
    for name in samplers:
        if name not in SAMPLERS:
            raise ValueError(f"sampler must be one of {', '.join(SAMPLERS)}, got {name!r}")
    if not isinstance(draws, int) or draws < 1:
        raise ValueError(f"draws must be an integer >= 1, got {draws!r}")
    raw = next_token_logits(lm, prompt_ids) if raw is None else raw
    processed = processed_logits(raw, prompt_ids, sampling)
    exact = torch.softmax(processed, -1).double().numpy()
    top = torch.topk(torch.softmax(raw, -1), min(shown, raw.numel())).indices.tolist()
    gen = torch.Generator().manual_seed(seed)
    runs = []
    for name in samplers:
        draw_many(name, processed, min(draws, 64), torch.Generator().manual_seed(seed))  # untimed: first-call costs
        t0 = time.perf_counter()
        ids = draw_many(name, processed, draws, gen).numpy()
        secs = time.perf_counter() - t0
        rep = fit_report(ids, exact)
        freq = np.bincount(ids, minlength=exact.size)[top] / ids.size
        runs.append(SamplerRun(name, rep.n, rep.tv, rep.chi2, rep.dof, rep.p_value, secs, tuple(freq.tolist())))
    return SamplerFit(tuple(top), tuple(lm.token_text(i) for i in top), tuple(exact[top].tolist()), tuple(runs))


@dataclass(frozen=True)
class ReusedNoise:
    """T draws from ONE distribution with fresh Gumbel noise and with noise drawn once and reused."""

    steps: int
    shown_ids: tuple[int, ...]
    shown_texts: tuple[str, ...]
    exact: tuple[float, ...]
    fresh_freq: tuple[float, ...]
    reused_freq: tuple[float, ...]
    distinct_fresh: int
    distinct_reused: int


def reused_noise(lm: LoadedModel, prompt_ids: list[int], sampling: SamplingSettings, steps: int = 500, seed: int = 0,
                 shown: int = 15, raw: torch.Tensor | None = None) -> ReusedNoise:
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    raw = next_token_logits(lm, prompt_ids) if raw is None else raw
    processed = processed_logits(raw, prompt_ids, sampling)
    exact = torch.softmax(processed, -1)
    top = torch.topk(torch.softmax(raw, -1), min(shown, raw.numel())).indices.tolist()
    gen = torch.Generator().manual_seed(seed)
    fresh = draw_many("gumbel", processed, steps, gen)
    buggy = ReusedNoiseGumbel(1, processed.numel(), gen)
    reused = torch.cat([buggy(processed.unsqueeze(0)) for _ in range(steps)])

    def freq(ids):
        return tuple((np.bincount(ids.numpy(), minlength=processed.numel())[top] / steps).tolist())

    return ReusedNoise(steps, tuple(top), tuple(lm.token_text(i) for i in top), tuple(exact[top].tolist()),
                       freq(fresh), freq(reused), len(set(fresh.tolist())), len(set(reused.tolist())))
