"""Pure builders for the EAGLE page: the token tree as DOT, the tree mask as a heatmap, loss curves."""
from __future__ import annotations

import html
import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from decoding_core.trees import depths
from ui.i18n import t
from viz.sampling import _labels, bar_pattern


def percent(p: float) -> str:
    """A probability as a percentage with two significant digits (0.0042 -> '0.42%', 0.37 -> '37%')."""
    if p <= 0:
        return "0%"
    return f"{100 * p:.2g}%" if p < 0.995 else "100%"


def _descendants(parents) -> list[int]:
    """Number of descendants of every node of a tree given by parent indices (parents precede children)."""
    below = [0] * len(parents)
    for i in range(len(parents) - 1, 0, -1):
        if parents[i] >= 0:
            below[parents[i]] += 1 + below[i]
    return below


def tree_dot(step, max_label: int = 14, compact: bool = True) -> str:
    """Nodes: token text and draft confidence exp(score) as a percentage (a node copied by the lookup branch:
    "copied", blue; drafted from the corpus where the text had no match: "corpus", blue); the accepted path bold green, rejected branches dashed with dark text on white (readable on a
    projector). ``compact``: only the accepted path and the alternatives branching off it, each with the number of
    drafted nodes hidden below it."""
    path = set(step.accepted_path)
    copied = set(getattr(step, "lookup_nodes", ()))
    corpus = set(getattr(step, "corpus_nodes", ()))
    below = _descendants(step.parents)
    keep = set(range(len(step.texts)))
    if compact:
        keep = {i for i, par in enumerate(step.parents) if i in path or par in path}
    lines = ['digraph eagle { rankdir=LR; bgcolor="transparent"; nodesep=0.1; ranksep=0.35;',
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=16, margin="0.1,0.05"];',
             '  edge [arrowsize=0.6];']
    for i, (text, score) in enumerate(zip(step.texts, step.scores)):
        if i not in keep:
            continue
        on = i in path
        style = "rounded,filled,bold" if on else "rounded,filled,dashed"
        fill, color = ("#b2f2bb", "#2b8a3e") if on else ("#ffffff", "#495057")
        if i in copied:
            fill, color = ("#b2f2bb" if on else "#d0ebff"), "#1864ab"
        sub = (t("viz.tree.root") if i == 0 else t("viz.tree.corpus") if i in corpus else t("viz.tree.copied")
               if i in copied else f"q {percent(math.exp(score))}")
        hidden = below[i] if compact and not on else 0
        if hidden:
            sub += " · " + t("viz.tree.below", n=hidden)
        label = f"<B>{html.escape(text[:max_label])}</B>"  # the token, bold above its number and confidence
        lines.append(f'  n{i} [label=<<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="1"><TR><TD>{label}</TD></TR>'
                     f'<TR><TD><FONT POINT-SIZE="12">#{i} {sub}</FONT></TD></TR></TABLE>>, fillcolor="{fill}", '
                     f'color="{color}", fontcolor="#1c2233", style="{style}", penwidth="{2.5 if on else 1.2}"];')
    for i, par in enumerate(step.parents):
        if par >= 0 and i in keep and par in keep:
            on = i in path and par in path
            lines.append(f'  n{par} -> n{i} [color="{"#2b8a3e" if on else "#868e96"}", penwidth="{2.5 if on else 1}"'
                         f'{"" if on else ", style=dashed"}];')
    lines.append("}")
    return "\n".join(lines)


def step_rows(steps) -> list[dict]:
    """Every drafted node of every step so far (the step-through's CSV): its parent, depth, token, draft
    confidence exp(score) and whether the target accepted it; then a row with the target's own token."""
    rows = []
    for s in steps:
        depth = depths(list(s.parents))
        path = set(s.accepted_path)
        copied, corpus = set(getattr(s, "lookup_nodes", ())), set(getattr(s, "corpus_nodes", ()))
        rows.extend({"step": s.index + 1, "node": i, "parent": s.parents[i], "depth": depth[i], "token": s.texts[i],
                     "source": "corpus" if i in corpus else "lookup" if i in copied else "head",
                     "draft q": None if i in copied else round(math.exp(s.scores[i]), 6),
                     "result": "accepted" if i in path else "rejected"}
                    for i in range(1, len(s.texts)))
        tree = s.kind == "tree"  # the prefill step: the target's first token, no tree yet
        rows.append({"step": s.index + 1, "node": None, "parent": s.accepted_path[-1] if tree else None,
                     "depth": len(s.accepted_path) if tree else None, "token": s.next_text, "source": "target",
                     "draft q": None,  # every column, in the drafted rows' order: the CSV's order is the first row's
                     "result": "the target's own token" if tree else "the target's first token"})
    return rows


