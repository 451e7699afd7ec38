"""A progress bar for studies: the study's own text plus the time spent and an estimate of the time left."""
from __future__ import annotations

import time

import streamlit as st


class StudyProgress:
    """Pass as a study's ``progress`` callback; ``done()`` removes the bar."""

    def __init__(self, label: str = "Measuring…"):
        self.t0 = time.perf_counter()
        self.bar = st.progress(0.0, text=label)

    def __call__(self, fraction: float, text: str) -> None:
        fraction = min(max(fraction, 0.0), 1.0)
        spent = time.perf_counter() - self.t0
        left = f", about {spent * (1 - fraction) / fraction:.0f} s left" if 0.02 < fraction < 1 else ""
        self.bar.progress(fraction, text=f"{text} · {spent:.0f} s{left}")

    def done(self) -> None:
        self.bar.empty()
