"""Downloads in Chromium: a figure as SVG (rendered on the server by kaleido) and the step-through's steps as CSV,
checked on the downloaded files."""
import csv
import io

import pytest

from tests.browser.conftest import download_figure_svg, no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser


def test_download_a_figure_as_svg_and_the_steps_as_csv(server, page, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(server + "/sampling?max_new=4&draws=100")
    wait_idle(page)
    name, root = download_figure_svg(page, tmp_path / "figure.svg")  # the next-token distribution's
    assert name == "decoding-lab-sampling-next-token.svg"
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    shown = " ".join(root.itertext())
    assert "The reply’s first token, after “…" in shown and "probability" in shown  # the user's words, chat on
    page.keyboard.press("Escape")

    for _ in range(2):
        page.get_by_role("button", name="Step", exact=True).click()
        wait_idle(page)
    strip = page.locator("[data-testid='token-strip'] span").all_text_contents()
    with page.expect_download(timeout=60_000) as info:
        page.get_by_role("button", name="Download the steps (CSV)").click()
    assert info.value.suggested_filename == "decoding-lab-sampling-steps.csv"
    path = tmp_path / "steps.csv"
    info.value.save_as(path)
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    assert [r["step"] for r in rows] == ["1", "2"]
    assert [r["token"] for r in rows] == strip           # the tokens the strip shows, glyphs and all
    assert all(0 < float(r["p"]) <= 1 for r in rows)
    no_exception(page)
    screenshot(page, "exports-sampling")
