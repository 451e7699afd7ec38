"""Pure builders for the Beam Search page: step records -> networkx graph -> DOT text, tables."""
from __future__ import annotations

import html
import math

import networkx as nx

from ui.i18n import t

STYLE = {
    "kept": dict(color="#1c2233", fontcolor="#1c2233", penwidth="2.2", style="rounded,bold,filled", fillcolor="#e7ecff"),
    "finished": dict(color="#2b8a3e", fontcolor="#1c2233", penwidth="2.2", style="rounded,filled", fillcolor="#d3f9d8",
                     peripheries="2"),
    "length-limit": dict(color="#e67700", fontcolor="#1c2233", penwidth="2.2", style="rounded,dashed,filled",
                         fillcolor="#fff3bf"),
    "pruned": dict(color="#868e96", fontcolor="#495057", penwidth="1.2", style="rounded,dashed"),
    "off-top-k": dict(color="#adb5bd", fontcolor="#5c636a", penwidth="1", style="rounded,dotted"),
    "frontier": dict(color="#3b5bdb", fontcolor="#1c2233", penwidth="3", style="rounded,bold,filled", fillcolor="#c5d0ff"),
}


def search_graph(steps, prompt_text: str, show_off: str = "last", window: int | None = None) -> nx.DiGraph:
    """The search tree: root = the prompt; every candidate a node with its status. ``show_off`` =
    "none", "last" (only the newest step's) or "all" candidates that fell off the top-k. ``window``: draw only
    the last ``window`` steps (each hypothesis they grow from starts as a root showing its last tokens)."""
    g = nx.DiGraph()
    beam_steps = [s for s in steps if s.kind == "beam"]
    first = max(0, len(beam_steps) - window) if window else 0
    if first == 0:
        g.add_node(0, label=prompt_text, status="kept", score=0.0, tooltip=t("viz.tree.the_prompt"))
    frontier = {h.node for h in beam_steps[-1].frontier} if beam_steps else set()
    made = {}  # node -> (parent, token text, score): the whole search, to name the roots of a window
    for n, step in enumerate(beam_steps):
        last = n == len(beam_steps) - 1
        for c in step.candidates:
            if c.status == "carried":
                continue
            made.setdefault(c.node, (c.parent, c.token_text, c.score))
            if n < first:
                continue
            if c.status == "off-top-k" and (show_off == "none" or (show_off == "last" and not last)):
                continue
            if c.parent not in g:
                if n != first or c.parent not in made:
                    continue
                g.add_node(c.parent, label="…" + _tail(made, c.parent), status="kept", score=made[c.parent][2],
                           tooltip=t("viz.tree.before"), cut=True)
            status = "frontier" if c.node in frontier else c.status
            why = t("viz.tree.pruned_by", rules=", ".join(c.rules)) if c.rules else ""
            g.add_node(c.node, label=c.token_text, status=status, score=c.score, rules=c.rules,
                       tooltip=f"{c.token_text!r}: log p(token) = {c.token_logp:.3f}, score = {c.score:.3f}, "
                               f"{c.status}{why}")
            g.add_edge(c.parent, c.node, logp=c.token_logp)
    return g


