"""Pin and compare: keep one run's picture and figures ("A"), and show every later run ("B") beside it, so a
change of temperature, threshold, N or tree is seen side by side.

    pin_panel("beam", Snapshot(describe(strategy), "dot", dot_text, (("Pruned", "12"), ("Best score", "-4.1"))))

The pin is kept per page for the session (it survives setting changes: that is the point).
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from ui.i18n import t


@dataclass(frozen=True)
class Snapshot:
    label: str                        # what made the run, in words (strategy, settings, step)
    kind: str                         # "html" (st.markdown) or "dot" (graphviz)
    picture: str
    figures: tuple[tuple[str, str], ...] = ()


def _draw(snap: Snapshot) -> None:
    if snap.kind == "dot":
        st.graphviz_chart(snap.picture, width="stretch")  # fitted to its half of the page: A and B compared whole
    else:
        st.markdown(snap.picture, unsafe_allow_html=True)


def _pin(key: str, snap: Snapshot) -> None:
    st.session_state[key] = snap


def _unpin(key: str) -> None:
    st.session_state.pop(key, None)


def pin_panel(page: str, current: Snapshot) -> None:
    """A "Pin this run" button; once a run is pinned, A (pinned) beside B (this run) with their figures."""
    key = f"_pin_{page}"
    pinned: Snapshot | None = st.session_state.get(key)
    b1, b2, _ = st.columns([3, 2, 3])  # [1, 1, 2] wrapped "Pin this run as A" in presentation mode
    b1.button(t("pin.pin"), key=f"{key}_pin", icon=":material/push_pin:", on_click=_pin, args=(key, current),
              help=t("pin.pin.help"))
    if pinned is None:
        return
    b2.button(t("pin.unpin"), key=f"{key}_unpin", icon=":material/close:", on_click=_unpin, args=(key,))
    st.markdown(t("pin.header"))
    a, b = st.columns(2)
    col_a, col_b = t("pin.a"), t("pin.b")
    for col, name, snap in ((a, col_a, pinned), (b, col_b, current)):
        with col:
            st.markdown(f"**{name}** · {snap.label}")
            _draw(snap)
    names = [n for n, _ in pinned.figures] + [n for n, _ in current.figures if n not in dict(pinned.figures)]
    rows = [{t("pin.figure"): n, col_a: dict(pinned.figures).get(n, "–"), col_b: dict(current.figures).get(n, "–")}
            for n in names]
    if rows:
        st.dataframe(rows, hide_index=True, width="stretch")
