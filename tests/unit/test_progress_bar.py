"""The study progress bar redraws at most every EVERY_S seconds (a study may report every token), always draws its
first and final report, answers a pending Stop at every report and at every ``should_stop()``, and says at once that
it is stopping."""
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

import ui.progress as progress
from ui.i18n import t


class FakeBar:
    def __init__(self):
        self.drawn, self.texts = [], []

    def progress(self, fraction, text=""):
        self.drawn.append(fraction)
        self.texts.append(text)


def new_bar():
    bar = progress.StudyProgress.__new__(progress.StudyProgress)
    bar.t0, bar.stop, bar.drawn, bar.said, bar.caught, bar.bar, bar.fraction = 0.0, False, None, None, None, FakeBar(), 0.0
    return bar


def test_the_bar_is_redrawn_at_most_every_quarter_second(monkeypatch):
    clock = iter([0.0] + [0.01 * i for i in range(1, 200)])
    monkeypatch.setattr(progress.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(progress, "rerun_pending", lambda: False)
    bar = new_bar()
    for i in range(1, 100):  # 99 reports 10 ms apart: ~1 s
        bar(i / 100, "token")
    drawn = bar.bar.drawn
    assert drawn[0] == 0.01  # the first report
    assert 4 <= len(drawn) <= 5  # ~every 0.25 s over one second, not 99 repaints
    bar(0.995, "another phase")  # a new kind of report 10 ms after a token's: drawn at once, not left to the next
    assert bar.bar.drawn[-1] == 0.995
    bar(1.0, "another phase")  # the final one: always
    assert bar.bar.drawn[-1] == 1.0
    monkeypatch.setattr(progress, "rerun_pending", lambda: True)
    bar(0.5, "token")  # a Stop click between redraws is still seen at once
    assert bar.should_stop()
    assert bar.bar.texts[-1] == t("progress.stopping") and bar.bar.drawn[-1] == 1.0  # said at once, the bar kept


def test_a_stop_is_seen_between_reports_and_said_at_once(monkeypatch):
    monkeypatch.setattr(progress, "rerun_pending", lambda: False)
    bar = new_bar()
    bar(0.3, "setting")
    assert not bar.should_stop()
    monkeypatch.setattr(progress, "rerun_pending", lambda: True)  # Stop clicked while a search ran, no report since
    assert bar.should_stop()
    assert bar.bar.texts[-1] == t("progress.stopping") and bar.bar.drawn[-1] == 0.3


def test_the_click_raised_by_a_redraw_is_kept_and_the_stop_still_said(monkeypatch):
    class RaisingOnce(FakeBar):
        def progress(self, fraction, text=""):
            if not self.drawn and not getattr(self, "raised", False):
                self.raised = True
                raise RerunException(None)
            super().progress(fraction, text)

    monkeypatch.setattr(progress, "rerun_pending", lambda: False)
    bar = new_bar()
    bar.bar = RaisingOnce()
    bar(0.4, "setting")  # the click arrives as the exception of this redraw
    assert bar.should_stop() and isinstance(bar.caught, RerunException)  # let through after the result is kept
    assert bar.bar.texts == [t("progress.stopping")] and bar.bar.drawn == [0.4]
