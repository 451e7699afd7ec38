"""Pure builders for the Speculative Decoding page. No streamlit."""
from __future__ import annotations

import html
import math

import plotly.graph_objects as go

from ui.i18n import has, say, t
from viz.sampling import _labels, _layout, bar_pattern

ORIGIN = {  # background, text decoration, catalogue id of the legend text
    "accepted": ("#d3f9d8", "none", "viz.origin.accepted"),
    "rejected": ("#ffe3e3", "line-through", "viz.origin.rejected"),
    "correction": ("#ffe8cc", "none", "viz.origin.correction"),
    "bonus": ("#d0ebff", "none", "viz.origin.bonus"),
    "own": ("#e9ecef", "none", "viz.origin.own"),
}
SOURCE = {"correction": "viz.source.correction", "bonus": "viz.source.bonus", "own": "viz.source.own"}  # ids
BY_TARGET = ("correction", "bonus", "own", "target")  # bold: a cue beside the colour (green and orange read alike
# to a red-green colour-blind student)


def origin_style(origin: str, table: dict = ORIGIN) -> str:
    """The CSS of a token from ``origin``: its background, struck through if rejected, bold if the target wrote it."""
    bg, deco, _ = table[origin]
    return f"background:{bg};text-decoration:{deco};" + ("font-weight:700;" if origin in BY_TARGET else "")


COPIED = "border-bottom:3px dotted #1c7ed6;"  # a draft the copy of the context chose (SpeculativeDecoder's copy)
BRANCH = "border-bottom:3px solid #7048e8;"   # a token verified beside the chain (runner-up leaf, lookup branch)


def _span(text: str, origin: str, title: str, copied: bool = False, branch: bool = False) -> str:
    mark, cls = (COPIED, " tok-copied") if copied else ("", "")
    if branch:
        mark, cls = BRANCH, " tok-branch"
    return (f'<span class="tok-{origin}{cls}" title="{html.escape(title)}" style="{origin_style(origin)}'
            f'{mark}border-radius:3px;padding:1px 2px;margin:1px;display:inline-block;font-family:monospace">'
            f"{html.escape(text)}</span>")


def legend_item(style: str, what: str) -> str:
    """One entry of a token legend: the catalogue text ``what`` drawn as the tokens it names are (``style``)."""
    return f'<span style="{style}padding:1px 4px;display:inline-block;margin:1px 0">{html.escape(t(what))}</span>'


def origin_html(steps, upto: int | None = None) -> str:
    """The text so far, every token coloured by where it came from; step boundaries as thin bars. A step cut at an
    EOS among its accepted drafts shows only what it emitted (up to the EOS). Where the accepted path left the chain
    (a runner-up leaf, the lookup branch), the chain's rejected draft is struck through and the branch's tokens
    follow, underlined in violet."""
    parts, any_copied, any_branch = [], False, False
    for step in steps[: None if upto is None else upto + 1]:
        cut = len(step.emitted) <= step.n_accepted  # the EOS was an accepted draft: nothing after it was emitted
        branch = step.branch
        shown = ([d for d in step.drafts if d.status == "accepted"] + [d for d in step.drafts if d.status == "rejected"]
                 + [d for d in branch if d.status == "accepted"])
        left = len(step.emitted)
        for d in shown:
            if cut and (d.status != "accepted" or left == 0):
                continue
            left -= d.status == "accepted"
            from_branch = d.source in ("runner-up", "lookup")
            tip = t("viz.spec.tip_copied") if d.copied else t(f"viz.spec.tip_{d.source}") if from_branch else ""
            any_copied |= d.copied
            any_branch |= from_branch
            parts.append(_span(d.text, d.status, t(f"viz.spec.tip_{d.status}", n=step.index + 1, p=sig(d.p),
                                                   q=sig(d.q)) + tip, d.copied, from_branch))
        if not cut:
            parts.append(_span(step.next_text, step.next_source,
                               t("viz.spec.tip_target", n=step.index + 1, what=t(SOURCE[step.next_source]))))
        parts.append('<span style="border-left:2px solid #ced4da;margin:0 3px"></span>')
    legend = " ".join([legend_item(origin_style(o), what) for o, (_, _, what) in ORIGIN.items()]
                      + [legend_item(COPIED, "viz.origin.copied")] * any_copied
                      + [legend_item(BRANCH, "viz.origin.branch")] * any_branch)
    return (f'<div data-testid="spec-text" style="line-height:2.1">{"".join(parts)}</div>'
            f'<div style="font-size:0.8em;color:#555">{legend} · {html.escape(t("viz.spec.bars"))} · '
            f'{html.escape(t("viz.spec.bold"))}</div>')


