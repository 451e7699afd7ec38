"""Measured costs are remembered across processes, the fastest per point (sizing.remember_fastest): the curve a size
is chosen from converges to the quiet machine's and stops moving between visits."""
import json

import pytest

from decoding_core import sizing
from tests.conftest import make_tiny_lm


def test_the_store_keeps_the_fastest_of_every_measurement(tmp_path):
    store = tmp_path / "costs.json"
    assert sizing.remember_fastest("k", {1: 0.05, 4: 0.06}, store) == {1: 0.05, 4: 0.06}  # nothing before: as measured
    got = sizing.remember_fastest("k", {1: 0.07, 4: 0.055, 8: 0.08}, store)  # a loaded machine's 1-token figure
    assert got == {1: 0.05, 4: 0.055, 8: 0.08}
    assert json.loads(store.read_text())["k"] == {"1": 0.05, "4": 0.055, "8": 0.08}
    assert sizing.remember_fastest("other", {1: 0.2}, store) == {1: 0.2}  # another key: its own curve
    assert json.loads(store.read_text())["k"]["1"] == 0.05  # ... beside the first


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"k": "nonsense"}', '{"k": {"1": "abc", "4": -1}}'])
def test_a_damaged_store_gives_the_measurement_and_is_written_anew(tmp_path, text):
    store = tmp_path / "costs.json"
    store.write_text(text)
    assert sizing.remember_fastest("k", {1: 0.05, 4: 0.06}, store) == {1: 0.05, 4: 0.06}
    assert json.loads(store.read_text())["k"] == {"1": 0.05, "4": 0.06}


def test_an_unwritable_store_gives_the_measurement(tmp_path):
    store = tmp_path / "a-file" / "costs.json"
    (tmp_path / "a-file").write_text("a file where the store's folder would be")
    assert sizing.remember_fastest("k", {1: 0.05}, store) == {1: 0.05}


def test_forward_and_draft_costs_are_merged_with_an_earlier_process(tmp_path, monkeypatch):
    """A second process (the in-process memory cleared) reads the fastest figures an earlier one stored for this
    model, device and layout, and a model of another size has its own entry."""
    store = tmp_path / "costs.json"
    monkeypatch.setattr(sizing, "cost_store", lambda: store)
    monkeypatch.setattr(sizing, "_costs", {})
    lm = make_tiny_lm(seed=0)
    first = sizing.forward_costs(lm, lengths=(1, 4), prefix=8, rounds=1)
    assert set(first) == {1, 4} and all(v > 0 for v in first.values())
    (key,) = json.loads(store.read_text())
    assert "forward after 8" in key and "threads" in key and "cpu" in key
    fast = {"1": 1e-9, "4": 2e-9}  # an earlier, quieter process (faster than any real timing: no flakiness)
    store.write_text(json.dumps({key: fast}))
    monkeypatch.setattr(sizing, "_costs", {})
    assert sizing.forward_costs(lm, lengths=(1, 4), prefix=8, rounds=1) == {1: fast["1"], 4: fast["4"]}
    monkeypatch.setattr(sizing, "_costs", {})
    bigger = make_tiny_lm(seed=0, hidden=64)
    assert sizing.forward_costs(bigger, lengths=(1, 4), prefix=8, rounds=1)[1] != fast["1"]
    assert len(json.loads(store.read_text())) == 2
    step = sizing.draft_step_cost(lm, lm, prefix=8, rounds=1)  # a draft step: its own entry, merged the same way
    keys = json.loads(store.read_text())
    (draft_key,) = [k for k in keys if k.startswith("draft step")]
    assert step > 0
    store.write_text(json.dumps({**keys, draft_key: {"1": 1e-9}}))
    monkeypatch.setattr(sizing, "_costs", {})
    assert sizing.draft_step_cost(lm, lm, prefix=8, rounds=1) == 1e-9
    # a call timing fewer lengths keeps the points it did not time
    monkeypatch.setattr(sizing, "_costs", {})
    sizing.forward_costs(lm, lengths=(1,), prefix=8, rounds=1)
    assert set(json.loads(store.read_text())[key]) == {"1", "4"}


class Where:
    """Where a page's warning would go: keeps what it was told."""

    def __init__(self):
        self.said = []

    def warning(self, text):
        self.said.append(text)


