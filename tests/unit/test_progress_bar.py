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
    bar.t0, bar.stop, bar.drawn, bar.said, bar.caught, bar.bar = 0.0, False, None, None, None, FakeBar()
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