def sig(x: float | None, digits: int = 3) -> str:
    """A probability with ``digits`` significant digits (never rounded to a misleading 0): 0.0677, 3.2e-06."""
    if x is None:
        return "–"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}" if abs(x) >= 1e-3 else f"{x:.{digits - 1}e}"


def draft_rows(step, rule: str = "sample", has_q: bool = True, copying: bool = False) -> list[dict]:
    """The drafts of one step, by position i in the step's text (a branch token beside the chain's token there).
    Columns that mean nothing for the rule are left out: greedy match and top-K compare tokens, not probabilities
    (no min(1, p/q), no u); prompt lookup has no q. ``copying`` (the draft's q mixed with a copy of the context) or
    a tree around the chain adds who proposed each token (draft / copy / runner-up / lookup)."""
    rows = []
    branch = step.branch
    chain = [(i + 1, d) for i, d in enumerate(step.drafts)]
    for i, d in sorted(chain + [(d.depth, d) for d in branch], key=lambda x: x[0]):  # stable: the chain's token first
        row = {"i": i, "draft token": d.text}
        if copying or branch:
            row["source"] = "copy" if d.copied else d.source
        if has_q:
            row["q(y) draft"] = sig(d.q)
        row["p(y) target"] = sig(d.p)
        if rule == "sample":
            row["min(1, p/q)"] = sig(d.accept_prob if d.uniform is not None else None)  # "–": never tested
            row["u"] = sig(d.uniform)
        row["result"] = d.status
        rows.append(row)
    return rows


def step_rows(steps, rule: str = "sample", has_q: bool = True, copying: bool = False) -> list[dict]:
    """Every step so far (the step-through's CSV): its drafts as in ``draft_rows``, then a row with the target's
    own token (a correction, a bonus token, or its own when nothing was drafted)."""
    rows = []
    for s in steps:
        rows.extend({"step": s.index + 1, **row} for row in draft_rows(s, rule, has_q, copying))
        deepest = max([len(s.drafts)] + [d.depth for d in getattr(s, "branch", ())])
        rows.append({"step": s.index + 1, "i": deepest + 1, "target token": s.next_text,
                     "result": t(SOURCE[s.next_source], "en")})  # the CSV keeps English values
    return rows


def residual_figure(residual_top, title=None) -> go.Figure:
    ids, texts, p, q, res = residual_top
    labels = _labels(texts)
    fig = go.Figure()
    fig.add_bar(x=labels, y=list(p), name=t("viz.spec.p"), marker_color="#3b5bdb")
    fig.add_bar(x=labels, y=list(q), name=t("viz.spec.q"), marker_color="#adb5bd")
    fig.add_bar(x=labels, y=list(res), name=t("viz.spec.residual"), marker_color="#e8590c")
    return _layout(fig, title or t("viz.spec.residual.title"))


def sweep_figure(rows, metric: str, theory_key: str, title: str, yaxis: str) -> go.Figure:
    ns = [r["N"] for r in rows]
    fig = go.Figure()
    sd = [r.get(f"{metric} sd") or 0.0 for r in rows]
    fig.add_scatter(x=ns, y=[r[metric] for r in rows], mode="lines+markers",
                    name=t("viz.spec.measured") + (t("viz.spec.mean_sd", n=rows[0]["repeats"]) if any(sd) else ""),
                    line=dict(color="#3b5bdb", width=3),
                    error_y=dict(type="data", array=sd, visible=True, thickness=1.5) if any(sd) else None)
    fig.add_scatter(x=ns, y=[r[theory_key] for r in rows], mode="lines", name=t("viz.spec.theory"),
                    line=dict(color="#e8590c", dash="dash"))
    fig = _layout(fig, title, yaxis=yaxis)
    fig.update_xaxes(type="linear", tickangle=0, title=t("viz.spec.n"), dtick=1)
    return fig


