"""Settings carried in the URL (st.query_params, strings only) so a link reproduces a run.

``init_widget`` seeds a widget's session_state value from the URL once, validating it; a bad value
gives a visible warning and the default, never an exception. ``sync`` writes widget values back.
"""
from __future__ import annotations

import streamlit as st

_WARN_KEY = "_param_warnings"


def warn(msg: str) -> None:
    """Queue a notice for the top of the page (shown once)."""
    st.session_state.setdefault(_WARN_KEY, [])
    if msg not in st.session_state[_WARN_KEY]:
        st.session_state[_WARN_KEY].append(msg)


def show_warnings() -> None:
    for msg in st.session_state.pop(_WARN_KEY, []):
        st.warning(msg, icon=":material/warning:")


def parse(raw: str, kind, lo=None, hi=None, choices=None):
    """Parse one URL value; raises ValueError with a readable message."""
    if kind is bool:
        low = raw.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError("expected true or false")
    if kind is str:
        if choices is not None and raw not in choices:
            raise ValueError(f"expected one of {', '.join(map(str, choices))}")
        return raw
    value = kind(raw)
    if value != value:  # NaN
        raise ValueError("not a number")
    if lo is not None and value < lo or hi is not None and value > hi:
        raise ValueError(f"out of range [{lo}, {hi}]")
    return value


def init_widget(key: str, default, kind=None, lo=None, hi=None, choices=None, param: str | None = None):
    """Give widget ``key`` its starting value: from the URL if valid there, else ``default``."""
    if key in st.session_state:
        return
    kind = kind or type(default)
    param = param or key
    value = default
    raw = st.query_params.get(param)
    if raw is not None:
        try:
            value = parse(raw, kind, lo, hi, choices)
        except ValueError as exc:
            warn(f"Ignored the link's value {param}={raw!r} ({exc}); using {default!r}.")
    st.session_state[key] = value


def sync(keys: list[str]) -> None:
    """Write the current widget values into the URL."""
    for key in keys:
        if key in st.session_state:
            value = st.session_state[key]
            text = str(value).lower() if isinstance(value, bool) else str(value)
            if st.query_params.get(key) != text:
                st.query_params[key] = text
