"""Widgets shared by several pages: the logits-processor sliders and the step buttons."""
from __future__ import annotations

import streamlit as st

from decoding_core.processors import SamplingSettings
from ui import params


def sampling_controls(container=None, prefix: str = "", show_rep: bool = False) -> SamplingSettings:
    """Temperature / top-k / top-p / min-p (and repetition penalty) sliders; values go in the URL."""
    c = container or st
    k = lambda name: f"{prefix}{name}"  # noqa: E731
    params.init_widget(k("temperature"), 1.0, float, lo=0.05, hi=3.0)
    params.init_widget(k("top_k"), 0, int, lo=0, hi=500)
    params.init_widget(k("top_p"), 1.0, float, lo=0.01, hi=1.0)
    params.init_widget(k("min_p"), 0.0, float, lo=0.0, hi=1.0)
    c.slider("Temperature T", 0.05, 3.0, step=0.05, key=k("temperature"),
             help="Divides the logits: T < 1 sharpens the distribution, T > 1 flattens it.")
    c.slider("Top-k (0 = off)", 0, 500, step=1, key=k("top_k"), help="Keep only the k most likely tokens.")
    c.slider("Top-p (1 = off)", 0.01, 1.0, step=0.01, key=k("top_p"),
             help="Keep the smallest set of most likely tokens whose probabilities sum to at least p.")
    c.slider("Min-p (0 = off)", 0.0, 1.0, step=0.01, key=k("min_p"),
             help="Drop tokens whose probability is below min-p × the top token's probability.")
    keys = [k("temperature"), k("top_k"), k("top_p"), k("min_p")]
    rep = None
    if show_rep:
        params.init_widget(k("rep"), 1.0, float, lo=1.0, hi=2.0)
        c.slider("Repetition penalty (1 = off)", 1.0, 2.0, step=0.05, key=k("rep"),
                 help="Logits of tokens already in the text are divided (positive) or multiplied (negative) by this.")
        keys.append(k("rep"))
        rep = st.session_state[k("rep")]
    params.sync(keys)
    s = st.session_state
    return SamplingSettings(temperature=float(s[k("temperature")]), top_k=int(s[k("top_k")]) or None,
                            top_p=float(s[k("top_p")]), min_p=float(s[k("min_p")]) or None,
                            repetition_penalty=rep if rep and rep != 1.0 else None)


def take_action(key: str) -> str | None:
    """The step action queued by a click on one of ``step_buttons(key, ...)`` (reset/back/step/run)."""
    return st.session_state.pop(f"{key}_pending", None)


def step_buttons(key: str, can_back: bool, done: bool) -> None:
    """Reset / back / step / run-to-end in one row. A click queues its action for ``take_action``,
    which the page calls BEFORE drawing the buttons, so their enabled state is always current."""
    def queue(action):
        st.session_state[f"{key}_pending"] = action

    cols = st.columns(4)
    specs = [("reset", "Reset", False, None, ":material/first_page:"), ("back", "Back", not can_back, None, ":material/chevron_left:"),
             ("step", "Step", done, "primary", ":material/chevron_right:"), ("run", "Run to end", done, None, ":material/last_page:")]
    for col, (action, label, disabled, kind, icon) in zip(cols, specs):
        col.button(label, key=f"{key}_{action}", disabled=disabled, type=kind or "secondary", width="stretch", icon=icon,
                   on_click=queue, args=(action,))


def stepper(name: str, key, make):
    """The step-through state of one page: a decoder (rebuilt by ``make()`` whenever ``key`` changes), a
    cursor over its history (Back only moves the cursor; Step replays recorded steps before decoding new
    ones), the four buttons, and a progress bar for Run to end. Returns the state dict
    {"decoder", "cursor", ...}; pages may keep their own extras in it."""
    ss = st.session_state
    state = ss.get(f"{name}_state")
    if state is None or state["key"] != key:
        state = {"key": key, "decoder": make(), "cursor": -1}
        ss[f"{name}_state"] = state
    dec = state["decoder"]
    action = take_action(name)
    if action == "reset":
        state.update(decoder=make(), cursor=-1)
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
        bar = st.progress(0.0, text="Decoding…")
        while not dec.done:
            dec.step()
            done = min(1.0, len(dec.tokens) / dec.max_new_tokens)
            bar.progress(done, text=f"Decoding… {len(dec.tokens)} tokens, step {len(dec.history)}")
        bar.empty()
        state["cursor"] = len(dec.history) - 1
    step_buttons(name, can_back=state["cursor"] >= 0, done=state["cursor"] == len(dec.history) - 1 and dec.done)
    return state
