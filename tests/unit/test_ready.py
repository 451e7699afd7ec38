"""ui/ready.py: a script run's thread builds its OpenMP pool once, before anything is timed, and pauses after a
click on a small machine (DECODING_LAB_SETTLE_S overrides the pause)."""
import threading

import ui.ready as ready


def test_warm_runs_one_parallel_operation_per_thread(monkeypatch):
    made = []
    real_ones = ready.torch.ones
    monkeypatch.setattr(ready.torch, "get_num_threads", lambda: 2)
    monkeypatch.setattr(ready.torch, "ones", lambda *a, **k: made.append(a) or real_ones(*a, **k))
    monkeypatch.setattr(ready, "_local", threading.local())

    def twice():
        ready.warm()
        ready.warm()

    twice()
    assert made == [(1 << 16,)]  # once in this thread, above ATen's grain size of 32,768 elements
    worker = threading.Thread(target=twice)
    worker.start()
    worker.join()
    assert len(made) == 2  # a new thread (as each Streamlit script run is) builds its own pool


def test_warm_does_nothing_with_one_thread(monkeypatch):
    made = []
    monkeypatch.setattr(ready.torch, "get_num_threads", lambda: 1)
    monkeypatch.setattr(ready.torch, "ones", lambda *a, **k: made.append(a))
    monkeypatch.setattr(ready, "_local", threading.local())
    ready.warm()
    assert made == []


def test_settle_pauses_on_small_machines_only(monkeypatch):
    slept = []
    monkeypatch.setattr(ready.time, "sleep", slept.append)
    monkeypatch.delenv("DECODING_LAB_SETTLE_S", raising=False)
    monkeypatch.setattr(ready.os, "cpu_count", lambda: 2)
    ready.settle()
    assert slept == [ready.SETTLE_S]
    monkeypatch.setattr(ready.os, "cpu_count", lambda: 16)
    ready.settle()
    assert slept == [ready.SETTLE_S]  # no pause where the browser does not share two cores with the model


def test_the_environment_sets_the_pause(monkeypatch):
    monkeypatch.setattr(ready.os, "cpu_count", lambda: 16)
    for raw, want in [("0", 0.0), ("0.3", 0.3), ("-1", 0.0), ("99", 2.0)]:
        monkeypatch.setenv("DECODING_LAB_SETTLE_S", raw)
        assert ready.settle_seconds() == want
    monkeypatch.setenv("DECODING_LAB_SETTLE_S", "soon")
    assert ready.settle_seconds() == 0.0  # not a number: the machine's default (none on 16 cores)