def test_a_timing_made_on_a_busy_machine_is_flagged(tmp_path, monkeypatch):
    """known_forward_costs reads the fastest forwards stored for this model (measuring nothing); the pages warn under
    a timing whose plain decoding took more than BUSY times what they predict for it (the prompt's read included),
    and stay quiet otherwise, on short runs, or where nothing was ever measured."""
    from ui import lab

    store = tmp_path / "costs.json"
    monkeypatch.setattr(sizing, "cost_store", lambda: store)
    lm = make_tiny_lm(seed=0)
    assert sizing.known_forward_costs(lm) is None  # never measured: no figure, no warning
    store.write_text(json.dumps({sizing._store_key(lm, "forward after 128"): {"1": 0.05, "64": 0.2, "x": "y"}}))
    assert sizing.known_forward_costs(lm) == {1: 0.05, 64: 0.2}

    where = Where()
    # a 40-token prompt and 32 new tokens predict (0.05 + 0.15 * 39 / 63 + 31 * 0.05) / 32 = 0.0529 s a token
    assert not lab.busy_warning(where, lm, 1 / 0.075, 32, 40)  # 75 ms a token: the app's overhead, quiet
    assert not lab.busy_warning(where, lm, 1 / 0.112, 32, 40)  # 2.1x: a quiet machine with the browser on its cores
    assert not lab.busy_warning(where, lm, None, 32, 40) and not lab.busy_warning(where, lm, 0.0, 32, 40)
    assert not lab.busy_warning(where, lm, 1 / 0.2, 4, 40)  # too few tokens for a verdict
    assert lab.busy_warning(where, lm, 1 / 0.2, 32, 40)  # 200 ms a token: 3.8x
    assert where.said == ["Plain decoding took 200 ms a token in this measurement, 3.8× what the fastest forwards "
                          "measured on this machine predict for it (53 ms, the prompt included): the machine was "
                          "probably busy with other work, so these timings and speed-ups are unreliable. Measure "
                          "again when it is quiet."]
    # a long prompt read once is not mistaken for a busy machine: 640 tokens (2 s, linear past 64) over 24 new ones
    assert not lab.busy_warning(where, lm, 1 / 0.15, 24, 640)
    # a comparison's plain run: judged by its tokens/s and length; none or a failed one gives no verdict
    from types import SimpleNamespace as Run

    assert lab.busy_warning_of(where, lm, Run(tokens_per_s=1 / 0.2, new_tokens=32, error=None), 40)
    assert not lab.busy_warning_of(where, lm, Run(tokens_per_s=1 / 0.075, new_tokens=32, error=None), 40)
    assert not lab.busy_warning_of(where, lm, Run(tokens_per_s=1 / 0.2, new_tokens=32, error="no model"), 40)
    assert not lab.busy_warning_of(where, lm, None, 40) and len(where.said) == 2
    store.write_text("{damaged")
    assert sizing.known_forward_costs(lm) is None and not lab.busy_warning(where, lm, 1 / 0.2, 32, 40)


def test_threads_merging_at_once_lose_nothing(tmp_path):
    """The app's sessions are threads of one process: merges made at the same time all land in the store."""
    import threading

    store = tmp_path / "costs.json"
    threads = [threading.Thread(target=sizing.remember_fastest, args=(f"k{i}", {1: 0.01 * (i + 1)}, store))
               for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert json.loads(store.read_text()) == {f"k{i}": {"1": 0.01 * (i + 1)} for i in range(8)}


def test_a_study_that_times_no_decoding_is_judged_by_its_probes(tmp_path, monkeypatch):
    """The sampling-cost study times a probe (one target forward, ``sizing.forward_now``, which stores nothing)
    before its first point, where the regimes change and after its last, and keeps the quiet figure it was given
    (read before the study); the page warns above its charts when the probes' median exceeds BUSY_FORWARD times that
    figure, and says nothing with fewer than two probes (a study stopped at once) or no quiet figure."""
    import torch

    from decoding_core.studies.sampling_cost import sampling_cost
    from ui import lab

    store = tmp_path / "costs.json"
    monkeypatch.setattr(sizing, "cost_store", lambda: store)
    lm = make_tiny_lm(seed=0)
    assert sizing.forward_now(lm, prefix=8, rounds=3) > 0  # a real timing ...
    assert sizing.known_forward_costs(lm, prefix=8) is None and not store.exists()  # ... judged, never stored
    calls = []

    def probe():
        calls.append(len(calls))
        return 0.05

    logits = torch.randn(300, generator=torch.Generator().manual_seed(0))
    rec = sampling_cost(logits, ks=(300,), ns=(1, 10), batches=(1, 8), n_new=8, check=False, probe=probe,
                        probe_quiet=0.04)
    assert rec.probes == (0.05, 0.05, 0.05) and len(calls) == 3  # before "one", before "new", after the last point
    assert rec.probe_quiet == 0.04
    assert sampling_cost(logits, ks=(300,), ns=(1,), regimes=("one",), check=False, probe=probe).probes == (0.05,) * 2
    assert sampling_cost(logits, ks=(300,), ns=(1,), check=False).probes == ()  # no probe: none kept
    stopped = sampling_cost(logits, ks=(300,), ns=(1,), check=False, probe=probe, should_stop=lambda: True)
    assert stopped.stopped and stopped.probes == ()  # stopped before its first point: no probe taken

    where = Where()
    assert not lab.busy_probe_warning(where, (0.0845, 0.0678, 0.081), 0.05)  # the page in Chromium, quiet: 1.6x
    assert not lab.busy_probe_warning(where, (0.05, 0.3, 0.06), 0.05)  # one slow probe (a redraw): no verdict
    assert not lab.busy_probe_warning(where, (0.3,), 0.05)  # one probe (a study stopped in its first regime): none
    assert not lab.busy_probe_warning(where, (), 0.05) and not where.said
    assert not lab.busy_probe_warning(where, (0.3, 0.3, 0.3), None)  # nothing known here before the study: none
    assert lab.busy_probe_warning(where, (0.177, 0.266, 0.306), 0.05)  # beside a unit-test run
    assert where.said == ["While these were timed, one forward of the model took 266 ms (the median of its probes), "
                          "5.3× the fastest measured on this machine (50 ms): the machine was probably busy with "
                          "other work, so the times below are inflated and the crossovers can move. Measure again "
                          "when it is quiet."]
    assert lab.busy_probe_warning(where, (0.15, 0.25), 0.05) and "200 ms" in where.said[-1]  # two: their mean
