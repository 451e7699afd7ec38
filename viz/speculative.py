"""Pure builders for the Speculative Decoding page. No streamlit."""
from __future__ import annotations

import html
import math

import plotly.graph_objects as go

from viz.sampling import _labels, _layout

ORIGIN = {  # background, text decoration, legend text
    "accepted": ("#d3f9d8", "none", "accepted draft token"),
    "rejected": ("#ffe3e3", "line-through", "rejected draft token (struck, where it was proposed)"),
    "correction": ("#ffe8cc", "none", "target's correction"),
    "bonus": ("#d0ebff", "none", "bonus token (all drafts accepted)"),
    "own": ("#e9ecef", "none", "target's own token (nothing drafted)"),
}
SOURCE = {"correction": "correction", "bonus": "bonus token", "own": "own token (nothing was drafted)"}


def _span(text: str, origin: str, title: str) -> str:
    bg, deco, _ = ORIGIN[origin]
    return (f'<span class="tok-{origin}" title="{html.escape(title)}" style="background:{bg};text-decoration:{deco};'
            f'border-radius:3px;padding:1px 2px;margin:1px;display:inline-block;font-family:monospace">'
            f"{html.escape(text)}</span>")


def origin_html(steps, upto: int | None = None) -> str:
    """The text so far, every token coloured by where it came from; step boundaries as thin bars."""
    parts = []
    for step in steps[: None if upto is None else upto + 1]:
        for d in step.drafts:
            if d.status == "accepted":
                parts.append(_span(d.text, "accepted", f"step {step.index + 1}: draft accepted, p={sig(d.p)} q={sig(d.q)}"))
            elif d.status == "rejected":
                parts.append(_span(d.text, "rejected", f"step {step.index + 1}: draft rejected, p={sig(d.p)} q={sig(d.q)}"))
        parts.append(_span(step.next_text, step.next_source,
                           f"step {step.index + 1}: {SOURCE[step.next_source]} from the target"))
        parts.append('<span style="border-left:2px solid #ced4da;margin:0 3px"></span>')
    legend = " ".join(f'<span style="background:{bg};text-decoration:{deco};padding:1px 4px">{html.escape(t)}</span>'
                      for bg, deco, t in ORIGIN.values())
    return (f'<div data-testid="spec-text" style="line-height:2.1">{"".join(parts)}</div>'
            f'<div style="font-size:0.8em;color:#555">{legend} · grey bars separate verification steps</div>')


def sig(x: float | None, digits: int = 3) -> str:
    """A probability with ``digits`` significant digits (never rounded to a misleading 0): 0.0677, 3.2e-06."""
    if x is None:
        return "–"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}" if abs(x) >= 1e-3 else f"{x:.{digits - 1}e}"


def draft_rows(step, rule: str = "sample", has_q: bool = True) -> list[dict]:
    """The drafts of one step. Columns that mean nothing for the rule are left out: greedy match and top-K
    compare tokens, not probabilities (no min(1, p/q), no u); prompt lookup has no q."""
    rows = []
    for i, d in enumerate(step.drafts):
        row = {"i": i + 1, "draft token": d.text}
        if has_q:
            row["q(y) draft"] = sig(d.q)
        row["p(y) target"] = sig(d.p)
        if rule == "sample":
            row["min(1, p/q)"] = sig(d.accept_prob)
            row["u"] = sig(d.uniform)
        row["result"] = d.status
        rows.append(row)
    return rows


def step_rows(steps, rule: str = "sample", has_q: bool = True) -> list[dict]:
    """Every step so far (the step-through's CSV): its drafts as in ``draft_rows``, then a row with the target's
    own token (a correction, a bonus token, or its own when nothing was drafted)."""
    rows = []
    for s in steps:
        rows.extend({"step": s.index + 1, **row} for row in draft_rows(s, rule, has_q))
        rows.append({"step": s.index + 1, "i": len(s.drafts) + 1, "target token": s.next_text,
                     "result": SOURCE[s.next_source]})
    return rows


def residual_figure(residual_top, title="At the rejection: p, q and the residual norm(max(0, p − q))") -> go.Figure:
    ids, texts, p, q, res = residual_top
    labels = _labels(texts)
    fig = go.Figure()
    fig.add_bar(x=labels, y=list(p), name="p (target)", marker_color="#3b5bdb")
    fig.add_bar(x=labels, y=list(q), name="q (draft)", marker_color="#adb5bd")
    fig.add_bar(x=labels, y=list(res), name="residual (the correction is drawn from this)", marker_color="#e8590c")
    return _layout(fig, title)


