"""Pure builders for the EAGLE page: the token tree as DOT, the tree mask as a heatmap, loss curves."""
from __future__ import annotations

import html
import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.sampling import _labels


def tree_dot(step, max_label: int = 14) -> str:
    """Nodes: token text and draft confidence exp(score); the accepted path bold green, the rest dimmed."""
    path = set(step.accepted_path)
    lines = ['digraph eagle { rankdir=LR; bgcolor="transparent"; nodesep=0.08; ranksep=0.3;',
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10, margin="0.05,0.02"];',
             '  edge [arrowsize=0.5];']
    for i, (text, score) in enumerate(zip(step.texts, step.scores)):
        on = i in path
        fill = "#b2f2bb" if on else "#f1f3f5"
        color = "#2b8a3e" if on else "#ced4da"
        font = "#1c2233" if on else "#868e96"
        sub = "root" if i == 0 else f"q={math.exp(score):.2f}"
        label = html.escape(text[:max_label])
        lines.append(f'  n{i} [label=<{label}<BR/><FONT POINT-SIZE="7">#{i} {sub}</FONT>>, fillcolor="{fill}", '
                     f'color="{color}", fontcolor="{font}", penwidth="{2.5 if on else 1}"];')
    for i, par in enumerate(step.parents):
        if par >= 0:
            on = i in path and par in path
            lines.append(f'  n{par} -> n{i} [color="{"#2b8a3e" if on else "#dee2e6"}", penwidth="{2 if on else 1}"];')
    lines.append("}")
    return "\n".join(lines)


def mask_figure(step, selected: int | None = None) -> go.Figure:
    """The tree attention mask beside the plain causal mask of the same flattened tokens. Rows of the
    accepted path are marked with ✓; a selected node's row is outlined."""
    n = len(step.tokens)
    labels = _labels([f"#{i} {t}" for i, t in enumerate(step.texts)])
    rows = [("✓ " if i in step.accepted_path else "") + lab for i, lab in enumerate(labels)]
    tree = step.mask.int().tolist()
    causal = [[1 if j <= i else 0 for j in range(n)] for i in range(n)]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Tree attention mask (what EAGLE uses)",
                                                         "Plain causal mask of the same tokens (wrong here)"),
                        horizontal_spacing=0.12)
    for col, z in ((1, tree), (2, causal)):
        fig.add_trace(go.Heatmap(z=z, x=labels, y=rows, colorscale=[[0, "#f8f9fa"], [1, "#3b5bdb"]], showscale=False,
                                 xgap=1, ygap=1, hovertemplate="%{y} → %{x}: %{z}<extra></extra>"), row=1, col=col)
    size = max(360, 16 * n + 120)
    fig.update_layout(height=size, margin=dict(l=10, r=10, t=40, b=10), plot_bgcolor="white")
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=9))
    fig.update_xaxes(tickangle=-60, tickfont=dict(size=9))
    if selected is not None:
        for col in (1, 2):
            fig.add_shape(type="rect", x0=-0.5, x1=n - 0.5, y0=selected - 0.5, y1=selected + 0.5,
                          line=dict(color="#e8590c", width=2), row=1, col=col)
    return fig


def loss_figure(manifest: dict) -> go.Figure:
    cols = manifest["losses"]["columns"]
    rows = manifest["losses"]["rows"]
    fig = make_subplots(rows=1, cols=3, subplot_titles=("feature loss (SmoothL1)", "token loss (soft CE)",
                                                         "top-1 agreement (train batch)"))
    for k, name in enumerate(cols[1:], start=1):
        fig.add_scatter(x=[r[0] for r in rows], y=[r[k] for r in rows], mode="lines", name=name, row=1, col=k)
    fig.update_layout(height=260, showlegend=False, margin=dict(l=10, r=10, t=40, b=10), plot_bgcolor="white")
    fig.update_xaxes(title_text="step")
    return fig
