"""The study progress bar redraws at most every EVERY_S seconds (a study may report every token), always draws its
first and final report, and answers a pending Stop at every report."""
import ui.progress as progress


class FakeBar:
    def __init__(self):
        self.drawn = []

    def progress(self, fraction, text=""):
        self.drawn.append(fraction)


def test_the_bar_is_redrawn_at_most_every_quarter_second(monkeypatch):
    clock = iter([0.0] + [0.01 * i for i in range(1, 200)])
    monkeypatch.setattr(progress.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(progress, "rerun_pending", lambda: False)
    bar = progress.StudyProgress.__new__(progress.StudyProgress)
    bar.t0, bar.stop, bar.drawn, bar.caught, bar.bar = 0.0, False, 0.0, None, FakeBar()
    for i in range(1, 101):  # 100 reports 10 ms apart: 1 s
        bar(i / 100, "token")
    drawn = bar.bar.drawn
    assert drawn[0] == 0.01 and drawn[-1] == 1.0  # the first report and the last (full) one
    assert 4 <= len(drawn) <= 6  # ~every 0.25 s over one second, not 100 repaints
    monkeypatch.setattr(progress, "rerun_pending", lambda: True)
    bar(0.5, "token")  # a Stop click between redraws is still seen at once
    assert bar.should_stop()
