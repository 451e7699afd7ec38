"""Take a run out of the app: the step-through's whole run as JSON (decoding_core/export.py's schema; the
command line's `replay FILE` decodes it again and checks the tokens), its steps and other tables as CSV, every
figure as PNG or SVG and every tree as DOT or SVG (the bytes come from viz/export.py, made when clicked)."""
from __future__ import annotations

import json
from functools import partial

import streamlit as st

from decoding_core.export import run_record
from ui.i18n import t
from viz.export import (FORMATS, PNG_SCALE, WIDTH, ExportError, dot_svg, dot_with_key, figure_bytes, figure_problem,
                        rows_csv, svg_problem)

_FAILED: dict[str, str] = {}  # why the last export of a kind ("figure", "tree") failed here; a success clears it


def session_model() -> tuple[str, str, str]:
    """The model, device and dtype the session asked for, as a downloaded file records them."""
    ss = st.session_state
    return ss.get("model", "embedded"), ss.get("device", "auto"), ss.get("dtype", "float32")


def download_run(name: str, lab, strategy, run, decoder, steps: list[dict] | None = None,
                 steps_help: str | None = None) -> None:
    """A download button for the run so far (built when clicked, not on every rerun) and, given ``steps`` (table
    rows), a CSV of them beside it."""
    model, device, dtype = session_model()

    def make() -> str:
        return json.dumps(run_record(lab.lm, strategy, run, decoder, lab.prompt, lab.chat, model, device, dtype))

    with st.container(horizontal=True):
        st.download_button(t("export.run"), data=make, file_name=f"decoding-lab-{name}.json",
                           mime="application/json", on_click="ignore", icon=":material/download:", key=f"_dl_{name}",
                           help=t("export.run.help"))
        if steps is not None:
            download_rows(t("export.steps"), steps, f"{name}-steps", steps_help)


def download_json(label: str, make, name: str, help: str | None = None) -> None:
    """A "<label> (JSON)" button: ``make()`` (a JSON-ready dict) written when clicked."""
    st.download_button(t("export.json", label=label), data=lambda: json.dumps(make(), ensure_ascii=False),
                       file_name=f"decoding-lab-{name}.json", mime="application/json", on_click="ignore",
                       icon=":material/download:", key=f"_json_{name}", help=help)


def download_rows(label: str, rows: list[dict], name: str, help: str | None = None) -> None:
    """A "<label> (CSV)" button for table rows, written when clicked."""
    st.download_button(t("export.csv", label=label), data=lambda: rows_csv(rows), file_name=f"decoding-lab-{name}.csv",
                       mime="text/csv", on_click="ignore", icon=":material/table_view:", key=f"_csv_{name}",
                       help=help or t("export.csv.help"))


def _remembering(kind: str, make):
    """``make`` for a deferred download that remembers why it failed: the button itself can only say "failed",
    so the next run of the page shows the reason."""
    def run() -> bytes:
        try:
            data = make()
        except ExportError as exc:
            _FAILED[kind] = str(exc)
            raise
        _FAILED.pop(kind, None)
        return data
    return run


def _last_failure(kind: str) -> str:
    return t("export.failed", why=_FAILED[kind]) if kind in _FAILED else ""


def figure_downloads(where, fig, name: str) -> None:
    """Under a chart: a small "Download figure" popover with PNG and SVG, rendered on the server when clicked
    (or, without a Chromium there, what is missing and the browser's own PNG)."""
    with where.popover(t("export.figure"), icon=":material/download:", type="tertiary", key=f"_fig_{name}"):
        problem = figure_problem()
        if problem:
            st.caption(problem + t("export.meanwhile"))
            return
        with st.container(horizontal=True):
            for fmt, mime in FORMATS.items():
                st.download_button(fmt.upper(), data=_remembering("figure", partial(figure_bytes, fig, fmt)),
                                   file_name=f"decoding-lab-{name}.{fmt}", mime=mime, on_click="ignore",
                                   key=f"_dl_fig_{name}_{fmt}")
        st.caption(t("export.figure.note", width=WIDTH, scale=PNG_SCALE) + _last_failure("figure")
                   + (t("export.meanwhile") if "figure" in _FAILED else ""))


def tree_downloads(dot: str, name: str, key: str | None = None) -> None:
    """Under a tree: a small "Download tree" popover with its DOT source and an SVG laid out by graphviz (the SVG
    says what it needs where graphviz is missing); ``key`` (the caption saying what the styles mean) is written
    under the downloaded tree."""
    if key:
        dot = dot_with_key(dot, key)
    with st.popover(t("export.tree"), icon=":material/download:", type="tertiary", key=f"_tree_{name}"):
        problem = svg_problem()
        with st.container(horizontal=True):
            st.download_button("DOT", data=dot, file_name=f"decoding-lab-{name}.dot", mime="text/vnd.graphviz",
                               on_click="ignore", key=f"_dl_tree_{name}_dot")
            st.download_button("SVG", data=_remembering("tree", partial(dot_svg, dot)),
                               file_name=f"decoding-lab-{name}.svg", mime=FORMATS["svg"], on_click="ignore",
                               key=f"_dl_tree_{name}_svg", disabled=problem is not None, help=problem)
        st.caption(problem or t("export.tree.note") + _last_failure("tree"))


def download_comparison(lab, columns, run, seeds: int, prompt_ids) -> None:
    """The Compare page's columns as one JSON file (decoding-lab/compare/1: ``replay FILE`` decodes every column
    again); ``columns``: (column number, strategy, StrategyRun, state, the run settings it ran with)."""
    from decoding_core.export import comparison_record

    def make() -> str:
        return json.dumps(comparison_record(lab.lm, columns, run, seeds, prompt_ids, lab.prompt, lab.chat,
                                            *session_model()))

    st.download_button(t("export.comparison"), data=make, file_name="decoding-lab-compare.json",
                       mime="application/json", on_click="ignore", icon=":material/download:", key="_dl_compare",
                       help=t("export.comparison.help"))