def _tail(made: dict, node: int, tokens: int = 4) -> str:
    """The last ``tokens`` token texts of the hypothesis ending at ``node``."""
    out = []
    while node in made and len(out) < tokens:
        parent, text, _ = made[node]
        out.append(text)
        node = parent
    return "".join(reversed(out))


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(g: nx.DiGraph, rankdir: str = "LR") -> str:
    """DOT text for st.graphviz_chart: kept bold, frontier blue, finished green, pruned grey dashed
    with the rule, fallen-off dotted."""
    lines = [f"digraph beam {{ rankdir={rankdir}; bgcolor=\"transparent\"; nodesep=0.12; ranksep=0.35;",
             '  node [shape=box, fontname="Helvetica", fontsize=14, margin="0.08,0.04"];',
             '  edge [color="#adb5bd", arrowsize=0.6, fontname="Helvetica", fontsize=10];']
    for node, d in g.nodes(data=True):
        style = STYLE.get(d["status"], STYLE["kept"])
        label = html.escape(d["label"][-40:]) if node == 0 or d.get("cut") else html.escape(d["label"])
        sub = t("viz.tree.prompt") if node == 0 else f"{d['score']:.2f}"
        if d.get("rules"):
            sub += " ✂ " + ",".join(d["rules"])
        attrs = ", ".join(f'{k}="{v}"' for k, v in style.items())
        lines.append(f"  n{node} [label=<{label}<BR/><FONT POINT-SIZE=\"11\">{html.escape(sub)}</FONT>>, "
                     f"tooltip={_q(d['tooltip'])}, {attrs}];")
    for a, b in g.edges():
        status = g.nodes[b]["status"]
        color = "#1c2233" if status in ("kept", "frontier", "finished", "length-limit") else "#dee2e6"
        lines.append(f'  n{a} -> n{b} [color="{color}"];')
    lines.append("}")
    return "\n".join(lines)


def frontier_rows(step, lm_decode) -> list[dict]:
    """The running beams after a step, best first, as table rows."""
    rows = []
    for rank, h in enumerate(step.frontier):
        rows.append({"rank": rank + 1, "hypothesis": lm_decode(h.tokens), "score (log p)": round(h.score, 4),
                     "P = exp(score)": f"{math.exp(h.score):.2e}", "ends in EOS": h.finished})
    return rows


def candidate_rows(step) -> list[dict]:
    return [{"rank": c.rank + 1, "token": c.token_text, "log p(token)": round(c.token_logp, 4),
             "score": round(c.score, 4), "status": c.status, "pruned by": ", ".join(c.rules)} for c in step.candidates
            if c.status != "carried"]


def step_rows(steps) -> list[dict]:
    """Every candidate of every step so far, one row each with its step (the step-through's CSV); a sampled
    prefix step is one row, the token it drew."""
    rows = []
    for s in steps:
        if s.kind == "sample":
            rows.append({"step": s.index + 1, "rank": 1, "token": s.sample.token_text,
                         "log p(token)": round(math.log(s.sample.prob), 4) if s.sample.prob > 0 else None,
                         "status": "sampled prefix"})
        rows.extend({"step": s.index + 1, **row} for row in candidate_rows(s))
    return rows


def nbest_rows(hyps, lm_decode, normalised: bool, eos_ids=()) -> list[dict]:
    """The n-best list of a finished search (or a finished set); "ends" says how each hypothesis stopped: by
    EOS, or cut by the length limit."""
    key = "score / len^lp" if normalised else "score (log p)"
    return [{"rank": i + 1, "text": lm_decode(h.tokens), key: round(h.score, 4), "tokens": len(h.tokens),
             "ends": "EOS" if h.tokens and h.tokens[-1] in eos_ids else "length limit"}
            for i, h in enumerate(hyps)]


SPOT_X = 0.02  # points this close in x (the x values are shares of a few prompts: 0, 25%, ... apart) ...
SPOT_Y = 0.08  # ... and within this share of the y axis's span are one spot: their labels would overprint


def _combo(row) -> bool:
    """A sweep row that sets more than one rule (the looser combination of all four)."""
    return sum(v is not None for v in row.settings.values()) > 1


def spot_labels(rows) -> tuple[dict, dict]:
    """One label per spot of the tradeoff chart: settings that land on or near one point (several thresholds that
    prune little sit at 100% / 0-5%) would print their labels over each other, so the highest one there names itself
    and how many more share the spot ("rp 0.6 (+2)"), the others print nothing; every point's hover lists all of
    them. Near: within ``SPOT_X`` in x and, chained from the one above, ``SPOT_Y`` of the y span (at least 10%) in y.
    Returns ({id(row): text}, {id(row): hover}) for the rows that are not the paper's (its star carries no label)."""
    shown = sorted((r for r in rows if not r.paper), key=lambda r: (r.best_unchanged, -r.expansions_saved))
    ys = [r.expansions_saved for r in shown] + [0.0]
    tol = SPOT_Y * max(0.1, max(ys) - min(ys))
    spots: list[list] = []
    for r in shown:
        last = spots[-1][-1] if spots else None
        if last is not None and abs(r.best_unchanged - last.best_unchanged) <= SPOT_X \
                and abs(last.expansions_saved - r.expansions_saved) <= tol:
            spots[-1].append(r)
        else:
            spots.append([r])
    texts, hovers = {}, {}
    for same in spots:
        head = same[0]
        name = t("viz.beam.combo") if _combo(head) else head.label
        hover = "<br>".join(r.label for r in same)
        for i, r in enumerate(same):
            texts[id(r)] = "" if i else name + (f" (+{len(same) - 1})" if len(same) > 1 else "")
            hovers[id(r)] = hover
    return texts, hovers