def sweep_figure(rows, metric: str, theory_key: str, title: str, yaxis: str) -> go.Figure:
    ns = [r["N"] for r in rows]
    fig = go.Figure()
    sd = [r.get(f"{metric} sd") or 0.0 for r in rows]
    fig.add_scatter(x=ns, y=[r[metric] for r in rows], mode="lines+markers",
                    name="measured" + (f" (mean ± sd of {rows[0]['repeats']} runs)" if any(sd) else ""),
                    line=dict(color="#3b5bdb", width=3),
                    error_y=dict(type="data", array=sd, visible=True, thickness=1.5) if any(sd) else None)
    fig.add_scatter(x=ns, y=[r[theory_key] for r in rows], mode="lines", name="theory (i.i.d. α)",
                    line=dict(color="#e8590c", dash="dash"))
    fig = _layout(fig, title, yaxis=yaxis)
    fig.update_xaxes(type="linear", tickangle=0, title="draft length N", dtick=1)
    return fig


def drift_figure(texts, target_p, by_rule: dict) -> go.Figure:
    labels = _labels(texts)
    fig = go.Figure()
    colors = ["#e8590c", "#2b8a3e", "#9c36b5", "#868e96"]
    for (name, freqs), color in zip(by_rule.items(), colors):
        fig.add_bar(x=labels, y=list(freqs), name=name, marker_color=color)
    fig.add_scatter(x=labels, y=list(target_p), mode="markers", name="target p", marker=dict(
        color="#1c2233", size=9, symbol="line-ew-open", line=dict(width=3)))
    return _layout(fig, "First emitted token: frequency over many seeds against the target's p", yaxis="frequency")


def price_figure(rows) -> go.Figure:
    """The notes' "choosing N" table as figures: per-step wait (median and 90th percentile, the draft's
    share) and the working memory of one step, against N (rows from viz.tables.sweep_rows)."""
    from plotly.subplots import make_subplots

    ns = [r["N"] for r in rows]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("What a user waits per step", "Memory of one step's logits"))
    fig.add_scatter(x=ns, y=[r["step (ms, p90)"] for r in rows], mode="lines+markers", name="step, 90th percentile",
                    line=dict(color="#c92a2a", dash="dot"), row=1, col=1)
    fig.add_scatter(x=ns, y=[r["step (ms, median)"] for r in rows], mode="lines+markers", name="step, median",
                    line=dict(color="#3b5bdb", width=3), row=1, col=1)
    fig.add_scatter(x=ns, y=[r["draft per step (ms)"] for r in rows], mode="lines+markers", name="draft part",
                    line=dict(color="#868e96"), row=1, col=1)
    fig.add_bar(x=ns, y=[r["step memory (MiB)"] for r in rows], name="logits + probabilities (MiB)",
                marker_color="#e8590c", row=1, col=2)
    fig.update_xaxes(title_text="draft length N", dtick=1)
    fig.update_yaxes(title_text="ms", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="MiB", rangemode="tozero", row=1, col=2)
    fig.update_layout(height=360, margin=dict(l=10, r=10, t=50, b=10), legend=dict(orientation="h", y=-0.3),
                      font=dict(size=14), plot_bgcolor="white")
    return fig


def sweep_explanation(sweep) -> str:
    """Why the measured speed-up differs from the theory curve, in words, from the sweep's own measurements:
    the theory charges a step (N c + 1) plain-token times and assumes acceptance alpha at every position; the
    sweep measured what a step really waited (draft + verify) and the tau really reached."""
    t = 1000 / sweep.plain_tokens_per_s                 # ms per token of plain decoding, this run
    best, last = sweep.best, sweep.rows[-1]
    parts = [f"Plain decoding took **{t:.0f} ms** per token here."]
    for r in ([best] if best.n == last.n else [best, last]):
        verify = max(0.0, r.step_ms_median - r.draft_ms_per_step)
        cost_theory = r.n * r.c + 1                          # step cost the theory charges, in plain tokens
        cost = r.step_ms_median / t                           # what the median step cost
        tau_gap, cost_gap = r.tau / r.tau_theory, cost_theory / cost
        cause = ("acceptance: τ reached {:.2f} where α predicts {:.2f} (later drafts are accepted less often "
                 "than α)".format(r.tau, r.tau_theory) if abs(math.log(tau_gap)) > abs(math.log(cost_gap)) else
                 "the step's cost: {:.2f} plain tokens where the theory charges {:.2f}{}".format(
                     cost, cost_theory, ", because verifying N + 1 tokens costs more than one forward"
                     if verify / t > 1.15 else ", mostly the draft"))
        parts.append(f"At **N = {r.n}** a step waited **{r.step_ms_median:.0f} ms**: the draft "
                     f"{r.draft_ms_per_step:.0f} ms and the verify pass {verify:.0f} ms (= {verify / t:.2f}× one "
                     f"plain token; the theory counts 1.00×). Measured {r.speedup:.2f}× against the theory's "
                     f"{r.speedup_theory:.2f}×; the larger gap is {cause}.")
    return " ".join(parts)
