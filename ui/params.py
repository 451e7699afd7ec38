"""Link values (st.query_params, strings only): parsing with readable errors, and the notices shown when
a bad value is ignored. The declarative controls (ui/controls.py) seed and sync widgets with these."""
from __future__ import annotations

import math

import streamlit as st

_WARN_KEY = "_param_warnings"


def echo(raw: str, limit: int = 40) -> str:
    """A link value as a message may repeat it: quoted, control characters escaped, cut to ``limit``
    characters (a 10,000-character value is not echoed in full)."""
    text = repr(raw[:limit])
    return text + (f"… ({len(raw):,} characters)" if len(raw) > limit else "")


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
    try:
        value = kind(raw)
    except (ValueError, OverflowError):
        raise ValueError(f"not {'an integer' if kind is int else 'a number'}") from None  # never echo the value
    if value != value:  # NaN
        raise ValueError("not a number")
    if lo is not None and value < lo or hi is not None and value > hi:
        raise ValueError(f"out of range [{lo}, {hi}]")
    if choices is not None and value not in choices:
        raise ValueError(f"expected one of {', '.join(map(str, choices))}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("not a finite number")
    return value
