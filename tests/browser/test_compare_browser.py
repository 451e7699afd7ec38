"""Compare in Chromium: three columns with their own settings from a link, run, then the comparison's JSON (which
`replay` decodes again to the same tokens) and the metrics chart as SVG, checked on the downloaded files."""
import json
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import download_figure_svg, no_exception, screenshot, wait_idle
from tests.conftest import ROOT

pytestmark = pytest.mark.browser
LINK = ("/compare?cmp_max_new=8&cmp_cols=3&c1=greedy&c2=sample:temperature%3D1.3,top_k%3D40"
        "&c3=beam:num_beams%3D3,rp%3D0.5")


def test_three_columns_with_their_own_settings_run_and_download(server, page, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(server + LINK)
    wait_idle(page)
    page.get_by_role("button", name="Run all").click()
    wait_idle(page, timeout=300_000)
    table = page.locator("[data-testid='stDataFrame']").first
    table.wait_for()
    expect(page.locator("[data-testid='token-strip']")).to_have_count(3, timeout=60_000)  # each column's output, coloured
    screenshot(page, "compare-three-columns")

    with page.expect_download(timeout=60_000) as info:
        page.get_by_role("button", name="Download the comparison (JSON)").click()
    path = tmp_path / "compare.json"
    info.value.save_as(path)
    rec = json.loads(path.read_text())
    assert [c["spec"] for c in rec["columns"]] == ["greedy", "sample:temperature=1.3,top_k=40",
                                                   "beam:num_beams=3,rp=0.5"]
    assert all(len(c["tokens"]) <= 8 and c["metrics"]["logprob"] < 0 for c in rec["columns"])
    done = subprocess.run([sys.executable, "-m", "decoding_core", "replay", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr

    name, root = download_figure_svg(page, tmp_path / "metrics.svg")
    assert name == "decoding-lab-compare-metrics.svg"
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and "tokens / s" in " ".join(root.itertext())
    no_exception(page)