def mask_figure(step, selected: int | None = None) -> go.Figure:
    """The tree attention mask beside the plain causal mask of the same flattened tokens. Rows of the
    accepted path are marked with ✓; a selected node's row is outlined."""
    n = len(step.tokens)
    labels = _labels([f"#{i} {t}" for i, t in enumerate(step.texts)])
    rows = [("✓ " if i in step.accepted_path else "") + lab for i, lab in enumerate(labels)]
    tree = step.mask.int().tolist()
    causal = [[1 if j <= i else 0 for j in range(n)] for i in range(n)]
    titles = [t(k).replace(" (", "<br>(").replace("（", "<br>（") for k in ("viz.eagle.tree_mask", "viz.eagle.causal_mask")]
    widest = max(len(r) for r in rows)  # the right panel's row labels sit in the gap: ~0.6 em a character at up to
    gap = min(0.3, max(0.12, (widest + 2) * 0.6 * 15 / 820))  # 15 px (presentation mode) on an ~820 px wide figure
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=gap)  # two-line titles: the right
    # one ran past the figure's edge (under its toolbar) at 1280 px; with 12 nodes its "✓ #11 ocean" touched the left
    for col, z in ((1, tree), (2, causal)):
        fig.add_trace(go.Heatmap(z=z, x=labels, y=rows, colorscale=[[0, "#f8f9fa"], [1, "#3b5bdb"]], showscale=False,
                                 xgap=1, ygap=1, hovertemplate="%{y} → %{x}: %{z}<extra></extra>"), row=1, col=col)
    font = 14 if n <= 16 else 11 if n <= 32 else 9  # the trees sized for a CPU are small: readable from the back
    size = max(410, (font + 8) * n + 190)  # + the two-line titles
    fig.update_layout(height=size, margin=dict(l=10, r=10, t=90, b=10), plot_bgcolor="white")  # the toolbar above
    fig.update_annotations(font=dict(size=16, color="#1c2233"))  # the panels' titles: dark, readable on a projector
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=font))
    fig.update_xaxes(tickangle=-60, tickfont=dict(size=font))
    if selected is not None:
        for col in (1, 2):
            fig.add_shape(type="rect", x0=-0.5, x1=n - 0.5, y0=selected - 0.5, y1=selected + 0.5,
                          line=dict(color="#e8590c", width=2), row=1, col=col)
    return fig


def loss_figure(manifest: dict) -> go.Figure:
    """Training curves from a head manifest: EAGLE-1 (feature loss, token loss, top-1) or EAGLE-3 (the
    weighted training-time-test loss and the top-1 agreement at every unrolled depth)."""
    cols = manifest["losses"]["columns"]
    rows = manifest["losses"]["rows"]
    steps = [r[0] for r in rows]
    if "reg" in cols:
        fig = make_subplots(rows=1, cols=3, subplot_titles=(t("viz.loss.feature"), t("viz.loss.token"),
                                                             t("viz.loss.agree")))
        for k, name in enumerate(cols[1:], start=1):
            fig.add_scatter(x=steps, y=[r[k] for r in rows], mode="lines", name=name, row=1, col=k)
        fig.update_layout(showlegend=False)
    else:
        fig = make_subplots(rows=1, cols=2, subplot_titles=(t("viz.loss.ttt"), t("viz.loss.agree_depth")))
        fig.add_scatter(x=steps, y=[r[1] for r in rows], mode="lines", name=t("viz.loss.loss"), row=1, col=1,
                        showlegend=False)  # its panel's title names it; the legend is the right panel's depths
        for k, name in enumerate(cols[2:], start=2):
            depth = name.replace("top1_depth", "")
            colour, _, dash = DEPTH_LINES[(k - 2) % len(DEPTH_LINES)]  # noisy curves: colour and dash, no markers
            fig.add_scatter(x=steps, y=[r[k] for r in rows], mode="lines", row=1, col=2, line=dict(color=colour,
                            dash=dash, width=1.5),
                            name=t("viz.eagle.depth", d=depth) if depth.isdigit() else name.replace("top1_", ""))
    fig.update_layout(height=280, margin=dict(l=10, r=10, t=40, b=10), plot_bgcolor="white", font=dict(size=13))
    fig.update_xaxes(title_text=t("viz.eagle.step"))
    return fig


# one line per tree depth: a colour, a marker shape and a dash each (six default colours merged for a red-green
# colour-blind student; yellow and light green were faint on white for everyone); no orange: the chosen size's star
DEPTH_LINES = (("#1864ab", "circle", "solid"), ("#2b8a3e", "square", "dash"), ("#862e9c", "diamond", "dot"),
               ("#495057", "triangle-up", "dashdot"), ("#c2255c", "x", "longdash"), ("#0b7285", "star-square", "solid"),
               ("#5c940d", "hexagon", "dash"), ("#364fc7", "cross", "dot"))


