"""Study records -> table rows (lists of dicts for st.dataframe). Pure; no streamlit."""
from __future__ import annotations

from decoding_core.messages import render
from ui.i18n import t


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


def split_label(label: str) -> tuple[str, str]:
    """A strategy's label -> (its name, its settings): "speculative (shipped draft, N 2, greedy)" ->
    ("speculative", "shipped draft, N 2, greedy"); the Chinese labels' full-width brackets too; a label without
    settings -> (label, "")."""
    for open_, close in ((" (", ")"), ("（", "）")):
        cut = label.find(open_)
        if cut > 0 and label.endswith(close):
            return label[:cut], label[cut + len(open_):-len(close)]
    return label, ""


def _reference(comparison):
    """The run the speed-ups and "same text" are measured against (None when it failed)."""
    return next((r for r in comparison.runs if r.label == comparison.reference and not r.error), None)


def _speedup(r, ref) -> float | None:
    return r.tokens_per_s / ref.tokens_per_s if ref and r.tokens_per_s and ref.tokens_per_s else None


def compare_csv_rows(comparison, states: dict | None = None) -> list[dict]:
    """The comparison as a spreadsheet wants it (the CSV download): numbers in number columns (an empty cell where
    one does not apply, the reference's speed-up 1 and a "reference" column saying which row it is), acceptance per
    depth one column per depth, overlap and its seed count apart; headers, states and yes / no in English, the
    strategy's name and settings as its label reads (the page's labels are in the session's language); the column
    number from a label "2 · speculative (...)"; the failed row's reason in "error". ``states``: label -> "fresh" /
    "stale ..." / "pinned"."""
    runs = comparison.runs
    ref = _reference(comparison)
    depth_max = max((len(r.acceptance_by_depth) for r in runs if not r.error), default=0)
    rows = []
    for i, r in enumerate(runs, 1):
        label = render(r.label, lambda id_, **args: t(id_, "en", **args))
        number, sep, rest = label.partition(" · ")
        column, label = (int(number), rest) if sep and number.isdigit() else (i, label)
        name, settings = split_label(label)
        row = {"column": column, "strategy": name, "settings": settings, "state": (states or {}).get(r.label, ""),
               "reference": "yes" if r is ref else "no"}
        if r.error:
            rows.append({**row, "error": r.error})
            continue
        same = "" if ref is None or r is ref else ("yes" if r.tokens == ref.tokens else "no")
        rows.append({**row, "speed-up": _r(_speedup(r, ref)), "same text as reference": same, "τ": _r(r.tau),
                     "tokens/s": _r(r.tokens_per_s, 2),
                     "target forwards": r.target_forwards,
                     **{f"acceptance depth {d}": _r(r.acceptance_by_depth[d - 1]) if d <= len(r.acceptance_by_depth)
                        else None for d in range(1, depth_max + 1)},
                     "new tokens": r.new_tokens, "wall (s)": _r(r.wall_s, 3), "log p (output)": _r(r.logprob, 2),
                     "distinct-2": _r(r.distinct_2), "overlap (seeds)": _r(r.overlap),
                     "seeds": r.seeds if r.overlap is not None else None})
    keys = [k for k in dict.fromkeys(k for row in rows for k in row) if k != "error"]
    keys += ["error"] if any("error" in row for row in rows) else []
    return [{k: row.get(k) for k in keys} for row in rows]


def compare_rows(comparison, states: dict | None = None, lang: str = "en") -> list[dict]:
    """Metrics per strategy; "–" where a metric does not apply (τ and acceptance for strategies without drafts,
    overlap with one seed). Speed-up and "same text" are against the reference run (the first by default);
    ``states`` (label -> "fresh" / "stale ..." / "pinned") adds a state column. The words in the cells are in
    ``lang`` (English by default, as in the CSV downloads; the page's table passes the session's language).
    The strategy column holds the label's name and the last column its settings (``split_label``), so that at
    1280 px on a projector the row's name, speed-up, same text, τ and tokens/s show before the table scrolls."""
    runs = comparison.runs
    ref = _reference(comparison)
    rows = []
    for r in runs:
        name, settings = split_label(render(r.label, lambda id_, **args: t(id_, lang, **args)))  # a Msg in ``lang``
        row = {"strategy": name}
        if states is not None:
            row["state"] = states.get(r.label, "")
        if r.error:
            rows.append({**row, "note": r.error, "settings": settings or "–"})
            continue
        is_ref = r is ref
        speedup = _speedup(r, ref)
        rows.append({**row,  # what to look at first (the page's "Look first at") before the scroll on a projector
                     "speed-up": t("cmp.reference", lang) if is_ref else _fmt(speedup),
                     "same text as reference": "–" if ref is None or is_ref else
                     t("cmp.shown.yes" if r.tokens == ref.tokens else "cmp.no", lang),
                     "τ": _fmt(r.tau), "tokens/s": _r(r.tokens_per_s, 2),
                     "target forwards": r.target_forwards,
                     "acceptance by depth": " / ".join(f"{a:.2f}" for a in r.acceptance_by_depth) or "–",
                     "new tokens": r.new_tokens, "wall (s)": _r(r.wall_s, 2),
                     "log p (output)": _fmt(r.logprob, 1) if r.logprob is not None else "–",
                     "distinct-2": _r(r.distinct_2, 2),
                     "overlap (seeds)": "–" if r.overlap is None else f"{r.overlap:.2f} ({r.seeds})",
                     "settings": settings or "–"})
    # a run that failed has no metrics: "–" in the columns of words; None in those of numbers (a "–" there would
    # turn the whole column into text for the dataframe: numbers sorted as words); its note and settings come last
    keys = list(dict.fromkeys(k for row in rows for k in row))
    keys = [k for k in keys if k not in ("note", "settings")] + [k for k in ("note", "settings") if k in keys]
    numbers = {k for row in rows for k, v in row.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return [{k: row.get(k, None if k in numbers else "–") for k in keys} for row in rows]
