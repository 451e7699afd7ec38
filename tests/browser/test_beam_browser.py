"""The Beam Search page in Chromium: step, run, find the search tree and the frontier."""
import pytest

from tests.browser.conftest import no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser


def test_beam_page_steps_and_draws_the_tree(server, page):
    page.goto(server + "/beam?beam_max_new=6&use_ap=true&ap=1.5")
    wait_idle(page)
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    page.get_by_text("Step 1", exact=True).wait_for()
    page.locator("[data-testid='stGraphVizChart'] svg").first.wait_for(timeout=30_000)
    assert page.locator("[data-testid='stGraphVizChart'] svg g.node").count() > 3
    page.get_by_role("button", name="Run to end").click()
    wait_idle(page)
    page.get_by_text("n-best list").wait_for()
    page.get_by_text("What pruning saved").wait_for()
    no_exception(page)
    screenshot(page, "beam")


def test_stochastic_beams_and_the_threshold_sweep(server, page):
    page.goto(server + "/beam?beam_max_new=3&k=2&stochastic=true")
    wait_idle(page)
    page.get_by_role("button", name="Run to end").click()
    wait_idle(page)
    page.get_by_text("sampled without replacement").wait_for()
    page.get_by_role("button", name="Measure the thresholds").click()
    wait_idle(page, timeout=600_000)
    page.get_by_text("Pruning: what it saves").first.wait_for()
    no_exception(page)
    screenshot(page, "beam-stochastic-and-sweep")