def pruning_tradeoff_figure(sweep, fidelity: float = 0.9):
    """Saving against fidelity, one point per pruning setting; the paper's point and the recommendation marked."""
    import plotly.graph_objects as go

    fig = go.Figure()
    rec = sweep.recommendation["settings"] if sweep.recommendation else None
    texts, hovers = spot_labels(sweep.rows)
    papers = [r for r in sweep.rows if r.paper]
    for kind, color in (("rp", "#3b5bdb"), ("ap", "#e8590c"), ("rpl", "#2b8a3e"), ("mc", "#9c36b5"), ("combo", "#495057")):
        rows = [r for r in sweep.rows if not r.paper and _combo(r) == (kind == "combo")
                and (kind == "combo" or r.settings[kind] is not None)]
        if rows:  # one label per spot (``spot_labels``), above its highest point; left of a ring or star
            combo = kind == "combo"
            ringed = [r.settings == rec or any(abs(p.best_unchanged - r.best_unchanged) <= SPOT_X and
                                               abs(p.expansions_saved - r.expansions_saved) <= 0.03 for p in papers)
                      for r in rows]
            fig.add_scatter(x=[r.best_unchanged for r in rows], y=[r.expansions_saved for r in rows], mode="markers+text",
                            text=[texts[id(r)] + ("\u2003" * 2 if ring and texts[id(r)] else "")  # clear of the ring
                                  for r, ring in zip(rows, ringed)], hovertext=[hovers[id(r)] for r in rows],
                            textposition=["middle left" if ring else "top center" for ring in ringed],
                            name=t("viz.beam.combo") if combo else kind,
                            marker=dict(size=11, color=color), textfont=dict(size=11))
    for r in sweep.rows:
        if r.paper:
            fig.add_scatter(x=[r.best_unchanged], y=[r.expansions_saved], mode="markers", name=t("viz.beam.paper"),
                            hovertext=[r.label], marker=dict(symbol="star", size=20, color="#c92a2a"))
        if rec is not None and r.settings == rec:
            fig.add_scatter(x=[r.best_unchanged], y=[r.expansions_saved], mode="markers",
                            name=t("viz.beam.recommended"),
                            marker=dict(symbol="circle-open", size=24, color="#1c2233", line=dict(width=3)))
    fig.add_vline(x=fidelity, line=dict(color="#adb5bd", dash="dash"),
                  annotation_text=t("viz.beam.unchanged", fidelity=fidelity), annotation_position="bottom left")
    fig.update_layout(height=460, font=dict(size=14), plot_bgcolor="white", margin=dict(l=10, r=10, t=50, b=10),
                      title=dict(text=t("viz.beam.tradeoff"), x=0), legend=dict(orientation="h", y=-0.2))
    fig.update_xaxes(title=t("viz.beam.x"), tickformat=".0%", range=[-0.05, 1.08], gridcolor="#eef0f5")
    fig.update_yaxes(title=t("viz.beam.y"), tickformat=".0%", gridcolor="#eef0f5")
    return fig


def pruning_rows(sweep) -> list[dict]:
    return [{"setting": r.label + (" (paper)" if r.paper else ""), "expansions saved": round(r.expansions_saved, 3),
             "time saved": round(r.time_saved, 3), "best unchanged": round(r.best_unchanged, 3),
             "score lost": round(r.score_lost, 3)} for r in sweep.rows]
