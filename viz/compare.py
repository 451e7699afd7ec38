"""Pure builders for the Compare page: each column's output coloured as on its own page, and the metrics
as a chart. No streamlit."""
from __future__ import annotations

import html

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.i18n import t
from viz.sampling import tokens_html
from viz.speculative import BY_TARGET, ORIGIN, legend_item, origin_style

ORIGINS = {**ORIGIN, "target": ("#ffe8cc", "none", "viz.origin.target")}  # the third: a catalogue id


def origin_strip(texts, origins) -> str:
    """Tokens coloured by where they came from (accepted draft, correction, bonus, the target's own token)."""
    spans = []
    for i, (tok, o) in enumerate(zip(texts, origins)):
        tip = html.escape(t("viz.token_n", n=i + 1, what=t(ORIGINS[o][2])))
        spans.append(f'<span title="{tip}" style="{origin_style(o, ORIGINS)}'
                     f'border-radius:3px;padding:1px 2px;margin:1px;display:inline-block;font-family:monospace">'
                     f"{html.escape(tok)}</span>" + ("<br>" if tok.endswith("\u21b5") else ""))
    used = [o for o in ORIGINS if o in set(origins)]
    legend = " ".join(legend_item(origin_style(o, ORIGINS), ORIGINS[o][2]) for o in used)
    if any(o in BY_TARGET for o in used):
        legend += f" · {html.escape(t('viz.spec.bold'))}"
    return (f'<div data-testid="token-strip" style="line-height:2">{"".join(spans)}</div>'
            f'<div style="font-size:0.85em;color:#555;margin-top:4px">{legend}</div>')


def output_html(run) -> str:
    """A StrategyRun's output: by origin where it drafted (speculative, EAGLE), else by probability (the p
    it was drawn with for greedy and sampling, the target's p for beam search)."""
    if run.origins and len(run.origins) == len(run.token_texts):
        return origin_strip(run.token_texts, run.origins)
    if run.strategy in ("beam", "stochastic-beam"):
        return tokens_html(run.token_texts, run.token_probs, what=t("viz.colour.target_p"))
    return tokens_html(run.token_texts, run.token_probs)


METRICS = (("tokens_per_s", "viz.cmp.tokens_per_s"), ("logprob", "viz.cmp.logprob"), ("distinct_2", "viz.cmp.distinct_2"),
           ("tau", "viz.cmp.tau"))  # catalogue ids; the caption beside the chart says what each means


def metrics_figure(runs, labels, names=None) -> go.Figure:
    """One bar per column for each metric (a metric that does not apply to a column has no bar), a column's colour
    the same in every panel. ``names`` (one per column: "greedy", "EAGLE") make a legend under the charts ("1
    greedy", ...), so that a downloaded figure says which bar is which without the page's table."""
    titles = [t(id_) for _, id_ in METRICS]
    two_lines = [x.replace("（", "<br>（") for x in titles]  # a Chinese gloss on a line of its own: side by side the
    fig = make_subplots(rows=1, cols=len(METRICS), subplot_titles=two_lines, horizontal_spacing=0.07)  # titles touched
    # ("distinct-2（不同二元组比例）" "τ（平均接受长度）"); the English ones are short; the hover keeps one line
    colours = ["#3b5bdb", "#e8590c", "#2b8a3e", "#9c36b5", "#c92a2a", "#1098ad"]
    for j, ((attr, _), title) in enumerate(zip(METRICS, titles), 1):
        for i, (r, lab) in enumerate(zip(runs, labels)):  # one trace per column: its legend entry names it
            v = getattr(r, attr)
            fig.add_bar(x=[lab], y=[v if v is not None else 0], row=1, col=j, marker_color=colours[i % len(colours)],
                        name=f"{lab} {names[i]}" if names else str(lab), legendgroup=str(lab),
                        showlegend=bool(names) and j == 1, text=["–" if v is None else f"{v:.3g}"],
                        textposition="outside", cliponaxis=False,
                        hovertemplate="%{x}<br>" + title + " = %{text}<extra></extra>")
    fig.update_layout(height=370, margin=dict(l=10, r=10, t=64, b=10), plot_bgcolor="white", font_size=14,  # 2 lines
                      barmode="overlay", legend=dict(orientation="h", x=0, xanchor="left", y=-0.3, yanchor="top"))
    fig.update_xaxes(type="category", title_text=t("viz.column"), categoryorder="array", categoryarray=list(labels))
    fig.update_yaxes(gridcolor="#eef0f5")
    if names:
        fig.update_layout(height=410)
    return fig
