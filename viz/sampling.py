"""Pure builders for the Sampling page: step data in, plotly figures / HTML out. No streamlit."""
from __future__ import annotations

import html

import plotly.graph_objects as go

from ui.i18n import has, t

RAW = "#9aa5c4"
KEPT = "#3b5bdb"
CUT = "#d0d4de"
EXACT = "#1c2233"
PALETTE = {"multinomial": "#3b5bdb", "gumbel": "#e8590c", "gumbel-block": "#2b8a3e", "exp-race": "#9c36b5",
           "fresh noise": "#e8590c", "reused noise (bug)": "#c92a2a"}
BAR_PATTERNS = ("", "/", ".", "x", "\\", "-")


def bar_pattern(i: int) -> dict:
    """The i-th series' fill pattern: a cue beside its colour on grouped bars (orange and green, or orange and red,
    read alike to a red-green colour-blind student)."""
    return dict(shape=BAR_PATTERNS[i % len(BAR_PATTERNS)], fgcolor="white", size=7, solidity=0.3)


def _layout(fig: go.Figure, title: str, height: int = 340, yaxis: str | None = None) -> go.Figure:
    """The bar charts' common layout; ``yaxis``: the axis title (by default "probability", in the session's
    language)."""
    # the title on its own row above the legend: a long title (a prompt's tail, Chinese) never runs into it
    fig.update_layout(title=dict(text=title, x=0, y=0.985, yref="container", yanchor="top", font=dict(size=14)),
                      height=height, barmode="group", margin=dict(l=10, r=10, t=70, b=10),
                      legend=dict(orientation="h", y=1.0, x=0, xanchor="left", yanchor="bottom"), yaxis_title=yaxis or t("viz.probability"), plot_bgcolor="white", bargap=0.15)
    fig.update_xaxes(tickangle=-45, type="category")
    fig.update_yaxes(gridcolor="#eef0f5")
    return fig


def _labels(texts) -> list[str]:
    """Unique category labels (two tokens can read the same on screen)."""
    seen: dict[str, int] = {}
    out = []
    for text in texts:
        seen[text] = seen.get(text, 0) + 1
        out.append(text if seen[text] == 1 else f"{text} ({seen[text]})")
    return out


def distribution_figure(texts, raw, processed, title=None) -> go.Figure:
    """Raw probabilities beside the processed ones; tokens the processors cut are greyed."""
    labels = _labels(texts)
    colors = [KEPT if p > 0 else CUT for p in processed]
    fig = go.Figure()
    fig.add_bar(x=labels, y=list(raw), name=t("viz.raw"), marker_color=RAW,
                hovertemplate="%{x}<br>" + t("viz.raw_p") + " = %{y:.4f}<extra></extra>")
    fig.add_bar(x=labels, y=list(processed), name=t("viz.processed"),
                marker_color=colors, hovertemplate="%{x}<br>" + t("viz.processed_p") + " = %{y:.4f}<extra></extra>")
    return _layout(fig, title or t("viz.next_token"))


def histogram_figure(texts, exact, empirical_by_name: dict, title=None):
    """Empirical frequencies of each sampler next to the exact probabilities (as markers). A series named by a
    catalogue id ``viz.series.<name>`` ("fresh noise") is shown in the session's language."""
    labels = _labels(texts)
    fig = go.Figure()
    for i, (name, freqs) in enumerate(empirical_by_name.items()):
        shown = t(f"viz.series.{name}") if has(f"viz.series.{name}") else name
        fig.add_bar(x=labels, y=list(freqs), name=shown, marker_color=PALETTE.get(name, "#868e96"),
                    marker_pattern=bar_pattern(i),
                    hovertemplate="%{x}<br>" + shown + " " + t("viz.frequency") + " = %{y:.4f}<extra></extra>")
    fig.add_scatter(x=labels, y=list(exact), mode="markers", name=t("viz.exact"), marker=dict(color=EXACT, size=9,
                    symbol="line-ew-open", line=dict(width=3)),
                    hovertemplate="%{x}<br>" + t("viz.exact") + " = %{y:.4f}<extra></extra>")
    return _layout(fig, title or t("viz.samples"), yaxis=t("viz.frequency"))


def token_color(p: float) -> str:
    """Background for a token drawn with probability p: one hue, lightness falling with p (readable for every
    kind of colour vision, and in greyscale): near-white for unlikely, deep blue for likely."""
    p = max(0.0, min(1.0, p))
    return f"hsl(212, 80%, {95 - 50 * p:.0f}%)"


def text_color(p: float) -> str:
    return "#ffffff" if p > 0.6 else "#1c2233"


def tokens_html(texts, probs, current: int | None = None, what: str | None = None) -> str:
    """The text so far, each token a span coloured by the probability it was drawn with (``what`` the legend
    says the colour is; by default the probability the token was drawn with)."""
    spans = []
    for i, (tok, p) in enumerate(zip(texts, probs)):
        border = "2px solid #e8590c" if i == current else "1px solid transparent"  # orange: visible on any blue
        tip = html.escape(t("viz.step", n=i + 1))
        spans.append(
            f'<span title="{tip}: p = {p:.3f}" style="background:{token_color(p)};color:{text_color(p)};'
            f'border:{border};'
            f'border-radius:3px;padding:1px 2px;margin:1px;display:inline-block;font-family:monospace">'
            f"{html.escape(tok)}</span>" + ("<br>" if tok.endswith("\u21b5") else "")  # ↵ also breaks the line
        )
    swatches = " ".join(f'<span style="background:{token_color(v)};color:{text_color(v)};padding:0 6px">{v:g}</span>'
                        for v in (0.0, 0.25, 0.5, 0.75, 1.0))
    legend = (f'<div style="font-size:0.85em;color:#555;margin-top:4px">'
              f'{html.escape(t("viz.colour", what=what or t("viz.colour.drawn")))}{swatches}</div>')
    return f'<div data-testid="token-strip" style="line-height:2">{"".join(spans)}</div>{legend}'


def step_rows(history) -> list[dict]:
    """One row per sampled step (the step-through's CSV): the token drawn, its probability after the processors
    and raw, how many tokens were left and the entropy it was drawn from."""
    return [{"step": r.index + 1, "token": r.token_text, "token id": r.token_id, "p": round(r.prob, 6),
             "raw p": round(r.raw_prob, 6), "tokens left": r.kept, "entropy (nats)": round(r.entropy, 4),
             "end of sequence": r.finished} for r in history]
