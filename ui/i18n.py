"""The app's two languages: ``t(id, **fmt)`` gives a catalogue text in the session's language, ``lang()`` says
which one it is.

The catalogues (ui/locales/en.py, ui/locales/zh.py) map stable ids to text; pages, controls and figures ask for
text by id, never write it. Format placeholders (``{n:,}``, ``{tau:.2f}``) are the same in both catalogues, so
numbers are formatted identically in either language. Model output (generated tokens) is never translated.

The language comes from the link (``lang=en|zh``, validated like every link value), else the sidebar's choice
kept in the session, else the browser's language (``st.context.locale``), else English. Outside a Streamlit run
(the CLI, notebooks, unit tests of viz/) it is English.
"""
from __future__ import annotations

import sys

from decoding_core.messages import of_exception, render
from ui.locales import en, zh

LANGS = ("en", "zh")
LANG_NAMES = {"en": "English", "zh": "简体中文"}
SAMPLER_FAMILIES = ("core.method.", "core.sampler.")  # the cost page's methods ("exponential race", as its text
# says), then the decoding samplers named nowhere else ("gumbel", "gumbel-block")


def shown_name(catalogue: dict, code: str) -> str:
    """A sampler's or sampling method's name as a choice, a legend or a table cell shows it: the core's name
    (``core.method.<code>``, else ``core.sampler.<code>``) followed by the code name in brackets (what a link, the
    CLI and the exports spell) where the two differ by more than case and spaces ("多项分布采样 (multinomial)",
    "exponential race (exp-race)", "binary search", "Gumbel-max")."""
    name = next(catalogue[f + code] for f in SAMPLER_FAMILIES if f + code in catalogue)
    return name if name.lower().replace(" ", "-") == code else f"{name} ({code})"


def _with_shown_names(catalogue: dict) -> dict:
    """The catalogue with the choices' and legends' names (``viz.series.<code>``) and the table cells' (``cell.<code>``)
    of every sampler and method derived from the core's: one family of names, written once per language."""
    codes = {k[len(f):] for f in SAMPLER_FAMILIES for k in catalogue if k.startswith(f)}
    derived = {f"{kind}.{c}": shown_name(catalogue, c) for c in codes for kind in ("viz.series", "cell")}
    return {**derived, **catalogue}


CATALOGUES = {"en": _with_shown_names(en.TEXT), "zh": _with_shown_names(zh.TEXT)}
DEFAULT = "en"
KEY = "lang"  # session-state and link key
DRAWN, CHOICE_KEYS = "_lang_drawn", "_i18n_choice_keys"  # the language of the last run; see translated_choices


def lang() -> str:
    """The session's language ("en" outside a Streamlit script run)."""
    st = sys.modules.get("streamlit")
    if st is None:
        return DEFAULT
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        return DEFAULT
    value = st.session_state.get(KEY, DEFAULT)
    return value if value in CATALOGUES else DEFAULT


def t(id_: str, lang_: str | None = None, **fmt) -> str:
    """The text of ``id_`` in the session's language (or ``lang_``), formatted with ``fmt`` when given.
    An id missing from the English catalogue is a bug (KeyError); the Chinese one falls back to English
    (tests/unit/test_i18n.py keeps both complete)."""
    text = CATALOGUES[lang_ or lang()].get(id_)
    if text is None:
        text = CATALOGUES[DEFAULT][id_]
    return text.format(**fmt) if fmt else text


def say(text) -> str:
    """A text from the core in the session's language: a ``decoding_core.messages.Msg`` by its id (its ``Msg``
    arguments too), anything else as it is."""
    return render(text, t)


def err_text(exc: BaseException) -> str:
    """An exception's message in the session's language (the core raises some with a ``Msg``)."""
    return say(of_exception(exc))


def has(id_: str) -> bool:
    return id_ in CATALOGUES[DEFAULT]


def browser_lang() -> str:
    """The browser's language where Streamlit exposes it (``st.context.locale``, e.g. "zh-CN"), else English."""
    import streamlit as st

    try:
        locale = (getattr(st.context, "locale", None) or "").lower()
    except Exception:  # no browser context (AppTest, bare mode)
        locale = ""
    return "zh" if locale.startswith("zh") else DEFAULT


def seed() -> str:
    """Set the session's language once: the link's ``lang`` if valid (else the usual warning), else the
    browser's. The sidebar's switch (key ``lang``) changes it afterwards."""
    import streamlit as st

    from ui import params

    ss = st.session_state
    if KEY not in ss:
        ss[KEY], raw = browser_lang(), st.query_params.get(KEY)  # a refused link value is explained in this one
        if raw is not None:
            try:
                ss[KEY] = params.parse(raw, str, choices=LANGS)
            except ValueError as exc:
                params.warn(t("warn.link_value", key=KEY, raw=params.echo(raw), why=exc, default=repr(ss[KEY])))
    if ss.get(DRAWN, ss[KEY]) != ss[KEY]:
        for key in ss.get(CHOICE_KEYS, ()):  # see translated_choices
            if key in ss:
                ss[key] = ss[key]
    ss[DRAWN] = ss[KEY]
    return ss[KEY]


def translated_choices(key: str) -> str:
    """Mark ``key`` as a choice widget (select, radio, multiselect) whose choices are shown in the session's
    language, and return it. Streamlit keeps such a widget's value in the browser as the text it showed, so after a
    language switch the browser's English text matches no Chinese choice and the next run fell back to the first
    choice (a column set to speculative decoding became greedy; a head read as "default (EAGLE-3 if shipped)").
    On the run that sees the switch, ``seed`` sets every marked widget's value again from the server's side, and
    Streamlit then sends it to the browser in the new language."""
    import streamlit as st

    st.session_state.setdefault(CHOICE_KEYS, set()).add(key)
    return key
