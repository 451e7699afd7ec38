"""The benchmark runner runs and reports (figures are not asserted: timings belong to the runner)."""
import json
import subprocess
import sys

from tests.conftest import ROOT


def test_bench_quick_sections_write_json(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, "-m", "decoding_core", "bench", "--quick", "--only", "hardware,overhead",
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(out.read_text())
    names = [r["name"] for r in data["rows"]]
    assert "memory read bandwidth (streaming sum)" in names and "step-wise / bare (target >= 0.95)" in names
    assert all(r["value"] == r["value"] for r in data["rows"]), "a section failed (NaN row)"
    assert "| section | measurement | value | unit |" in proc.stdout
    assert data["info"]["device"] and data["info"]["dtype"] == "torch.float32"


def test_bench_rejects_unknown_section():
    proc = subprocess.run([sys.executable, "-m", "decoding_core", "bench", "--only", "nope"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "unknown bench section" in proc.stderr


def test_assisted_pairing_drafts_exactly_n_per_step(embedded):
    """transformers' assisted generation reads the draft length and a confidence stop from the ASSISTANT's
    generation config (defaults: 20 tokens, stop below 0.4): the benchmark's "same draft and N" pairing must make
    it draft exactly N tokens every step, and leave the assistant's config as it was."""
    from decoding_core.bench import Bench
    from decoding_core.draft import load_embedded_draft

    draft = load_embedded_draft(embedded)
    before = draft.model.generation_config.to_dict()
    bench = Bench(embedded, quick=True)
    bench.n = 16
    ours, assisted = bench.assisted_pairing(draft, n_draft=3)
    calls = []
    hooks = [draft.model.register_forward_hook(lambda *a: calls.append("d")),
             embedded.model.register_forward_hook(lambda *a: calls.append("t"))]
    try:
        out = assisted(bench.heldout[0])
    finally:
        for h in hooks:
            h.remove()
    rounds = "".join(calls).split("t")[:-1]          # draft calls before each verify pass
    assert len(rounds) >= 2 and out.shape[1] == len(bench.heldout[0]) + 16
    lens = [len(r) for r in rounds]
    full = next((k for k, n in enumerate(lens) if n != 3), len(lens))
    # N = 3 drafts every step until the token budget caps the last ones (2, 1, then 0 left to draft)
    assert full >= len(lens) - 3 and lens[full:] == sorted(lens[full:], reverse=True) and max(lens) == 3, lens
    assert draft.model.generation_config.to_dict() == before
    r = ours(bench.heldout[0])
    assert r.metrics["sizes"]["n_draft"] == 3 and len(r.tokens) == 16
