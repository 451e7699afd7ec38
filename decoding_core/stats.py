"""Goodness-of-fit figures for sample histograms against exact probabilities."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps


@dataclass(frozen=True)
class FitReport:
    tv: float          # total-variation distance: 1/2 sum |empirical - exact|
    chi2: float
    dof: int
    p_value: float
    n: int


def empirical(counts: np.ndarray) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.float64)
    return counts / max(counts.sum(), 1.0)


def tv_distance(counts, probs) -> float:
    """Total variation between the empirical distribution of counts and probs (same support order)."""
    p = np.asarray(probs, dtype=np.float64)
    return float(0.5 * np.abs(empirical(counts) - p / p.sum()).sum())


def chi_square(counts, probs, min_expected: float = 5.0) -> tuple[float, int, float]:
    """Pearson's chi-square of counts against probs. Cells with expected count < min_expected are
    pooled into one cell (the usual validity rule). Returns (statistic, dof, p-value)."""
    counts = np.asarray(counts, dtype=np.float64)
    p = np.asarray(probs, dtype=np.float64)
    p = p / p.sum()
    n = counts.sum()
    expected = n * p
    big = expected >= min_expected
    obs = list(counts[big])
    exp = list(expected[big])
    rest_e, rest_o = expected[~big].sum(), counts[~big].sum()
    if rest_e > 0 or rest_o > 0:
        obs.append(rest_o)
        exp.append(max(rest_e, 1e-12))
    if len(obs) < 2:
        return 0.0, 0, 1.0
    stat, pval = sps.chisquare(np.array(obs), np.array(exp))
    return float(stat), len(obs) - 1, float(pval)


def fit_report(token_ids, probs_full) -> FitReport:
    """Compare draws (token ids) with a full-vocabulary distribution."""
    probs_full = np.asarray(probs_full, dtype=np.float64)
    counts = np.bincount(np.asarray(token_ids), minlength=probs_full.size)
    stat, dof, pval = chi_square(counts, probs_full)
    return FitReport(tv_distance(counts, probs_full), stat, dof, pval, int(counts.sum()))
