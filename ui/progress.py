"""Long studies on a page: a progress bar with the time spent and left, a Stop button that keeps what was
measured, and the result kept by the settings that made it.

    rec = measure("sweep", key, lambda progress, should_stop: study(..., progress=progress,
                                                                        should_stop=should_stop))

How Stop works: a click on any widget while a script runs asks Streamlit for a rerun, which it delivers as
an exception raised inside the next Streamlit call - here, the progress bar's update (with
``runner.fastReruns = false`` in .streamlit/config.toml; fast reruns would start a second run at once). The bar catches it,
answers ``should_stop()`` with True from then on, the study returns what it has (``stopped=True``), the
result is kept, and only then is the rerun let through: the next run shows the partial result.
"""
from __future__ import annotations

import time

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException

from ui import ready, results
from ui.i18n import say, t

INTERRUPTS = (RerunException, StopException)
EVERY_S = 0.25  # the bar is redrawn at most this often (a study may report every token: each redraw is a message to
                # the browser and a repaint, CPU taken from the timing it shows on a 2-core machine)


def rerun_pending() -> bool:
    """True when a click is waiting for this script run to end: inside a fragment (the steppers) a click only
    queues a fragment rerun and never interrupts, so the bar asks the run's request queue (Streamlit's
    internals: False wherever they are not as expected)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        requests = get_script_run_ctx().script_requests
        return requests is not None and requests._state != ScriptRequestType.CONTINUE
    except Exception:  # noqa: BLE001 - no context, or another Streamlit: no early stop, never an error
        return False


class StudyProgress:
    """Pass as a study's ``progress`` callback and ``should_stop`` check; ``done()`` removes the bar and
    ``release()`` lets through a rerun that arrived meanwhile."""

    def __init__(self, label: str | None = None, stop_key: str | None = None):
        self.t0 = time.perf_counter()
        self.stop = False
        self.fraction = 0.0  # the last fraction drawn (kept on the bar while it says "Stopping…")
        self.drawn: float | None = None  # when the bar was last redrawn (None: not yet) ...
        self.said = None                  # ... and the catalogue id of what it said then
        self.caught: BaseException | None = None  # a rerun / stop delivered while the study ran
        self.box = st.empty()  # one slot for the bar and the button: emptied when the study ends
        inner = self.box.container()
        self.bar = inner.progress(0.0, text=label or t("progress.measuring"))
        if stop_key:
            inner.button(t("progress.stop"), key=f"_stop_{stop_key}")
        ready.settle()  # the study times what it runs: not a new thread's set-up or the click's moment

    def __call__(self, fraction: float, text: str) -> None:
        if self.stop:
            return
        if rerun_pending():
            self._stopping()
            return
        fraction = min(max(fraction, 0.0), 1.0)
        self.fraction = fraction
        now, said = time.perf_counter(), getattr(text, "id", text)
        if self.drawn is not None and fraction < 1 and said == self.said and now - self.drawn < EVERY_S:
            return  # the same kind of report a moment ago (a token's): skip; a new phase is drawn at once
        self.drawn, self.said = now, said
        spent = now - self.t0
        left = t("progress.left", s=spent * (1 - fraction) / fraction) if 0.02 < fraction < 1 else ""
        try:
            self.bar.progress(fraction, text=f"{say(text)} · {spent:.0f} s{left}")
        except INTERRUPTS as exc:  # Stop (or any other click): finish early, rerun after the result is kept
            self.caught = exc
            self._stopping()

    def _stopping(self) -> None:
        """From now on the study is asked to stop; the bar says so at once (the search under way still ends first)."""
        self.stop = True
        for _ in range(2):  # a click's rerun is raised by the first Streamlit call: then the redraw goes through
            try:
                self.bar.progress(self.fraction, text=t("progress.stopping"))
                return
            except INTERRUPTS as exc:
                self.caught = self.caught or exc

    def should_stop(self) -> bool:
        if not self.stop and rerun_pending():  # a study may ask between its reports (Stop clicked meanwhile)
            self._stopping()
        return self.stop

    def done(self) -> None:
        try:
            self.box.empty()
        except INTERRUPTS as exc:
            self.stop, self.caught = True, self.caught or exc

    def release(self) -> None:
        """Raise the rerun caught during the study, if any (call after its result was kept)."""
        if self.caught is not None:
            raise self.caught


def measure(name: str, key, study, label: str | None = None):
    """Run ``study(progress, should_stop)`` with a bar and a Stop button; keep its record under (name, key)."""
    bar = StudyProgress(label, stop_key=name)
    try:
        rec = study(bar, bar.should_stop)
    finally:
        bar.done()
    results.keep(name, key, rec)
    bar.release()
    return rec


def stopped_note(rec, what: str = "") -> None:
    """Say so when a kept record is a stopped study's partial result."""
    if getattr(rec, "stopped", False):
        st.warning(t("progress.stopped", what=what or t("progress.stopped_what")), icon=":material/stop_circle:")


def kept(name: str, key, button: str):
    """``results.get`` for a study: the kept record (None when stale), with a note when it was stopped early."""
    rec = results.get(name, key, button)
    if rec is not None:
        stopped_note(rec)
    return rec