def sizing_figure(choice: dict, kind: str = "tree") -> go.Figure:
    """Left: the measured cost of one target forward over T tokens (a verify pass) on this device. Right:
    expected tokens/s for each draft size (held-out tau / (draft + verify cost)), the chosen size marked.
    ``choice``: what sizing.choose_tree / choose_chain were given and chose (eagle.auto_tree,
    speculative.auto_chain)."""
    verify = choice["verify_s"]
    ts = sorted(verify)
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.14,
                        subplot_titles=(t("viz.eagle.cost"), t(f"viz.eagle.expected.{kind}")))
    fig.add_trace(go.Scatter(x=ts, y=[1000 * verify[t] for t in ts], mode="lines+markers", name=t("viz.eagle.verify"),
                             line=dict(color="#3b5bdb"), hovertemplate="T = %{x}: %{y:.0f} ms<extra></extra>"),
                  row=1, col=1)
    fig.add_trace(go.Scatter(x=ts, y=[1000 * verify[1] * t for t in ts], mode="lines", name=t("viz.eagle.separate"),
                             line=dict(color="#adb5bd", dash="dot"), hovertemplate="%{y:.0f} ms<extra></extra>"),
                  row=1, col=1)
    rates = choice["rates"]
    if kind == "tree":
        chosen = (choice["total_tokens"], choice["depth"])
        for i, d in enumerate(sorted({d for _, d in rates})):
            xs = sorted(t for t, dd in rates if dd == d)
            colour, symbol, dash = DEPTH_LINES[i % len(DEPTH_LINES)]
            fig.add_trace(go.Scatter(x=xs, y=[rates[(t, d)] for t in xs], mode="lines+markers", name=t("viz.eagle.depth", d=d),
                                     line=dict(color=colour, dash=dash, width=2.5),
                                     marker=dict(color=colour, symbol=symbol, size=9),
                                     hovertemplate=f"depth {d}, %{{x}} tokens: %{{y:.1f}} tok/s<extra></extra>"),
                          row=1, col=2)
        fig.add_trace(go.Scatter(x=[chosen[0]], y=[rates[chosen]], mode="markers", name=t("viz.eagle.chosen"),
                                 marker=dict(size=16, symbol="star", color="#e8590c")), row=1, col=2)
        fig.update_xaxes(title_text=t("viz.eagle.tree_size"), row=1, col=2)
    else:
        ns = sorted(rates)
        fig.add_trace(go.Scatter(x=ns, y=[rates[n] for n in ns], mode="lines+markers", name=t("viz.eagle.chain"),
                                 hovertemplate="N = %{x}: %{y:.1f} tok/s<extra></extra>"), row=1, col=2)
        fig.add_trace(go.Scatter(x=[choice["n_draft"]], y=[rates[choice["n_draft"]]], mode="markers", name=t("viz.eagle.chosen"),
                                 marker=dict(size=16, symbol="star", color="#e8590c")), row=1, col=2)
        fig.update_xaxes(title_text=t("viz.spec.n"), row=1, col=2)
    fig.update_xaxes(title_text=t("viz.eagle.t"), row=1, col=1)
    # the axis is the measured curve's: T separate forwards leave the top at a few tokens (they would flatten it)
    fig.update_yaxes(title_text="ms", range=[0, 1.3 * 1000 * max(verify.values())], row=1, col=1)
    fig.update_yaxes(title_text=t("viz.eagle.tps"), row=1, col=2)
    fig.update_layout(height=380, margin=dict(l=10, r=10, t=50, b=10), legend=dict(orientation="h", y=-0.25),
                      font=dict(size=14))
    return fig


def depth_figure(by_method: dict[str, list[float]]) -> go.Figure:
    """Acceptance per depth: the share of verify steps whose accepted path reaches depth d."""
    fig = go.Figure()
    for i, (name, rates) in enumerate(by_method.items()):
        fig.add_trace(go.Bar(x=list(range(1, len(rates) + 1)), y=rates, name=name,
                             marker_pattern=bar_pattern(i),
                             hovertemplate=t("viz.eagle.depth_hover")))
    # the legend under the plot: the methods' names with their settings are long, and at the side they squeezed the
    # bars into a strip (presentation mode: ~80 px)
    fig.update_layout(barmode="group", height=380, margin=dict(l=10, r=10, t=40, b=10), font=dict(size=14),
                      legend=dict(orientation="h", x=0, xanchor="left", y=-0.22, yanchor="top"),
                      title=t("viz.eagle.per_depth"), xaxis_title=t("viz.eagle.depth_d"),
                      yaxis=dict(title=t("viz.eagle.share"), tickformat=".0%", range=[0, 1]))
    return fig
