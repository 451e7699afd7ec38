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
