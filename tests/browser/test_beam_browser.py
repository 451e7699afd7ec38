"""The Beam Search page in Chromium: step, run, find the search tree and the frontier."""
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import at_least, no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser


def test_beam_page_steps_and_draws_the_tree(server, page):
    page.goto(server + "/beam?beam_max_new=6&use_ap=true&ap=1.5")
    wait_idle(page)
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    page.get_by_text("Step 1", exact=True).wait_for()
    page.locator("[data-testid='stGraphVizChart'] svg").first.wait_for(timeout=30_000)
    assert at_least(page.locator("[data-testid='stGraphVizChart'] svg g.node"), 4) > 3
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


def rendered_label_px(page, chart: int = 0) -> list[float]:
    """On-screen heights (px) of the main labels (the 14 pt token text) of a graphviz chart."""
    return page.evaluate("""(i) => Array.from(document.querySelectorAll("[data-testid='stGraphVizChart']")[i]
        .querySelectorAll("svg text")).filter(t => t.getAttribute('font-size') === '14.00')
        .map(t => t.getBoundingClientRect().height)""", chart)


def test_a_long_search_stays_readable_and_pins_for_a_b(server, page):
    """16 steps: the default tree shows the last 4 steps at a readable size (the whole search on demand);
    a pinned run and the next one are drawn side by side."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(server + "/beam?beam_max_new=16&k=4")
    wait_idle(page)
    page.get_by_role("button", name="Run to end").click()
    wait_idle(page, timeout=240_000)
    page.locator("[data-testid='stGraphVizChart'] svg").first.wait_for(timeout=30_000)
    heights = rendered_label_px(page)
    assert heights and min(heights) >= 11, heights   # the 14 pt labels, as scaled to the page
    page.get_by_text("whole search").click()
    wait_idle(page)
    assert at_least(page.locator("[data-testid='stGraphVizChart'] svg g.node"), 17) > 16
    page.get_by_role("button", name="Pin this run as A").click()
    wait_idle(page)
    page.get_by_text("A (pinned)").first.wait_for()
    expect(page.locator("[data-testid='stGraphVizChart']")).to_have_count(3, timeout=60_000)
    no_exception(page)
    screenshot(page, "beam-pinned")
