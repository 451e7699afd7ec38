"""Declarative controls: one ``Param`` per setting, from which the URL seeding, the widget, the validation
and the URL sync are all derived.

A page declares its table once::

    P = Controls([Param("k", 4, "p.k", 1, 16), Param("eos_policy", "finished-set", "p.eos_policy",
                  choices=EOS_POLICIES, help="p.eos_policy.help")])   # labels and help: catalogue ids
    P.seed()                  # session_state from the link (bad values: a warning and the default)
    P.show("k", column)       # the widget, its range and help from the table (texts in the session's language)
    P.sync()                  # the current values back into the link
    P["k"]                    # the value

Also here: the step buttons and the step-through state shared by the Sampling, Beam, Speculative and
EAGLE pages (``stepper``).
"""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

import streamlit as st

from decoding_core.settings import SamplingSettings
from ui import params, ready
from ui.i18n import err_text, lang, t, translated_choices
from ui.progress import StudyProgress
from ui.texts import gloss


@dataclass(frozen=True)
class Param:
    """One setting: its session/URL key, default, label, range or choices, help and widget kind.

    ``widget`` is inferred when empty: a toggle for bools, a selectbox for choices, a multiselect for
    tuple defaults, a slider for numbers, a text input for strings."""

    key: str
    default: object
    label: str                        # a catalogue id (ui/locales), looked up when the widget is drawn
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    choices: tuple | None = None
    labels: dict | None = None        # choice -> catalogue id of its on-screen text
    help: str | None = None           # a catalogue id
    glossary: str | None = None       # a glossary anchor linked at the end of the help
    widget: str = ""                  # slider | number | select | radio | toggle | text | textarea | multi
    fmt: str | None = None            # number format (sliders, number inputs)
    link_max: int | None = None       # a value whose URL-encoded text is longer stays out of the link (a huge prompt)

    @property
    def kind(self) -> type:
        return type(self.default)

    @property
    def widget_kind(self) -> str:
        if self.widget:
            return self.widget
        if isinstance(self.default, bool):
            return "toggle"
        if isinstance(self.default, tuple):
            return "multi"
        if self.choices is not None:
            return "select"
        if isinstance(self.default, (int, float)):
            return "slider"
        return "text"

    def parse(self, raw: str):
        """A URL value -> a valid value (ValueError with a readable message otherwise)."""
        if isinstance(self.default, tuple):
            values = tuple(v for v in raw.split(",") if v)
            bad = [v for v in values if self.choices is not None and v not in self.choices]
            if bad:
                raise ValueError(t("why.some_of", choices=", ".join(map(str, self.choices))))
            return values
        return params.parse(raw, self.kind, self.lo, self.hi, self.choices)

    def to_url(self, value) -> str:
        if isinstance(value, tuple):
            return ",".join(map(str, value))
        return str(value).lower() if isinstance(value, bool) else str(value)

    def fits_link(self, text: str) -> bool:
        return self.link_max is None or len(quote(text)) <= self.link_max


def choice_ids(key: str, choices: tuple) -> dict:
    """``labels`` for a Param whose every choice has its text in the catalogue as ``p.<key>.<choice>``."""
    return {c: f"p.{key}.{c}" for c in choices}


_KEYS: set[str] = set()  # every Param key of a table built in this process (the pages' and the sidebar's)


def keep_settings() -> None:
    """Keep every setting of every page through runs that do not draw its widget (another page, a page stopped
    early by a message): Streamlit drops a widget's value at the end of a run that did not draw it, and the
    widget then came back at its first value (or a value from the link, which a page switch clears) while the
    session could still hold another. A value written through ``st.session_state`` before its widget is drawn
    is kept, so the app's first call (before the sidebar or a page draws anything) writes each back."""
    ss = st.session_state
    for key in tuple(_KEYS):  # a copy: another session's first run of a page may add keys meanwhile
        if key in ss:
            ss[key] = ss[key]


