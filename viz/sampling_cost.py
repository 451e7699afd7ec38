"""The cost of sampling: measured times against n and k on log-log axes, theory slopes beside them."""
from __future__ import annotations

import plotly.graph_objects as go

from decoding_core.sampling_cost import COMPLEXITY, COST
from ui.i18n import t
from viz.sampling import bar_pattern

COLORS = {"linear-scan": "#868e96", "binary-search": "#3b5bdb", "alias": "#2b8a3e", "multinomial": "#9c36b5",
          "gumbel-max": "#e8590c", "exp-race": "#c92a2a"}
# a second cue beside the colour (Gumbel-max's orange and exp-race's red read alike to a red-green colour-blind
# student, and sit on one another where their times agree): a marker shape per method (bars: a fill pattern)
SYMBOLS = {"linear-scan": "circle", "binary-search": "square", "alias": "diamond", "multinomial": "triangle-up",
           "gumbel-max": "x", "exp-race": "circle-open"}
SIZES = {"exp-race": 19}  # a ring around Gumbel-max's cross: both read where their times agree (else 11 px)


def _loglog(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    fig.update_layout(title=dict(text=title, x=0, font=dict(size=15)), height=420, font=dict(size=14),
                      margin=dict(l=10, r=10, t=50, b=10), plot_bgcolor="white",
                      legend=dict(orientation="h", y=-0.22))
    fig.update_xaxes(type="log", title=x, gridcolor="#eef0f5", dtick=1)  # decades only: the minor digits were
    fig.update_yaxes(type="log", title=y, gridcolor="#eef0f5", dtick=1)  # unreadable on a projector
    return fig


def _curves(fig: go.Figure, points: dict, theory) -> None:
    """points: method -> [(x, seconds)]; theory(method, x) -> operations (anchored at the last point)."""
    for m, pts in points.items():
        if not pts:
            continue
        xs, ys = zip(*pts)
        fig.add_scatter(x=xs, y=ys, mode="lines+markers", name=f"{t('cell.' + m)} {COMPLEXITY[m]}",
                        line=dict(color=COLORS[m], width=3),
                        marker=dict(size=SIZES.get(m, 11), symbol=SYMBOLS[m], line=dict(width=2, color=COLORS[m])))
        scale = ys[-1] / theory(m, xs[-1])
        grid = sorted({*xs, *(x for p in points.values() for x, _ in p)})
        fig.add_scatter(x=grid, y=[scale * theory(m, x) for x in grid], mode="lines", showlegend=False,
                        line=dict(color=COLORS[m], dash="dot", width=1), hoverinfo="skip")


def cost_vs_n_figure(rec, k: int) -> go.Figure:
    """n draws from ONE distribution of k categories: seconds against n."""
    points = {m: [(r.n, r.seconds) for r in rec.rows if r.method == m and r.regime == "one" and r.k == k
                  and r.seconds] for m in COMPLEXITY}
    fig = go.Figure()
    _curves(fig, points, lambda m, n: COST[m](n, k))
    return _loglog(fig, t("viz.cost.vs_n", k=k), t("viz.cost.draws_n"), t("viz.seconds"))


def cost_vs_k_figure(rec, n: int) -> go.Figure:
    """n draws from one distribution: seconds against the number of categories k."""
    points = {m: [(r.k, r.seconds) for r in rec.rows if r.method == m and r.regime == "one" and r.n == n
                  and r.seconds] for m in COMPLEXITY}
    fig = go.Figure()
    _curves(fig, points, lambda m, k: COST[m](n, k))
    return _loglog(fig, t("viz.cost.vs_k", n=n), t("viz.cost.categories_k"), t("viz.seconds"))


def decoding_figure(rec, k: int) -> go.Figure:
    """One draw from each of n NEW distributions (decoding): seconds per distribution, by batch size."""
    fig = go.Figure()
    batches = sorted({r.batch for r in rec.rows if r.regime == "new"})
    for i, m in enumerate(COMPLEXITY):
        ys = []
        for b in batches:
            r = next((r for r in rec.rows if r.regime == "new" and r.method == m and r.k == k and r.batch == b), None)
            ys.append(r.seconds / r.n * 1e6 if r and r.seconds else None)
        fig.add_bar(x=[t("viz.cost.batch", b=b) for b in batches], y=ys, name=t(f"cell.{m}"), marker_color=COLORS[m],
                    marker_pattern=bar_pattern(i))
    fig.update_layout(barmode="group", height=400, font=dict(size=14), plot_bgcolor="white",
                      margin=dict(l=10, r=10, t=50, b=10), legend=dict(orientation="h", y=-0.2),
                      title=dict(text=t("viz.cost.decoding", k=k), x=0))
    fig.update_yaxes(type="log", title=t("viz.cost.us"), gridcolor="#eef0f5", dtick=1)
    return fig


def skipped_note(rec, regime: str, k: int | None = None, n: int | None = None) -> str | None:
    """The points of one chart that were skipped (their predicted time was over the budget), in words, or None:
    a chart has no bar or dot for them, so the caption under it names them."""
    points = [r for r in rec.rows if r.seconds is None and r.regime == regime and (k is None or r.k == k)
              and (n is None or r.n == n)]
    if not points:
        return None
    where = {"one": lambda r: f"n = {r.n:,}" if n is None else f"k = {r.k:,}",
             "new": lambda r: t("viz.cost.batch", b=r.batch)}
    return t("viz.cost.skipped", points="; ".join(f"{t('cell.' + r.method)} {where[regime](r)}" for r in points))


def cost_rows(rec, words: bool = False) -> list[dict]:
    """Every measured point: method, regime, k, n, batch, seconds and microseconds per draw to 4 significant digits
    (and why a point was skipped); ``words`` (the CSV) adds the regime in English words beside its code."""
    said = {"one": "n draws from one distribution", "new": "one draw from each of n new distributions"}
    sig = lambda x: None if x is None else float(f"{x:.4g}")  # noqa: E731  (2.74e-05, not 2.7399999453336932e-05)
    return [{"method": r.method, "regime": r.regime, **({"regime in words": said.get(r.regime, r.regime)} if words
                                                         else {}),
             "k": r.k, "n": r.n, "batch": r.batch, "seconds": sig(r.seconds),
             "µs per draw": sig(None if r.seconds is None else 1e6 * r.seconds / r.n), "note": r.note}
            for r in rec.rows]


def cost_settings(rec, budget: float, seed: int, model: str, device: str, dtype: str) -> dict:
    """The page's measurement in the settings ``python -m decoding_core study sampling-cost`` prints: the category
    counts k and draw counts n it measured (as its --k / --n read them), both regimes, the budget per point."""
    ks, ns = (sorted({getattr(r, f) for r in rec.rows if r.regime == "one"}) for f in ("k", "n"))
    return {"model": model, "device": device, "dtype": dtype, "seed": seed,
            "study": {"k": ",".join(map(str, ks)), "n": ",".join(map(str, ns)), "regime": "both", "budget": budget}}


def exactness_rows(rec) -> list[dict]:
    """Each method's chi-square test against the exact softmax."""
    return [{"method": e.method, "regime": e.regime, "draws": e.draws, "p-value": round(e.p_value, 4)}
            for e in rec.exactness]
