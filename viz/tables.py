"""Study records -> table rows (lists of dicts for st.dataframe). Pure; no streamlit."""
from __future__ import annotations


def _r(x, nd: int = 3):
    return None if x is None else round(x, nd)


def _fmt(x, nd: int = 2) -> str:
    """A number for a column where some rows have none: "–" there (never "None")."""
    return "–" if x is None else f"{x:.{nd}f}"


def sampler_rows(fit) -> list[dict]:
    return [{"sampler": r.sampler, "draws": r.draws, "TV distance": _r(r.tv, 4), "chi²": _r(r.chi2, 1), "dof": r.dof,
             "p-value": _r(r.p_value, 4), "time (ms)": _r(1000 * r.seconds, 1)} for r in fit.runs]


def pruning_rows(savings) -> list[dict]:
    return [{"search": r.search, "hypotheses fed": r.hypotheses_fed, "forwards": r.forwards,
             "candidates scored": r.candidates_scored, "time (s)": _r(r.wall_s)} for r in savings.rows]


def diversity_rows(div) -> list[dict]:
    return [{"method": r.method, "distinct-1": _r(r.distinct_1), "distinct-2": _r(r.distinct_2),
             "pairwise overlap": _r(r.pairwise_overlap), "mean log-prob": _r(r.mean_logprob, 2),
             "log-prob per token": _r(r.mean_logprob_per_token, 3)} for r in div.rows]


def sweep_rows(sweep) -> list[dict]:
    """One row per N with the names sweep_figure reads."""
    return [{"N": r.n, "tau": _r(r.tau), "tau (theory)": _r(r.tau_theory), "acceptance": _r(r.acceptance),
             "speed-up": _r(r.speedup), "speed-up sd": _r(r.speedup_sd), "repeats": r.repeats,
             "speed-up (theory)": _r(r.speedup_theory), "c": _r(r.c),
             "step (ms, median)": _r(r.step_ms_median, 1), "step (ms, p90)": _r(r.step_ms_p90, 1),
             "draft per step (ms)": _r(r.draft_ms_per_step, 1), "step memory (MiB)": _r(r.step_mib, 2)}
            for r in sweep.rows]


def drift_rows(drift) -> list[dict]:
    return [{"rule": name, "TV distance to the target's p": _r(tv, 4)} for name, tv in drift.tv.items()]


def compare_rows(comparison) -> list[dict]:
    """Metrics per strategy; "–" where a metric does not apply (tau for strategies without drafts)."""
    rows = []
    for r in comparison.runs:
        if r.error:
            rows.append({"strategy": r.label, "note": r.error})
            continue
        ref = r.label == comparison.reference
        rows.append({"strategy": r.label, "new tokens": r.new_tokens, "wall (s)": _r(r.wall_s, 2),
                     "tokens/s": _r(r.tokens_per_s, 2),
                     "speed-up": "1.00 (reference)" if ref else _fmt(r.speedup),
                     "target forwards": r.target_forwards, "τ": _fmt(r.tau), "distinct-2": _r(r.distinct_2, 2),
                     "same text as reference": "–" if r.same_as_reference is None or ref else
                     ("yes" if r.same_as_reference else "no")})
    return rows
