"""Logits processors with Hugging Face semantics: one tiny callable per rule.

Each takes ``input_ids`` [B, L] (the tokens so far) and ``scores`` [B, V] (logits) and returns NEW
scores [B, V]; the input is never modified in place. Arguments are validated in ``__init__`` with a
message a user can act on. ``build_processors`` composes them in transformers' order:
repetition penalty, temperature, top-k, top-p, min-p.
"""
from __future__ import annotations

import torch

from .settings import SamplingSettings

NEG_INF = float("-inf")


class LogitsProcessor:
    name = "processor"

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class RepetitionPenalty(LogitsProcessor):
    """CTRL's rule (Keskar et al. 2019): a token already present gets its logit divided by
    ``penalty`` when positive, multiplied when negative. penalty = 1 changes nothing."""

    name = "repetition penalty"

    def __init__(self, penalty: float):
        if not (isinstance(penalty, (int, float)) and penalty > 0):
            raise ValueError(f"repetition penalty must be a number > 0, got {penalty!r}")
        self.penalty = float(penalty)

    def __call__(self, input_ids, scores):
        score = torch.gather(scores, 1, input_ids)
        score = torch.where(score < 0, score * self.penalty, score / self.penalty)
        return scores.scatter(1, input_ids, score)


class Temperature(LogitsProcessor):
    """logits / T: T < 1 sharpens, T > 1 flattens. T must be > 0 (T -> 0 is greedy)."""

    name = "temperature"

    def __init__(self, temperature: float):
        if not (isinstance(temperature, (int, float)) and temperature > 0):
            raise ValueError(f"temperature must be a number > 0, got {temperature!r} (use greedy for T = 0)")
        self.temperature = float(temperature)

    def __call__(self, input_ids, scores):
        return scores / self.temperature


class TopK(LogitsProcessor):
    """Keep the k highest logits (ties with the k-th kept too), set the rest to -inf."""

    name = "top-k"

    def __init__(self, top_k: int, min_tokens_to_keep: int = 1):
        if not (isinstance(top_k, int) and top_k > 0):
            raise ValueError(f"top-k must be an integer > 0, got {top_k!r}")
        self.top_k = max(top_k, min_tokens_to_keep)

    def __call__(self, input_ids, scores):
        k = min(self.top_k, scores.size(-1))
        kth = torch.topk(scores, k)[0][..., -1, None]
        return scores.masked_fill(scores < kth, NEG_INF)


class TopP(LogitsProcessor):
    """Nucleus (Holtzman et al. 2020): keep the smallest set of most likely tokens whose probability
    sums to at least p."""

    name = "top-p"

    def __init__(self, top_p: float, min_tokens_to_keep: int = 1):
        if not (isinstance(top_p, (int, float)) and 0 < top_p <= 1):
            raise ValueError(f"top-p must be in (0, 1], got {top_p!r}")
        self.top_p = float(top_p)
        self.min_tokens_to_keep = min_tokens_to_keep

    def __call__(self, input_ids, scores):
        sorted_logits, sorted_idx = torch.sort(scores, descending=False)
        cumulative = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        remove_sorted = cumulative <= (1 - self.top_p)
        remove_sorted[..., -self.min_tokens_to_keep :] = False
        remove = remove_sorted.scatter(1, sorted_idx, remove_sorted)
        return scores.masked_fill(remove, NEG_INF)


class MinP(LogitsProcessor):
    """min-p (Nguyen et al. 2024): drop tokens whose probability is below min_p x the top probability."""

    name = "min-p"

    def __init__(self, min_p: float, min_tokens_to_keep: int = 1):
        if not (isinstance(min_p, (int, float)) and 0 <= min_p <= 1):
            raise ValueError(f"min-p must be in [0, 1], got {min_p!r}")
        self.min_p = float(min_p)
        self.min_tokens_to_keep = min_tokens_to_keep

    def __call__(self, input_ids, scores):
        probs = torch.softmax(scores, dim=-1)
        threshold = self.min_p * probs.amax(dim=-1, keepdim=True)
        remove = probs < threshold
        sorted_idx = torch.argsort(scores, descending=True, dim=-1, stable=True)
        remove_sorted = torch.gather(remove, -1, sorted_idx)
        remove_sorted[..., : self.min_tokens_to_keep] = False
        remove = remove_sorted.scatter(1, sorted_idx, remove_sorted)
        return scores.masked_fill(remove, NEG_INF)


def build_processors(s: SamplingSettings, argmax: bool = False) -> list[LogitsProcessor]:
    """The processors for settings, in transformers' order (validated by SamplingSettings). With
    ``argmax`` only those that can change an argmax are kept (``SamplingSettings.for_argmax``)."""
    if argmax:
        s = s.for_argmax()
    procs: list[LogitsProcessor] = []
    if s.repetition_penalty is not None and s.repetition_penalty != 1.0:
        procs.append(RepetitionPenalty(s.repetition_penalty))
    if s.temperature != 1.0:
        procs.append(Temperature(s.temperature))
    if s.top_k:
        procs.append(TopK(s.top_k))
    if s.top_p is not None and s.top_p < 1.0:
        procs.append(TopP(s.top_p))
    if s.min_p:
        procs.append(MinP(s.min_p))
    return procs


def apply_processors(procs: list[LogitsProcessor], input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    for proc in procs:
        scores = proc(input_ids, scores)
    return scores
