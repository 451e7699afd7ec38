"""Link values (st.query_params, strings only): parsing with readable errors, and the notices shown when
a bad value is ignored. The declarative controls (ui/controls.py) seed and sync widgets with these."""
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