def drift_figure(texts, target_p, by_rule: dict) -> go.Figure:
    labels = _labels(texts)
    fig = go.Figure()
    colors = ["#e8590c", "#2b8a3e", "#9c36b5", "#868e96"]
    for i, ((name, freqs), color) in enumerate(zip(by_rule.items(), colors)):
        fig.add_bar(x=labels, y=list(freqs), name=t(f"viz.series.{name}") if has(f"viz.series.{name}") else say(name),
                    marker_color=color, marker_pattern=bar_pattern(i))
    fig.add_scatter(x=labels, y=list(target_p), mode="markers", name=t("viz.spec.target_p"), marker=dict(
        color="#1c2233", size=9, symbol="line-ew-open", line=dict(width=3)))
    return _layout(fig, t("viz.spec.drift.title"), yaxis=t("viz.frequency"))


def price_figure(rows) -> go.Figure:
    """The notes' "choosing N" table as figures: per-step wait (median and 90th percentile, the draft's
    share) and the working memory of one step, against N (rows from viz.tables.sweep_rows)."""
    from plotly.subplots import make_subplots

    ns = [r["N"] for r in rows]
    fig = make_subplots(rows=1, cols=2, subplot_titles=(t("viz.spec.wait"), t("viz.spec.memory")))
    fig.add_scatter(x=ns, y=[r["step (ms, p90)"] for r in rows], mode="lines+markers", name=t("viz.spec.p90"),
                    line=dict(color="#c92a2a", dash="dot"), row=1, col=1)
    fig.add_scatter(x=ns, y=[r["step (ms, median)"] for r in rows], mode="lines+markers", name=t("viz.spec.median"),
                    line=dict(color="#3b5bdb", width=3), row=1, col=1)
    fig.add_scatter(x=ns, y=[r["draft per step (ms)"] for r in rows], mode="lines+markers", name=t("viz.spec.draft_part"),
                    line=dict(color="#868e96"), row=1, col=1)
    fig.add_bar(x=ns, y=[r["step memory (MiB)"] for r in rows], name=t("viz.spec.logits_mib"),
                marker_color="#e8590c", row=1, col=2)
    fig.update_xaxes(title_text=t("viz.spec.n"), dtick=1)
    fig.update_yaxes(title_text="ms", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="MiB", rangemode="tozero", row=1, col=2)
    fig.update_layout(height=360, margin=dict(l=10, r=10, t=50, b=10), legend=dict(orientation="h", y=-0.3),
                      font=dict(size=14), plot_bgcolor="white")
    return fig


def sweep_explanation(sweep) -> str:
    """Why the measured speed-up differs from the theory curve, in words, from the sweep's own measurements:
    the theory charges a step (N c + 1) plain-token times and assumes acceptance alpha at every position; the
    sweep measured the tau really reached and the speed-up, so a step really cost tau / speed-up plain tokens on
    average (the numbers in the sentence divide into each other), and a typical (median) step's draft and verify
    times say which part of the step the difference sits in: the draft (against N c), the verify pass (against one
    plain token) or neither (time outside a typical step: slow steps, the first step reading the prompt)."""
    plain = 1000 / sweep.plain_tokens_per_s             # ms per token of plain decoding, this run
    best, last = sweep.best, sweep.rows[-1]
    parts = [t("viz.why.plain", ms=plain)]
    for r in ([best] if best.n == last.n else [best, last]):
        verify = max(0.0, r.step_ms_median - r.draft_ms_per_step)
        cost_theory = r.n * sweep.c + 1                      # step cost the theory (its curve: the sweep's c) charges
        cost = r.tau / r.speedup if r.speedup > 0 else r.step_ms_median / plain  # what a step cost on average
        tau_gap, cost_gap = r.tau / r.tau_theory, cost_theory / cost
        if abs(math.log(tau_gap)) > abs(math.log(cost_gap)):
            cause = t("viz.why.acceptance_low" if r.tau < r.tau_theory else "viz.why.acceptance_high",
                      tau=r.tau, theory=r.tau_theory)
        else:
            draft_part, verify_part = r.draft_ms_per_step / plain, verify / plain
            gaps = {"draft": draft_part - r.n * sweep.c, "verify": verify_part - 1.0,
                    "other": cost - draft_part - verify_part}
            part = max(gaps, key=lambda k: abs(gaps[k]))
            why = t(f"viz.why.{part}", ratio=verify_part, draft=draft_part, nc=r.n * sweep.c)
            cause = t("viz.why.cost", cost=cost, theory=cost_theory, why=why)
        parts.append(t("viz.why.step", n=r.n, cost=cost, tau=r.tau, ms=r.step_ms_median, draft=r.draft_ms_per_step,
                       verify=verify, ratio=verify / plain, speedup=r.speedup, theory=r.speedup_theory, cause=cause))
    return " ".join(parts)
