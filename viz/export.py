"""What a page draws, as the bytes of a file: figures as PNG or SVG, trees as SVG, tables as CSV. Pure; no
streamlit (ui/export.py puts these behind download buttons).

    figure_bytes(fig, "svg")   # kaleido renders the plotly figure in a Chromium already on this machine
    dot_svg(dot_text)          # graphviz's `dot` lays the DOT graph out
    rows_csv(rows)             # table rows (a list of dicts) as UTF-8 CSV

A browser is never downloaded: figure export uses a Chromium or Chrome that is installed (or BROWSER_PATH),
and says what is missing otherwise (``figure_problem``, ``svg_problem``).
"""
from __future__ import annotations

import csv
import importlib.util
import io
import os
import shutil
import subprocess

from ui.i18n import t

FORMATS = {"png": "image/png", "svg": "image/svg+xml"}
WIDTH = 1280      # px, for a figure that sets no width of its own (the page stretches it)
HEIGHT = 600      # px, for a figure that sets no height
PNG_SCALE = 2     # PNG pixels per px: sharp on a slide or a printed page
TIMEOUT_S = 90    # one render (kaleido) or one layout (dot)
# plotly's own default family, then Noto Sans CJK SC (Debian's fonts-noto-cjk) for the Chinese pages' titles, axes
# and legends: without it, Chromium may draw CJK characters as empty boxes in an exported figure
FONT_FAMILY = '"Open Sans", verdana, arial, "Noto Sans CJK SC", "Noto Sans CJK", sans-serif'


class ExportError(RuntimeError):
    """An export that cannot be made here; the message says why (and what would fix it)."""


def chromium() -> str | None:
    """The Chromium or Chrome kaleido would use (BROWSER_PATH, then PATH and the usual install places), or None.
    Only looks: this never downloads a browser."""
    try:
        from choreographer.browsers.chromium import Chromium
    except ImportError:  # kaleido (and its choreographer) not installed
        return None
    path = Chromium.find_browser(skip_local=False)
    return path if path and os.access(path, os.X_OK) else None


def figure_problem() -> str | None:
    """Why figures cannot be exported on this machine, or None when they can."""
    if importlib.util.find_spec("kaleido") is None:
        return t("export.needs_kaleido")
    if chromium() is None:
        return t("export.needs_chromium")
    return None


def figure_bytes(fig, fmt: str, width: int = WIDTH, scale: float = PNG_SCALE) -> bytes:
    """The plotly figure as PNG or SVG, rendered by kaleido: ``width`` px wide unless the figure sets its own
    width, the figure's own height (else HEIGHT), a PNG at ``scale`` pixels per px. No MathJax (the app's
    figures have no LaTeX, and it would be fetched from a CDN). Raises ExportError when it cannot be made."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    problem = figure_problem()
    if problem:
        raise ExportError(problem)
    import kaleido
    import plotly.graph_objects as go

    fig = go.Figure(fig)  # a copy: the page's figure keeps its own font
    family = fig.layout.font.family
    fig.update_layout(font_family=f"{family}, {FONT_FAMILY}" if family else FONT_FAMILY)
    # The page's charts keep 10 px margins: in the browser Streamlit's theme grows them to fit the tick labels and
    # axis titles. Its plotly template (the default once streamlit is imported) has no automargin, so kaleido kept
    # them: an exported axis lost the first digits of its labels ("2" for "1.2") and its title sat on the ticks.
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    opts = {"format": fmt, "width": fig.layout.width or width, "height": fig.layout.height or HEIGHT,
            "scale": scale if fmt == "png" else 1}
    try:
        return kaleido.calc_fig_sync(fig, opts=opts, kopts={"path": chromium(), "mathjax": False,
                                                            "timeout": TIMEOUT_S})
    except Exception as exc:  # a browser that does not start, a render that times out: say so, never crash
        raise ExportError(f"kaleido could not render the figure ({type(exc).__name__}: {exc})") from exc


def svg_problem() -> str | None:
    """Why trees cannot be turned into SVG here (graphviz's `dot` is missing), or None when they can."""
    if shutil.which("dot") is None:
        return t("export.needs_graphviz")
    return None


def dot_with_key(dot: str, key: str, width: int = 110) -> str:
    """The DOT graph with ``key`` (what its styles mean: the page's caption under the tree) as a label under it,
    left-aligned and wrapped at ``width`` characters, so that a downloaded tree explains itself."""
    from viz.text import wrap_text

    plain = key.replace("**", "").replace("*", "").replace("\\", "\\\\").replace('"', '\\"')
    lines = "".join(line + "\\l" for line in wrap_text(plain, width))  # \l: end a left-justified line; CJK: 2
    cut = dot.index("{") + 1
    return (dot[:cut] + f'\n  graph [label="{lines}", labelloc=b, labeljust=l, fontsize=13, fontname="Helvetica"];'
            + dot[cut:])


def dot_svg(dot: str) -> bytes:
    """The DOT graph laid out by graphviz's ``dot -Tsvg``. Raises ExportError when dot is missing or fails."""
    exe = shutil.which("dot")
    if exe is None:
        raise ExportError(svg_problem())
    try:
        proc = subprocess.run([exe, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise ExportError(f"graphviz's dot took longer than {TIMEOUT_S} s") from exc
    if proc.returncode != 0:
        why = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ExportError(f"graphviz's dot failed: {why[0] if why else f'exit status {proc.returncode}'}")
    return proc.stdout


def rows_csv(rows: list[dict]) -> bytes:
    """Table rows as UTF-8 CSV with a byte-order mark (so a spreadsheet opened by double-click reads τ, ↵ and Chinese
    as written, not as its local code page): one column per key (in first-seen order), an empty cell where a row has
    none."""
    fields = list(dict.fromkeys(k for row in rows for k in row))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode("utf-8-sig")
