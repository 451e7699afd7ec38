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


def test_stop_during_the_sweeps_first_searches_is_heard_and_said(server, page):
    """Stop pressed while the threshold sweep runs its searches without pruning (the first 9 of 81): the bar says
    "Stopping…", the sweep ends within the search under way (it went on through all of them: a minute on a busy
    machine), and the page says no setting was measured (it had concluded "No setting keeps the best hypothesis")."""
    page.goto(server + "/beam?beam_max_new=16")
    wait_idle(page)
    page.get_by_role("button", name="Measure the thresholds").click()
    stop = page.get_by_role("button", name="Stop (keep what is measured so far)")
    stop.wait_for(timeout=60_000)
    page.wait_for_timeout(1500)
    stop.click()
    wait_idle(page, timeout=60_000)
    page.get_by_text("No setting was measured before the stop", exact=False).wait_for(timeout=30_000)
    assert page.get_by_text("Stopped early", exact=False).count() >= 1
    assert page.get_by_text("No setting keeps the best hypothesis", exact=False).count() == 0
    no_exception(page)


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


SPLIT_WORDS = """() => {  // words of metric and widget labels drawn on two lines (one rect per line a word spans),
    const out = [];      // and how many labels were looked at
    let labels = 0;
    for (const p of document.querySelectorAll("[data-testid='stMetricLabel'] p, [data-testid='stWidgetLabel'] p")) {
        const text = p.firstChild;
        if (!text || text.nodeType !== Node.TEXT_NODE) continue;
        labels += 1;
        let at = 0;
        for (const word of text.textContent.split(" ")) {
            const r = document.createRange();
            r.setStart(text, at); r.setEnd(text, at + word.length); at += word.length + 1;
            const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
            if (word && tops.size > 1) out.push(word);
        }
    }
    return [out, labels];
}"""


MISALIGNED_ROWS = """() => {  // rows of metrics whose values are not drawn on one line, and how many rows were looked at
    const rows = new Map();
    for (const v of document.querySelectorAll("[data-testid='stMetricValue']")) {
        const row = v.closest("[data-testid='stHorizontalBlock']");
        if (!rows.has(row)) rows.set(row, []);
        rows.get(row).push(v.getBoundingClientRect().top);
    }
    const off = Array.from(rows.values()).filter(tops => Math.max(...tops) - Math.min(...tops) > 2);
    return [off.length, rows.size];
}"""


def tree_text_px(page) -> float:
    """The on-screen height (px) of the tallest text in the page's first graphviz chart, once it is drawn (the tree is
    drawn after the script goes idle)."""
    page.locator("[data-testid='stGraphVizChart'] svg text").first.wait_for(timeout=30_000)
    heights = page.evaluate("""() => Array.from(document.querySelector("[data-testid='stGraphVizChart']")
        .querySelectorAll("svg text")).map(t => t.getBoundingClientRect().height)""")
    assert heights
    return max(heights)


def test_presentation_mode_keeps_words_whole_and_metrics_large(server, page):
    """At 1280 x 720 in presentation mode the Beam page's metric and widget labels break between words, not inside them
    ("Hypothese / s fed", "Absolut / e ap" before), a metric's value is drawn larger than its label (it read at body
    size) and the values of a row of metrics on one line, the page list's entries stay inside their highlight (right and bottom), and the tree's type is larger than
    without the mode."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(server + "/beam?beam_max_new=2&use_ap=true&ap=1.5")
    wait_idle(page)
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    plain = tree_text_px(page)
    page.goto(server + "/beam?present=true&beam_max_new=2&use_ap=true&ap=1.5")
    wait_idle(page)
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    page.locator("[data-testid='stMetricValue']").first.wait_for()
    split, labels = page.evaluate(SPLIT_WORDS)
    assert split == [] and labels >= 10, (split, labels)
    label_px, value_px = page.evaluate("""() => [
        parseFloat(getComputedStyle(document.querySelector("[data-testid='stMetricLabel'] p")).fontSize),
        parseFloat(getComputedStyle(document.querySelector("[data-testid='stMetricValue'] p")).fontSize)]""")
    assert value_px >= 1.5 * label_px, (label_px, value_px)
    off, rows = page.evaluate(MISALIGNED_ROWS)  # "Hypotheses fed" on two lines put its value below "Total fed"'s
    assert off == 0 and rows >= 3, (off, rows)
    outside = page.evaluate("""() => Array.from(document.querySelectorAll("[data-testid='stSidebarNavLink']"))
        .filter(a => { const p = a.querySelector("p").getBoundingClientRect(), box = a.getBoundingClientRect();
                       return p.right > box.right + 1 || p.bottom > box.bottom + 1; })
        .map(a => a.textContent)""")
    assert outside == []
    assert tree_text_px(page) >= 1.2 * plain
    no_exception(page)
    screenshot(page, "beam-present")
