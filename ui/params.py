"""Link values (st.query_params, strings only): parsing with readable errors, and the notices shown when
a bad value is ignored. The declarative controls (ui/controls.py) seed and sync widgets with these."""
from __future__ import annotations

import math

import streamlit as st

from ui.i18n import t

_WARN_KEY = "_param_warnings"


def echo(raw: str, limit: int = 40) -> str:
    """A link value as a message may repeat it: quoted, control characters escaped, cut to ``limit``
    characters (a 10,000-character value is not echoed in full)."""
    text = repr(raw[:limit])
    return text + (t("why.cut", n=len(raw)) if len(raw) > limit else "")


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
        raise ValueError(t("why.bool"))
    if kind is str:
        if choices is not None and raw not in choices:
            raise ValueError(t("why.choices", choices=", ".join(map(str, choices))))
        return raw
    try:
        value = kind(raw)
    except (ValueError, OverflowError):
        raise ValueError(t("why.not_int" if kind is int else "why.not_number")) from None  # never echo the value
    if value != value:  # NaN
        raise ValueError(t("why.not_number"))
    if lo is not None and value < lo or hi is not None and value > hi:
        raise ValueError(t("why.range", lo=lo, hi=hi))
    if choices is not None and value not in choices:
        raise ValueError(t("why.choices", choices=", ".join(map(str, choices))))
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(t("why.not_finite"))
    return value
