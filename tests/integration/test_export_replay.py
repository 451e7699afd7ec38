"""A run as JSON and back (decoding_core/export.py): every strategy's step records round-trip to equal typed
records; `run --out` and `replay` on the embedded model; a partial (page) export replays its steps."""
import json
import subprocess
import sys

import pytest

from decoding_core.cli import main as cli_main
from decoding_core.export import SCHEMA, read_run, run_record, to_json
from decoding_core.settings import (Beam, BeamSettings, Eagle, Greedy, RunSettings, Sample, SamplingSettings,
                                    Speculative, StochasticBeam)
from decoding_core.strategies import build_decoder, direct_loaders
from tests.conftest import ROOT

STRATEGIES = [Greedy(), Sample(SamplingSettings(temperature=0.8, top_p=0.9)), Beam(BeamSettings(3, rp=0.5)),
              StochasticBeam(3, 1.0), Speculative("embedded", 3), Speculative("prompt-lookup", 3),
              Eagle(head="eagle1", total_tokens=10, depth=3)]


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: type(s).__name__)
def test_every_strategy_round_trips(embedded, strategy, tmp_path):
    prompt = embedded.encode("Name a fruit.", chat=True)
    run = RunSettings(5, seed=1)
    dec = build_decoder(embedded, strategy, run, direct_loaders()).start(prompt)
    dec.run()
    rec = run_record(embedded, strategy, run, dec, "Name a fruit.", True, "embedded", "cpu", "float32")
    assert rec["schema"] == SCHEMA and {"settings", "steps", "metrics", "versions"} <= set(rec)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(rec))
    back = read_run(path)
    assert [type(s) for s in back["steps"]] == [type(s) for s in dec.history]
    assert [to_json(s) for s in back["steps"]] == rec["steps"]          # the same records, field for field
    assert back["settings"]["run"] == run
    assert back["settings"]["strategy"] == strategy
    assert cli_main(["replay", str(path)]) == 0


def test_run_out_then_replay_and_a_tampered_file(tmp_path):
    out = tmp_path / "beam.json"
    cmd = [sys.executable, "-m", "decoding_core", "run", "--chat", "Name a fruit.", "--strategy", "beam",
           "--num-beams", "3", "--max-new-tokens", "6", "--out", str(out)]
    assert subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=600).returncode == 0
    rec = json.loads(out.read_text())
    assert rec["versions"]["model"] and rec["complete"] and len(rec["tokens"]) == 6
    ok = subprocess.run([sys.executable, "-m", "decoding_core", "replay", str(out)], cwd=ROOT, capture_output=True,
                        text=True, timeout=600)
    assert ok.returncode == 0 and json.loads(ok.stdout)["equal"]
    rec["tokens"][0] += 1
    out.write_text(json.dumps(rec))
    assert cli_main(["replay", str(out)]) == 1
    out.write_text("{}")
    assert cli_main(["replay", str(out)]) == 2        # not a run file: a usage error, one line


def test_a_partial_export_replays_its_steps(embedded, tmp_path):
    prompt = embedded.encode("Name a fruit.", chat=True)
    strategy, run = Sample(SamplingSettings(temperature=1.0), "gumbel"), RunSettings(48, seed=4)
    dec = build_decoder(embedded, strategy, run).start(prompt)
    for _ in range(3):
        dec.step()
    rec = run_record(embedded, strategy, run, dec, "Name a fruit.", True, "embedded", "cpu", "float32")
    assert not rec["complete"] and len(rec["tokens"]) == 3
    (tmp_path / "p.json").write_text(json.dumps(rec))
    assert cli_main(["replay", str(tmp_path / "p.json")]) == 0


def test_auto_sizes_are_recorded_as_the_sizes_used():
    from types import SimpleNamespace

    from decoding_core.export import resolved

    assert resolved(Speculative("embedded", "auto"), SimpleNamespace(n_draft=2)) == Speculative("embedded", 2)
    assert resolved(Eagle(), SimpleNamespace(total_tokens=6, depth=2)) == Eagle(total_tokens=6, depth=2)
    assert resolved(Greedy(), SimpleNamespace()) == Greedy()


def test_a_comparison_export_replays_every_column_and_a_tampered_one_fails(embedded, tmp_path):
    """The Compare page's JSON (decoding-lab/compare/1): each column with its own settings, "auto" sizes
    resolved, a column that ran with other run settings (stale) replayed with those; replay exits 0, then 1."""
    from decoding_core.export import COMPARE_SCHEMA, comparison_record, read_comparison
    from decoding_core.studies.compare import compare

    prompt = embedded.encode("Name a fruit.", chat=True)
    columns = [Greedy(), Sample(SamplingSettings(temperature=1.2, top_k=30)), Speculative("embedded"),
               Eagle(head="eagle3", total_tokens=10, depth=3)]
    run, other = RunSettings(6, seed=3), RunSettings(4, seed=5)
    cmp = compare(embedded, prompt, columns[:3], run, loaders=direct_loaders())
    stale = compare(embedded, prompt, columns[3:], other, loaders=direct_loaders()).runs[0]
    rows = [(i, s, r, "fresh", run) for i, (s, r) in enumerate(zip(columns, cmp.runs), 1)] + \
        [(4, columns[3], stale, "stale", other)]
    rec = comparison_record(embedded, rows, run, 1, prompt, "Name a fruit.", True, "embedded", "cpu", "float32")
    assert rec["schema"] == COMPARE_SCHEMA and [c["column"] for c in rec["columns"]] == [1, 2, 3, 4]
    path = tmp_path / "compare.json"
    path.write_text(json.dumps(rec))
    back = read_comparison(path)
    assert back["columns"][2]["strategy"].n_draft == cmp.runs[2].sizes["n_draft"]  # "auto" written as the N used
    assert back["columns"][3]["run"] == other and back["columns"][1]["strategy"] == columns[1]
    done = subprocess.run([sys.executable, "-m", "decoding_core", "replay", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [c["equal"] for c in json.loads(done.stdout)["columns"]] == [True] * 4
    rec["columns"][1]["tokens"][-1] += 1
    path.write_text(json.dumps(rec))
    assert cli_main(["replay", str(path)]) == 1
