"""Results kept by the settings that made them: a changed setting never shows an old result as its own.

    key = (lab.key, strategy, run, extra)          # everything the result depends on
    if st.button("Measure"):
        results.keep("sweep", key, study(...))
    rec = results.get("sweep", key, "Measure")      # None (with a note) when the last result is stale
"""
from __future__ import annotations

import streamlit as st

from ui.i18n import t


def keep(name: str, key, value) -> None:
    st.session_state[f"_result_{name}"] = (key, value)


def get(name: str, key, button: str | None = None):
    """The kept result of ``name`` if it was made with ``key``; else None, and when an older result exists,
    a note that it belonged to other settings (``button``: what to press for a new one)."""
    saved = st.session_state.get(f"_result_{name}")
    if saved is None:
        return None
    if saved[0] == key:
        return saved[1]
    if button:
        st.caption(t("results.stale", button=button))
    return None