class Controls:
    """A page's table of parameters (see the module docstring)."""

    def __init__(self, table: list[Param]):
        self.table = {p.key: p for p in table}
        _KEYS.update(self.table)

    def __getitem__(self, key: str):
        return st.session_state[key]

    def seed(self) -> "Controls":
        """Give each widget its starting value once per session: from the link if valid, else the default."""
        for p in self.table.values():
            if p.key in st.session_state:
                continue
            value, raw = p.default, st.query_params.get(p.key)
            if raw is not None:
                try:
                    value = p.parse(raw)
                except ValueError as exc:
                    params.warn(t("warn.link_value", key=p.key, raw=params.echo(raw), why=exc,
                                  default=repr(p.to_url(p.default))))
            st.session_state[p.key] = value
        return self

    def show(self, key: str, where=None, disabled: bool = False, label: str | None = None):
        """Draw the widget of ``key`` in ``where`` (a column, the sidebar, st); returns its value. The label, help
        and choice texts are catalogue ids, looked up now (in the session's language); ``label`` overrides the
        label with an id too."""
        p, c = self.table[key], where or st
        help_ = t(p.help) if p.help else None
        if p.glossary:
            help_ = (help_ or "") + gloss(p.glossary)
        kw = dict(key=p.key, help=help_, disabled=disabled)
        label = t(label or p.label)
        kind = p.widget_kind
        here = lang()  # the choices' texts in this run's language, also when called outside it (AppTest)
        fmt = (lambda v: t(p.labels[v], here) if v in p.labels else v) if p.labels else None  # noqa: E731
        if fmt:
            translated_choices(p.key)
        if kind == "toggle":
            return c.toggle(label, **kw)
        if kind in ("select", "radio"):
            extra = {"format_func": fmt} if fmt else {}
            if kind == "radio":
                return c.radio(label, list(p.choices), horizontal=True, **extra, **kw)
            return c.selectbox(label, list(p.choices), **extra, **kw)
        if kind == "multi":
            st.session_state[p.key] = list(st.session_state[p.key])
            return tuple(c.multiselect(label, list(p.choices), **({"format_func": fmt} if fmt else {}), **kw))
        if kind == "slider":
            return c.slider(label, p.lo, p.hi, step=p.step, format=p.fmt, **kw)
        if kind == "number":
            return c.number_input(label, p.lo, p.hi, step=p.step, format=p.fmt, **kw)
        if kind == "textarea":
            return c.text_area(label, height=90, **kw)
        return c.text_input(label, **kw)

    def preset(self, key: str, value) -> None:
        """Put ``value``, clamped into the widget's range, into ``key`` before its widget is drawn: a disabled
        widget then shows the value that is used (the device-aware size when "auto" is on)."""
        p = self.table[key]
        st.session_state[key] = p.kind(min(max(value, p.lo), p.hi))

    def sync(self) -> None:
        """Write the current values into the link (only what changed)."""
        for p in self.table.values():
            if p.key in st.session_state:
                value = st.session_state[p.key]
                text = p.to_url(tuple(value) if isinstance(value, list) else value)
                if not p.fits_link(text):  # too long for a link that mail and chat tools pass on whole
                    if p.key in st.query_params:
                        del st.query_params[p.key]
                elif st.query_params.get(p.key) != text:
                    st.query_params[p.key] = text

    def in_link(self, key: str) -> bool:
        """Whether ``key``'s current value goes into the link (see ``Param.link_max``)."""
        return self.table[key].fits_link(self.table[key].to_url(st.session_state[key]))

    def values(self) -> dict:
        return {k: (tuple(v) if isinstance(v := st.session_state[k], list) else v) for k in self.table}


def take_action(key: str) -> str | None:
    """The step action queued by a click on one of ``step_buttons(key, ...)`` (reset/back/step/run)."""
    return st.session_state.pop(f"{key}_pending", None)


def step_buttons(key: str, can_back: bool, done: bool) -> None:
    """Reset / back / step / run-to-end in one row. A click queues its action for ``take_action``,
    which the page calls BEFORE drawing the buttons, so their enabled state is always current."""
    def queue(action):
        st.session_state[f"{key}_pending"] = action

    cols = st.columns(4)
    specs = [("reset", False, None, ":material/first_page:"),
             ("back", not can_back, None, ":material/chevron_left:"),
             ("step", done, "primary", ":material/chevron_right:"),
             ("run", done, None, ":material/last_page:")]
    for col, (action, disabled, kind, icon) in zip(cols, specs):
        col.button(t(f"step.{action}"), key=f"{key}_{action}", disabled=disabled, type=kind or "secondary",
                   width="stretch", icon=icon, on_click=queue, args=(action,))


