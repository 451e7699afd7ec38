"""`python -m decoding_core study NAME` on the embedded model gives the same record as the page's function."""
import json

import pytest

from decoding_core.cli import main
from decoding_core.settings import SamplingSettings
from decoding_core.studies import as_json, sampling

CHAT = "Write a short poem about the sea."


def study(capsys, *args) -> dict:
    assert main(["study", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_next_token_study_matches_the_function(capsys, embedded):
    out = study(capsys, "next-token", "--chat", CHAT, "--temperature", "0.7", "--top-k", "5", "--top-n", "12")
    assert out["study"] == "next-token" and out["settings"]["strategy"]["sampling"]["top_k"] == 5
    assert out["settings"]["study"] == {"top_n": 12} and out["prompt"] == CHAT and out["chat"] is True
    rec = sampling.next_token(embedded, embedded.encode(CHAT, chat=True), SamplingSettings(temperature=0.7, top_k=5), 12)
    assert out["ids"] == list(rec.ids) and out["kept"] == 5
    assert out["processed"] == pytest.approx(list(rec.processed), abs=1e-6)
    assert as_json(rec)["texts"] == out["texts"]


def test_compare_study_runs_the_greedy_family(capsys):
    out = study(capsys, "compare", "--chat", CHAT, "--max-new-tokens", "6", "--strategies", "greedy,beam,speculative",
                "--num-beams", "1", "--draft", "prompt-lookup", "--n-draft", "2")
    runs = out["runs"]
    assert [r["strategy"] for r in runs] == ["greedy", "beam", "speculative"]
    assert all(r["same_as_reference"] for r in runs[1:]) and all(r["new_tokens"] <= 6 for r in runs)
    assert [c["type"] for c in out["settings"]["strategies"]] == ["Greedy", "Beam", "Speculative"]
    assert "strategy" not in out["settings"]  # compare runs its list, not --strategy
    assert out["settings"]["strategies"][2]["n_draft"] == 2


def test_study_names_its_options_that_it_does_not_read(capsys, caplog):
    out = study(capsys, "next-token", "--chat", CHAT, "--top-n", "3", "--draws", "7", "--max-n", "2")
    assert "--draws, --max-n not read by the next-token study" in caplog.text
    assert out["settings"]["study"] == {"top_n": 3} and len(out["ids"]) == 3
    assert main(["study", "n-sweep", "--chat", CHAT, "--strategy", "speculative", "--max-n", "99"]) == 2
    assert "largest N" in capsys.readouterr().err


def test_bad_study_options_exit_2(capsys):
    assert main(["study", "diversity", "--chat", CHAT]) == 2  # the diversity study needs --strategy beam
    assert "needs --strategy beam" in capsys.readouterr().err
    assert main(["study", "next-token", "--chat", CHAT, "--top-p", "2"]) == 2
    assert "top-p" in capsys.readouterr().err


def test_sampling_cost_study_prints_rows_and_exactness(capsys):
    out = study(capsys, "sampling-cost", "--chat", CHAT, "--k", "100,1000", "--n", "1,100", "--regime", "one",
                "--budget", "0.5")
    assert {(r["method"], r["k"], r["n"]) for r in out["rows"]} >= {("alias", 100, 1), ("gumbel-max", 1000, 100)}
    assert all(set(r) >= {"method", "regime", "k", "n", "batch", "seconds"} for r in out["rows"])
    assert {e["method"] for e in out["exactness"]} == {"linear-scan", "binary-search", "alias", "multinomial",
                                                       "gumbel-max", "exp-race"}
    assert all(e["p_value"] > 1e-4 for e in out["exactness"])  # every method exact (fixed seed)
    assert len(out["probes"]) == 2 and all(s > 0 for s in out["probes"])  # one forward before and after: busy?
    assert "probe_quiet" in out  # the fastest stored before the study (null where none was)


def test_pruning_sweep_study_from_a_prompts_file(capsys, tmp_path):
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps(["Name a fruit.", "Say hello."]))
    out = study(capsys, "pruning-sweep", "--prompts", str(path), "--num-beams", "2", "--max-new-tokens", "3")
    assert len(out["rows"]) == 18 and out["prompts"] == 2
    ran = out["settings"]["strategy"]  # what the sweep ran: a beam of --num-beams, not the default greedy
    assert ran["type"] == "Beam" and ran["beam"]["num_beams"] == 2
    row = out["rows"][0]
    assert set(row["settings"]) == {"rp", "ap", "rpl", "mc"} and 0 <= row["best_unchanged"] <= 1
    rec = out["recommendation"]
    assert rec is None or (rec["best_unchanged"] >= 0.9 and set(rec["settings"]) == {"rp", "ap", "rpl", "mc"})
    path.write_text("not json")
    assert main(["study", "pruning-sweep", "--prompts", str(path)]) == 2
    assert "JSON list" in capsys.readouterr().err
