"""Diversity of a set of outputs: distinct-n and mean pairwise n-gram overlap."""
from __future__ import annotations

from itertools import combinations


def ngrams(tokens, n: int) -> list[tuple]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def distinct_n(outputs: list[list[int]], n: int) -> float:
    """Unique n-grams / all n-grams over the outputs (Li et al. 2016). 1.0 = nothing repeats."""
    grams = [g for out in outputs for g in ngrams(out, n)]
    return len(set(grams)) / len(grams) if grams else 0.0


def pairwise_overlap(outputs: list[list[int]], n: int = 2) -> float:
    """Mean Jaccard overlap of n-gram sets over all pairs of outputs. 1.0 = all identical."""
    pairs = list(combinations(outputs, 2))
    if not pairs:
        return 0.0
    total = 0.0
    for a, b in pairs:
        sa, sb = set(ngrams(a, n)), set(ngrams(b, n))
        union = sa | sb
        total += len(sa & sb) / len(union) if union else 1.0
    return total / len(pairs)