def stepper(name: str, key, make):
    """The step-through state of one page: a decoder (rebuilt by ``make()`` whenever ``key`` changes), a
    cursor over its history (Back only moves the cursor; Step replays recorded steps before decoding new
    ones), the four buttons, and a progress bar for Run to end. Returns the state dict
    {"decoder", "cursor", ...}; pages may keep their own extras in it."""
    ss = st.session_state
    state = ss.get(f"{name}_state")
    fresh_session = state is None
    if state is None or state["key"] != key:
        state = {"key": key, "decoder": _make(make), "cursor": -1}
        ss[f"{name}_state"] = state
    dec = state["decoder"]
    if fresh_session:
        _replay_link(name, state)  # a link with {name}_pos=N reopens the run at step N (same seed: same steps)
    action = take_action(name)
    if action == "step" and state["cursor"] == len(dec.history) - 1:
        ready.settle()  # a new thread, a busy moment: both kept out of the step's times (ui/ready.py)
    if action == "reset":
        state.update(decoder=_make(make), cursor=-1)
        dec = state["decoder"]
    elif action == "back":
        state["cursor"] -= 1
    elif action == "step":
        if state["cursor"] < len(dec.history) - 1:
            state["cursor"] += 1
        else:
            dec.step()
            state["cursor"] = len(dec.history) - 1
    elif action == "run":
        bar = StudyProgress(t("step.decoding"), stop_key=name)  # Stop keeps the steps made so far
        while not dec.done and not bar.should_stop():
            dec.step()
            bar(min(1.0, len(dec.tokens) / dec.max_new_tokens), t("step.decoding_n", n=len(dec.tokens),
                                                                  step=len(dec.history)))
        bar.done()
        state["cursor"] = len(dec.history) - 1
        bar.release()
    step_buttons(name, can_back=state["cursor"] >= 0, done=state["cursor"] == len(dec.history) - 1 and dec.done)
    pos = str(state["cursor"] + 1)
    if st.query_params.get(f"{name}_pos", "0") != pos:
        st.query_params[f"{name}_pos"] = pos
    return state


def _make(make):
    """A started decoder, or the reason it cannot start (too long for the context, over the memory budget, a
    draft that cannot load) as a message, and this run stops there: never a traceback."""
    from decoding_core.models import ModelLoadError

    try:
        return make()
    except (ValueError, ModelLoadError) as exc:
        st.error(t("err.cannot_start", why=err_text(exc)[:400]), icon=":material/block:")
        st.stop()


MAX_LINK_STEPS = 512


def _replay_link(name: str, state: dict) -> None:
    """Step a new session's decoder to the link's position ``{name}_pos`` (validated like widget input)."""
    raw = st.query_params.get(f"{name}_pos")
    if raw in (None, "0"):
        return
    try:
        target = params.parse(raw, int, 0, MAX_LINK_STEPS)
    except ValueError as exc:
        params.warn(t("warn.link_pos", key=f"{name}_pos", raw=params.echo(raw), why=err_text(exc)))
        return
    dec = state["decoder"]
    ready.warm()
    with st.spinner(t("step.replaying", n=target)):
        while len(dec.history) < target and not dec.done:
            dec.step()
    state["cursor"] = len(dec.history) - 1


def sampling_table(prefix: str = "", rep: bool = False) -> list[Param]:
    """The logits-processor parameters (keys prefixed so several pages keep their own values)."""
    table = [
        Param(f"{prefix}temperature", 1.0, "p.temperature", 0.05, 3.0, 0.05, help="p.temperature.help"),
        Param(f"{prefix}top_k", 0, "p.top_k", 0, 500, 1, help="p.top_k.help"),
        Param(f"{prefix}top_p", 1.0, "p.top_p", 0.01, 1.0, 0.01, help="p.top_p.help"),
        Param(f"{prefix}min_p", 0.0, "p.min_p", 0.0, 1.0, 0.01, help="p.min_p.help"),
    ]
    if rep:
        table.append(Param(f"{prefix}rep", 1.0, "p.rep", 1.0, 2.0, 0.05, help="p.rep.help"))
    return table


def show_sampling(ctl: Controls, prefix: str = "", where=None) -> SamplingSettings:
    """Draw the processor sliders of ``sampling_table(prefix)`` and return their settings."""
    keys = [k for k in ctl.table if k.startswith(prefix) and k[len(prefix):] in
            ("temperature", "top_k", "top_p", "min_p", "rep")]
    for k in keys:
        ctl.show(k, where)
    v = {k[len(prefix):]: st.session_state[k] for k in keys}
    rep = v.get("rep")
    return SamplingSettings(temperature=float(v["temperature"]), top_k=int(v["top_k"]) or None,
                            top_p=float(v["top_p"]), min_p=float(v["min_p"]) or None,
                            repetition_penalty=float(rep) if rep and rep != 1.0 else None)
