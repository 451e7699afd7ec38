"""The shared sidebar (model, device, dtype, prompt, chat toggle, seed) and the cached model.

Pages call ``lab()`` to get a ``Lab``: the loaded model and the encoded prompt (or the reason there
is none). A model that cannot load shows its message and the app stays on the embedded default.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html import escape

import streamlit as st

from decoding_core.fastpath import warm_up
from decoding_core.models import EMBEDDED, LoadedModel, ModelLoadError, convert_embedded, embedded_cache_dir, load_model
from decoding_core.settings import BACKENDS, DEVICES, DTYPES, RunSettings
from decoding_core.messages import Msg
from ui import i18n, params
from ui.controls import Controls, Param
from ui.i18n import err_text, t
from ui.notebooks import notebook_note
from ui.texts import look_first
from viz.text import _columns, wrap_text  # pure: the downloaded trees' key wraps with them too

DEFAULT_PROMPT = "Write a short poem about the sea."
LINK_MAX = 8000  # URL-encoded characters of prompt that the link carries (a space is 3: ~5,500 characters of English
                 # text, ~900 Chinese)


@dataclass(frozen=True)
class Lab:
    lm: LoadedModel
    prompt: str
    chat: bool
    seed: int
    prompt_ids: list[int] | None
    prompt_error: str | None
    backend: str = "eager"   # the target forward for greedy, sampling and speculative decoding

    @property
    def key(self) -> tuple:
        """What every result on a page depends on: the model, device, dtype, prompt, seed and backend."""
        return (self.lm.name, str(self.lm.device), str(self.lm.dtype), tuple(self.prompt_ids or ()), self.seed,
                self.backend)

    def run(self, max_new_tokens: int, stop_at_eos: bool = True, backend: str | None = None) -> RunSettings:
        """The run settings of a decoding on this page (the sidebar's seed and backend); a clear stop when the
        prompt and ``max_new_tokens`` do not fit in the model's context together."""
        context = getattr(self.lm.model.config, "max_position_embeddings", None)
        if context and self.prompt_ids and len(self.prompt_ids) + int(max_new_tokens) > context:
            st.error(t("err.no_room", n=len(self.prompt_ids), new=int(max_new_tokens), context=context))
            st.stop()
        return RunSettings(int(max_new_tokens), self.seed, backend or self.backend, stop_at_eos)


@st.cache_resource(show_spinner=False, max_entries=3)
def _compiled(_lm: LoadedModel, key: tuple) -> str | None:
    """Compile the decode pass once per model; returns why compile fell back (None: it did not)."""
    return warm_up(_lm, "compiled").fallback


def compile_once(lm: LoadedModel) -> str:
    """The backend to use after compiling (shown with a status box the first time)."""
    key = (lm.name, str(lm.device), str(lm.dtype))
    if not st.session_state.get("_compiled_" + repr(key)):
        with st.status(t("status.compiling")) as status:
            fallback = _compiled(lm, key)
            status.update(label=t("status.compiled") if not fallback else t("status.compile_fallback"),
                          state="complete", expanded=False)
        st.session_state["_compiled_" + repr(key)] = True
    fallback = _compiled(lm, key)
    if fallback:
        st.sidebar.warning(t("warn.compile_fallback", why=fallback))
        return "static"
    return "compiled"


@st.cache_resource(show_spinner=False, max_entries=3)
def _cached_model(model: str, device: str, dtype: str) -> LoadedModel:
    return load_model(model, device, dtype)


def get_model(model: str, device: str, dtype: str) -> LoadedModel:
    """Load (once per process) with a visible progress indicator on the first conversion."""
    if model == EMBEDDED and not (embedded_cache_dir() / "model.safetensors").exists():
        with st.status(t("status.converting"), expanded=True) as status:
            bar = st.progress(0.0)
            convert_embedded(progress=lambda msg, frac: bar.progress(min(frac, 1.0), text=msg))
            status.update(label=t("status.converted"), state="complete", expanded=False)
    with st.spinner(t("status.loading", model=model, device=device, dtype=dtype)):
        return _cached_model(model, device, dtype)


SIDEBAR = Controls([
    Param("lang", i18n.DEFAULT, "p.lang", choices=i18n.LANGS, labels={k: f"lang.{k}" for k in i18n.LANGS}),
    Param("model", EMBEDDED, "p.model", help="p.model.help"),
    Param("device", "auto", "p.device", choices=DEVICES, help="p.device.help"),
    Param("dtype", "float32", "p.dtype", choices=DTYPES),
    Param("prompt", DEFAULT_PROMPT, "p.prompt", widget="textarea", link_max=LINK_MAX),
    Param("chat", True, "p.chat", help="p.chat.help"),
    Param("seed", 0, "p.seed", 0, 2**31 - 1, 1, widget="number",
          help="p.seed.help"),
    Param("backend", "eager", "p.backend", choices=BACKENDS, help="p.backend.help"),
    Param("present", False, "p.present",
          help="p.present.help"),
])
# Every page: the tree pictures' text at the size graphviz laid it out for. Streamlit's chart styles set every element
# in a graphviz chart to 9.6 px ("& *"), whatever the DOT asked for: the boxes were laid out for 14-20 pt text and the
# text drawn at 9.6 (12.8 px on screen), also in the presentation mode. A rule with an attribute selector outranks
# that one. A tree wider than the page scrolls sideways at its own size (shrunk to fit, a 16-step search read at 5 px).
GRAPH_TEXT_CSS = "<style>\n" + "\n".join(
    f'[data-testid="stGraphVizChart"] svg text[font-size="{size}.00"] {{ font-size: {size}px; }}' for size in range(8, 21)
) + """
div[data-testid="stGraphVizChart"] { overflow-x: auto; }
div[data-testid="stGraphVizChart"] svg { max-width: none; }
[data-testid="stCaptionContainer"] { opacity: 1 !important; color: #4f5566; }
:is(button, a, input, [role="checkbox"], [role="slider"]):focus-visible {
  outline: 3px solid #3b5bdb !important; outline-offset: 2px; }
</style>"""  # The captions (what a chart shows, "Not measured…") in #4f5566, 7.5:1 on white: Streamlit drew them in the
# text colour at opacity 0.6 (#777a85, 4.3:1), less on a projector. The keyboard's focus a solid ring: Streamlit's
# half-transparent halo was ~2:1 against white.
PRESENTATION_CSS = """<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 21px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.15rem; line-height: 1.5; }
[data-testid="stCaptionContainer"] { font-size: 1.0rem; }
[data-testid="stMainBlockContainer"] { padding-left: 1.5rem !important; padding-right: 1.5rem !important; }
[data-testid="stMetricValue"] { font-size: 1.7rem; }
[data-testid="stMetricValue"] p { font-size: inherit !important; }
[data-testid="stMain"] :is([data-testid="stMetricLabel"] p, [data-testid="stWidgetLabel"] p, [data-testid="stCheckbox"] label p)
  { font-size: 1rem !important; }
[data-testid="stMetricLabel"] *, [data-testid="stWidgetLabel"] *, [data-testid="stCheckbox"] label * {
  word-break: normal !important; overflow-wrap: break-word !important; }
[data-testid="stTable"] table { font-size: 1.0rem; width: max-content !important; table-layout: auto !important; }
[data-testid="stTable"] td, [data-testid="stTable"] td * { white-space: nowrap !important; }
[data-testid="stTable"] th, [data-testid="stTable"] th * { white-space: normal !important; }
[data-testid="stTable"] tr > :first-child { position: sticky; left: 0; z-index: 1; background: #fff; }
[data-testid="stTable"] thead tr > :first-child { background: #f8f9fb; }
[data-testid="stTable"] div { scrollbar-width: auto !important; scrollbar-color: #8a93a6 #eef0f4 !important; }
h1 { font-size: 3rem !important; } h2 { font-size: 2.1rem !important; } h3 { font-size: 1.6rem !important; }
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * { white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important; }
button p { white-space: normal !important; overflow-wrap: anywhere; }
[data-testid="stSidebarNavLink"] { height: auto !important; } [data-testid="stSidebarNavLink"] > span:last-child {
  min-width: 0; } [data-testid="stSidebarNavLink"] > span:first-child { flex-shrink: 0; }
[data-testid="stSidebarNavLink"] p { font-size: 1rem !important; }
[data-testid="stSidebarNav"] span, [data-testid="stSidebarNavLink"] [data-testid="stMarkdownContainer"],
[data-testid="stSidebarNavLink"] p {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important; height: auto !important; }
[data-testid="stPageLink-NavLink"] span, [data-testid="stPageLink-NavLink"] p { white-space: normal !important;
  overflow: visible !important; text-overflow: clip !important; }
[data-testid="stMarkdownContainer"] td:nth-child(-n+2) { white-space: nowrap; }
.katex-display { overflow-x: auto; overflow-y: hidden; } .katex-display > .katex { font-size: 0.9em !important; }
[data-testid="stCheckbox"] label * { white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important; }
[data-testid="stSidebar"] [data-testid="stHorizontalBlock"] [data-testid="stSelectbox"] input {
  font-size: 0.7rem !important; padding-left: 0.3rem !important; padding-right: 0 !important; }
</style>"""  # Why the rules beyond the type sizes: at this size "Pin this run as A" read "Pin this r…", a metric
# "Tokens per target f…", the page list "Speculative de…" (then, with the text allowed to wrap, it ran past its highlight
# and squeezed its icon), Home's links "Open th", a switch "Relativ…" (Chinese: "自…"), the sidebar's dtype "float3".
# The page's side margins (105 px each at this size) narrowed the columns until labels broke inside words ("Hypothese /
# s fed", "Absolut / e ap": the markdown's word-break, and a label's paragraph took the body's 1.15rem); the metric's
# value is a markdown paragraph too: it read at body size, smaller than without the mode. Trees: tree_chart. Home's
# summary table (markdown) broke its short Chinese cells inside words ("高效采/样"): its first two columns stay whole.


def lab() -> Lab:
    """Render the shared sidebar and return what the pages need (the language is seeded by ui.app.main)."""
    SIDEBAR.seed()
    ss = st.session_state
    failed = ss.pop("_model_failed", None)  # set on the run that fell back: the bad id is gone from here on
    if failed:
        ss["model"] = EMBEDDED
        st.query_params["model"] = EMBEDDED
    sb = st.sidebar
    SIDEBAR.show("lang", sb)
    sb.markdown(t("sidebar.header"))
    SIDEBAR.show("model", sb)
    c1, c2 = sb.columns(2)
    SIDEBAR.show("device", c1)
    SIDEBAR.show("dtype", c2)
    SIDEBAR.show("prompt", sb)
    if not SIDEBAR.in_link("prompt"):
        sb.caption(t("sidebar.prompt_not_in_link", n=len(ss.prompt), max=LINK_MAX))
    SIDEBAR.show("chat", sb)
    SIDEBAR.show("seed", sb)
    SIDEBAR.show("backend", sb)
    SIDEBAR.show("present", sb)
    SIDEBAR.sync()
    with sb:
        copy_link_button()
    st.html(GRAPH_TEXT_CSS)
    if ss.present:
        st.html(PRESENTATION_CSS)

    model, device, dtype = st.session_state.model.strip() or EMBEDDED, st.session_state.device, st.session_state.dtype
    try:
        lm = get_model(model, device, dtype)
    except ModelLoadError as exc:
        if model == EMBEDDED:  # the default itself is missing: nothing to show
            st.error(t("err.embedded_failed", why=err_text(exc)))
            st.stop()
        ss["_model_failed"] = t("err.model_failed", model=model, why=err_text(exc))
        st.rerun()  # once: the next run resets the box to the embedded model and says why, one time
    if failed:
        sb.error(failed)
        params.warn(failed)
    sb.caption(t("sidebar.loaded", name=lm.name, device=lm.device.type, dtype=str(lm.dtype).replace("torch.", ""),
                 vocab=lm.vocab_size, load_s=lm.load_s))
    backend = compile_once(lm) if st.session_state.backend == "compiled" else st.session_state.backend
    prompt, chat = st.session_state.prompt, st.session_state.chat
    ids, err = None, None
    try:
        ids = lm.encode(prompt, chat=chat)
        context = getattr(lm.model.config, "max_position_embeddings", None)
        sb.caption(t("sidebar.prompt_tokens", n=len(ids))
                   + (t("sidebar.prompt_share", share=len(ids) / context, context=context) if context else ""))
        if context and len(ids) >= context:
            raise ValueError(t("err.prompt_too_long", n=len(ids), context=context))
    except ValueError as exc:
        ids = None
        err = err_text(exc)
        sb.warning(err)
    return Lab(lm, prompt, chat, int(st.session_state.seed), ids, err, backend)


def open_page(page: str, controls=None) -> tuple[Lab, list[int]]:
    """A page's title and one-line caption (``page.<page>.title`` / ``.caption`` in the catalogue), its "look at
    this first" line, the shared lab, the prompt ids (or a clear stop) and its controls seeded from the link."""
    lab_ = st.session_state["lab"]
    st.title(t(f"page.{page}.title"))
    st.caption(t(f"page.{page}.caption"))
    look = look_first(page)
    if look:
        st.info(look, icon=":material/visibility:")
    note = notebook_note(page)
    if note:
        st.caption(note)
    prompt_ids = need_prompt(lab_)
    if controls is not None:
        controls.seed()
    return lab_, prompt_ids


PRESENT_TABLE_ROWS = 30


def table(where, rows: list[dict], pin: str | None = None, **kw) -> None:
    """``where.dataframe`` of table rows with the headers and the words in the cells in the session's language
    (``col.<header>``, ``cell.<word>`` in the catalogue; a core ``Msg`` by its id); the rows themselves, and
    their CSV downloads, keep the stable English keys and words. ``pin``: a column (its English key) that stays
    in view while the table scrolls sideways. In presentation mode a table of at most ``PRESENT_TABLE_ROWS`` rows is
    an HTML table instead: the dataframe draws on a canvas in 14 px text that no page style reaches (CSS zoom left
    the canvas at its unzoomed width), where the HTML table's text follows the presentation sizes (it scrolls
    sideways, its first column staying in view: PRESENTATION_CSS)."""
    shown = [{header(k): cell(k, v) for k, v in row.items()} for row in rows]
    if st.session_state.get("present") and len(rows) <= PRESENT_TABLE_ROWS:
        where.table([{k: _present_cell(v) for k, v in row.items()} for row in shown], hide_index=True)
        return
    if pin is not None:
        kw["column_config"] = {header(pin): st.column_config.Column(pinned=True), **kw.get("column_config", {})}
    where.dataframe(shown, hide_index=True, **{"width": "stretch", **kw})


def metric_rows(where, metrics: list[tuple], per_row: int = 2) -> None:
    """Metrics ``(label, value)`` or ``(label, value, help)``, ``per_row`` to a row, each row its own columns with
    their values on one line: a label that wraps (a narrow column, presentation mode's larger type) lifts its own
    label, not its value ("Mean accepted τ" on two lines put 2.00 below its neighbour's 0.25)."""
    for start in range(0, len(metrics), per_row):
        row = metrics[start:start + per_row]
        for col, (label, value, *help_) in zip(where.columns(per_row, vertical_alignment="bottom"), row):
            col.metric(label, value, help=help_[0] if help_ else None)


def _present_cell(value):
    """A cell of the presentation mode's HTML table: numbers as the rows rounded them (st.table pads every float to
    four decimals: "1.5300"), None as "–", a truth value as ✓ / ✗ (the dataframe draws a check box; st.table
    wrote "false")."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "✓" if value else "✗"
    return str(value) if isinstance(value, float) else value


WORD_COLUMNS = {"status", "regime", "method", "result", "source", "ends", "sampler"}  # cells that are words


def cell(key: str, value):
    """A table cell in the session's language: a core ``Msg`` by its id; in a column of words (a status, a
    regime, a method: ``WORD_COLUMNS``) a word with a ``cell.<word>`` entry; anything else (numbers, token texts:
    model output is never translated) as it is."""
    if isinstance(value, Msg):
        return i18n.say(value)
    if key in WORD_COLUMNS and isinstance(value, str) and i18n.has(f"cell.{value}"):
        return t(f"cell.{value}")
    return value


def header(key: str) -> str:
    """A table header in the session's language (a header without a catalogue entry, such as "N" or "τ", is the
    same in both)."""
    return t(f"col.{key}") if i18n.has(f"col.{key}") else key


def need_prompt(lab_: Lab) -> list[int]:
    """The prompt ids, or a clear message and a stop of this page's script (the sidebar stays)."""
    if lab_.prompt_ids is None:
        st.info(t("err.need_prompt", error=lab_.prompt_error))
        st.stop()
    return lab_.prompt_ids


TITLE_COLS = 46  # characters of a presentation-mode chart title per line (22 px type; a chart can be half the page)
TITLE_LINE_PX = 28


def _wrap_titles(fig) -> None:
    """Presentation mode: the chart's title and its subplots' titles wrapped to fit (at 22 / 17 px they ran off the
    chart's right edge or into each other), with the top margin grown by the lines added to the builder's."""
    extra = title_extra = 0
    title = fig.layout.title.text
    if title:
        lines = wrap_text(title, TITLE_COLS)
        fig.update_layout(title_text="<br>".join(lines))
        extra = title_extra = max(0, len(lines) - 1 - title.count("<br>"))  # the builder made room for its breaks
    tops = [a for a in fig.layout.annotations if a.yref == "paper" and a.y is not None and a.y >= 0.99 and a.text
            and a.yanchor == "bottom"]  # make_subplots' titles
    for a in tops:
        lines = wrap_text(a.text, max(16, int(TITLE_COLS * 1.2) // len(tops)))
        extra = max(extra, len(lines) - 1 - a.text.count("<br>"))  # never below 0: "a<br><br>b" is 2 lines
        a.text = "<br>".join(lines)
    if extra:
        top = fig.layout.margin.t if fig.layout.margin.t is not None else 100
        grow = (TITLE_LINE_PX + 26) * extra  # a line, and room between the title and a legend above the plot
        fig.update_layout(margin_t=top + grow)
        if fig.layout.height:
            fig.update_layout(height=fig.layout.height + grow)
            t_ = fig.layout.title
            if t_.yref == "container" and t_.yanchor == "top" and t_.y is not None:  # plotly stacks extra lines upward
                fig.update_layout(title_y=t_.y - TITLE_LINE_PX * title_extra / fig.layout.height)


TREE_SCALE = 1.25  # presentation mode: the trees' type (the beam's scores read at 11 px on a projector); the largest
# DOT size, 16, becomes 20: GRAPH_TEXT_CSS's last


def tree_chart(where, dot: str) -> None:
    """A search or draft tree (DOT) at its own size: a small tree is not blown up, a wide one scrolls. In presentation
    mode its type is TREE_SCALE larger and laid out for that size (a CSS zoom also enlarged the pinned trees, fitted to
    their half of the page, and the full-screen view past the screen)."""
    where.graphviz_chart(scaled_dot(dot) if st.session_state.get("present") else dot, width="content")


def scaled_dot(dot: str, scale: float = TREE_SCALE) -> str:
    """``dot`` with every font size (``fontsize=`` and HTML labels' ``POINT-SIZE``) times ``scale``, rounded."""
    return re.sub(r'(fontsize=|POINT-SIZE=")(\d+)', lambda m: f"{m[1]}{round(int(m[2]) * scale)}", dot)


CHART_TEXT = "#3d4356"  # tick labels, axis and subplot titles: 10:1 on white (Streamlit's theme drew them #808495, 3.7:1)


def chart(where, fig, name: str | None = None, **kw) -> None:
    """``where.plotly_chart(fig, **kw)`` with the app's fonts: larger type in presentation mode (a projector).
    ``name`` (unique on the page, stable: the file name and the widgets' keys) adds a "Download figure" popover
    under the chart (PNG, SVG: ui/export.py). Plotly's toolbar is off (on hover it covered the end of a chart's title,
    longer in Chinese and in presentation mode; dragging still zooms and a double click resets the axes) unless the
    server cannot render the figure menu's files: then its camera alone."""
    import plotly.graph_objects as go

    fig = go.Figure(fig)  # a copy: the builder's figure stays as it was
    fig.update_xaxes(tickfont_color=CHART_TEXT, title_font_color=CHART_TEXT)
    fig.update_yaxes(tickfont_color=CHART_TEXT, title_font_color=CHART_TEXT)
    for a in fig.layout.annotations:  # subplot titles; an annotation with its own colour keeps it
        if a.font.color is None:
            a.font.color = CHART_TEXT
    for tr in fig.data:  # the values written above bars ("30.2"), in the theme's grey too
        if tr.type == "bar" and tr.text is not None and tr.textfont.color is None:
            tr.textfont.color = CHART_TEXT
    if st.session_state.get("present"):
        fig.update_layout(font_size=18, title_font_size=22, legend_font_size=16,
                          **({"height": int(fig.layout.height * 1.25)} if fig.layout.height else {}))
        fig.update_xaxes(tickfont_size=15, title_font_size=17)
        fig.update_yaxes(tickfont_size=15, title_font_size=17)
        fig.update_annotations(font_size=17)
        _wrap_titles(fig)
    if "config" not in kw:
        from viz.export import figure_problem

        # without a Chromium for the "Download figure" menu, the toolbar's camera is the way to keep a chart
        kw["config"] = ({"modeBarButtons": [["toImage"]], "displaylogo": False} if figure_problem()
                        else {"displayModeBar": False})
    where.plotly_chart(fig, **kw)
    if name:
        from ui.export import figure_downloads

        figure_downloads(where, fig, name)


COPY_LINK = """<div style="font-family:'Source Sans Pro','Noto Sans CJK SC',sans-serif">
<button id="copy" style="width:100%;padding:6px 10px;border:1px solid #c5cbd8;border-radius:8px;background:#fff;
 color:#1c2233;font-size:15px;cursor:pointer">__COPY_TEXT__</button></div>
<script>
const b = document.getElementById("copy");
b.onclick = async () => {
  const url = window.parent.location.href;  // the address bar: every setting, step position and choice
  try { await navigator.clipboard.writeText(url); b.textContent = __COPIED__; }
  catch (e) { window.prompt(__PROMPT__, url); }
  setTimeout(() => { b.textContent = __COPY__; }, 1600);
};
</script>"""


def copy_link_button() -> None:
    """A button that copies the page's address (settings, step position, selected node: all in the URL),
    read when it is clicked, so steps taken since the last full run are included."""
    html = COPY_LINK.replace("__COPY_TEXT__", escape(t("sidebar.copy_link")))
    for name, id_ in (("__COPY__", "sidebar.copy_link"), ("__COPIED__", "sidebar.link_copied"),
                      ("__PROMPT__", "sidebar.copy_prompt")):
        html = html.replace(name, json.dumps(t(id_)))  # JavaScript strings
    if hasattr(st, "iframe"):  # our own constant HTML (same-origin: it reads the address bar)
        st.iframe(html, height=42)
    else:  # Streamlit before st.iframe
        import streamlit.components.v1 as components

        components.html(html, height=42)


BUSY = 2.5  # plain decoding this much slower than a quiet machine's forwards predict: the machine was busy (session
            # 40's walkthrough: a quiet 2-core machine with the browser on it reached 1.9-2.1x in the app; under load
            # 7-15x)
BUSY_MIN_TOKENS = 8  # fewer new tokens: the first step's overheads dominate, no verdict


def busy_warning(where, lm: LoadedModel, plain_tokens_per_s: float | None, new_tokens: int,
                 prompt_tokens: int) -> bool:
    """A warning (placed above the timing it judges) when its plain decoding took more than ``BUSY`` times what this
    machine's fastest measured forwards predict for it (``sizing.known_forward_costs``): one forward over the prompt
    (its prefill, read off the stored curve, linear past its end) plus one one-token forward per further token. A
    quiet machine is ~1.2x in a bare loop and ~1.3-1.5x in the app (sampling, progress), up to ~2.1x with the
    browser on the same two cores (session 40); a walkthrough beside other work saw 7-15x. Returns whether it
    warned."""
    from decoding_core.sizing import interpolate, known_forward_costs

    costs = known_forward_costs(lm)
    if not costs or not plain_tokens_per_s or plain_tokens_per_s <= 0 or new_tokens < BUSY_MIN_TOKENS:
        return False
    quiet = (interpolate(costs, max(1, prompt_tokens)) + (new_tokens - 1) * costs[1]) / new_tokens  # s a token
    per_token = 1 / plain_tokens_per_s
    if per_token <= BUSY * quiet:
        return False
    where.warning(t("busy.warning", ms=1000 * per_token, times=per_token / quiet, quiet=1000 * quiet))
    return True


BUSY_FORWARD = 2.0  # the median of a study's probes (each a median of three one-token forwards) this much slower
                    # than the fastest stored here before the study: busy. Session 41, the page in Chromium: quiet
                    # 1.41-1.45x (single probes 1.2-1.7x: the browser redraws as a study starts), beside a unit-test
                    # run 3.2-5.5x
BUSY_MIN_PROBES = 2  # fewer (a study stopped in its first regime): its one probe, taken as it started, is no verdict


def busy_probe_warning(where, probes, quiet: float | None) -> bool:
    """A warning (placed above the timings it judges) when the median of a study's probes (``sizing.forward_now``,
    timed before, between and after what the study measured) exceeds ``BUSY_FORWARD`` times ``quiet``, the fastest
    one-token forward known here before the study: the machine was busy while the study timed something other than
    decoding (the sampling methods). One slow probe is not a verdict; fewer than ``BUSY_MIN_PROBES`` probes or no
    quiet figure: none. Returns whether it warned."""
    import statistics

    if len(probes) < BUSY_MIN_PROBES or not quiet or quiet <= 0:
        return False
    now = statistics.median(probes)
    if now <= BUSY_FORWARD * quiet:
        return False
    where.warning(t("busy.probe", ms=1000 * now, times=now / quiet, quiet=1000 * quiet))
    return True


def busy_warning_of(where, lm: LoadedModel, plain, prompt_tokens: int) -> bool:
    """``busy_warning`` for a comparison's plain-decoding run (a ``StrategyRun``; None or a failed run: no
    verdict)."""
    if plain is None or plain.error:
        return False
    return busy_warning(where, lm, plain.tokens_per_s, plain.new_tokens, prompt_tokens)
