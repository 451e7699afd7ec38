"""Speculative decoding, EAGLE and Compare pages in Chromium on the embedded model."""
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import at_least, no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser


def test_speculative_page_shows_accepted_and_rejected(server, page):
    page.goto(server + "/speculative?spec_max_new=40")
    wait_idle(page)
    page.get_by_role("button", name="Run to end").click()
    wait_idle(page)
    text = page.locator("[data-testid='spec-text']")
    text.wait_for()
    assert at_least(text.locator(".tok-accepted"), 1) > 0
    assert at_least(text.locator(".tok-rejected"), 1) > 0
    page.get_by_text("Speed-up (measured)").wait_for()
    no_exception(page)
    screenshot(page, "speculative")


def test_speculative_sweep_shows_the_price_of_a_long_draft(server, page):
    page.goto(server + "/speculative?sweep_max_n=3&sweep_tokens=8")
    wait_idle(page)
    page.get_by_role("button", name="Run the sweep").click()
    wait_idle(page, timeout=300_000)
    page.get_by_text("The price of a long draft").wait_for()
    page.get_by_text("What a user waits per step").first.wait_for()
    no_exception(page)
    screenshot(page, "speculative-sweep")


def test_eagle_page_shows_tree_and_mask(server, page):
    page.goto(server + "/eagle?eagle_max_new=24")
    wait_idle(page)
    for _ in range(2):
        page.get_by_role("button", name="Step", exact=True).click()
        wait_idle(page)
    page.locator("[data-testid='stGraphVizChart'] svg").first.wait_for(timeout=30_000)
    assert at_least(page.locator("[data-testid='stGraphVizChart'] svg g.node"), 2) >= 2
    # the tree's text at the size its boxes were laid out for (Streamlit's own style drew every size at 9.6 px)
    sizes = page.evaluate("""() => [...document.querySelectorAll("[data-testid='stGraphVizChart'] svg text")]
                             .map(e => [e.getAttribute('font-size'), getComputedStyle(e).fontSize])""")
    assert sizes and all(float(attr) == float(css.removesuffix("px")) for attr, css in sizes), sizes
    page.get_by_text("Tree attention mask").first.wait_for()  # the panel title (its second line: "(what EAGLE uses)")
    no_exception(page)
    screenshot(page, "eagle")


def test_compare_page(server, page):
    page.goto(server + "/compare?cmp_max_new=8")
    wait_idle(page)
    page.get_by_role("button", name="Run all").click()
    wait_idle(page, timeout=300_000)
    page.locator("[data-testid='stDataFrame']").wait_for()
    no_exception(page)
    screenshot(page, "compare")


def test_eagle_heads_and_device_sizing(server, page):
    """The EAGLE-3 head with its tree sized for this device (the measured cost curve and the chosen point),
    then EAGLE-1 from a link; both draft trees the target verifies."""
    from decoding_core.heads import default_head

    if default_head() != "eagle3":
        pytest.skip("the EAGLE-3 head is not shipped in this checkout")
    page.goto(server + "/eagle?eagle_head=eagle3&eagle_max_new=24")
    wait_idle(page, timeout=180_000)
    page.get_by_text("Sized for this device").first.wait_for()
    page.get_by_text("Choosing the tree size for this device").wait_for()
    for _ in range(2):
        page.get_by_role("button", name="Step", exact=True).click()
        wait_idle(page)
    assert at_least(page.locator("[data-testid='stGraphVizChart'] svg g.node"), 2) >= 2
    no_exception(page)
    screenshot(page, "eagle3")
    page.goto(server + "/eagle?eagle_head=eagle1&eagle_max_new=24&tree_auto=false&total_tokens=24")
    wait_idle(page)
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    assert at_least(page.locator("[data-testid='stGraphVizChart'] svg g.node"), 2) >= 2
    no_exception(page)
    screenshot(page, "eagle1")


def test_eagle_lookup_branch_is_drawn_in_the_tree(server, page):
    """A link with a lookup branch: after a few steps the whole tree shows nodes copied from the text."""
    page.goto(server + "/eagle?eagle_max_new=24&eagle_lookup=8&eagle_tree_view=whole%20tree"
              "&prompt=Repeat%20after%20me%3A%20the%20quick%20brown%20fox%20jumps%20over%20the%20lazy%20dog.")
    wait_idle(page, timeout=180_000)
    copied = page.locator("[data-testid='stGraphVizChart'] svg text", has_text="copied")
    for step in range(5):  # the branch copies after a match of 2-3 tokens: the answer soon repeats the prompt's words
        page.get_by_role("button", name="Step", exact=True).click()
        wait_idle(page)
        if step:  # the first step is the prefill: no tree yet
            page.get_by_text(f"Step {step + 1}").first.wait_for(timeout=30_000)  # this step's tree, not the last one's
            try:
                at_least(copied, 1, timeout=8_000)  # the tree mounts after the script is idle
                break
            except PlaywrightTimeout:
                continue
    assert at_least(copied, 1) >= 1
    no_exception(page)
    screenshot(page, "eagle-lookup")


def test_a_stopped_study_keeps_its_partial_result(server, page):
    """Run all on Compare with long outputs, press Stop while it measures: the runs finished so far (and the
    one under way, cut where it stopped) are shown, marked as stopped."""
    page.goto(server + "/compare?cmp_max_new=200&cmp_cols=3&c1=greedy&c2=sample&c3=beam")
    wait_idle(page)
    page.get_by_role("button", name="Run all").click()
    stop = page.get_by_role("button", name="Stop (keep what is measured so far)")
    stop.wait_for(timeout=60_000)
    page.get_by_text("of 200 tokens").first.wait_for(timeout=60_000)  # decoding is under way
    stop.click()
    wait_idle(page, timeout=120_000)
    page.get_by_text("Stopped early").wait_for()
    page.locator("[data-testid='stDataFrame']").wait_for()
    assert at_least(page.get_by_text("stopped after"), 1) > 0
    no_exception(page)
    screenshot(page, "compare-stopped")


def test_a_link_restores_the_step_and_the_selected_node_and_copies(server, browser):
    """eagle_pos and eagle_node reopen the same step with the same node selected; the sidebar's button
    copies the current address (read at the click, so it includes the steps just taken)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = ctx.new_page()
    try:
        page.goto(server + "/eagle?eagle_max_new=24&eagle_pos=3&eagle_node=2")
        wait_idle(page, timeout=240_000)
        page.get_by_text("Step 3", exact=False).first.wait_for()
        attends = page.get_by_text("attends to the whole prefix plus").first
        attends.wait_for()
        assert attends.inner_text().startswith("#2 ")
        page.get_by_role("button", name="Step", exact=True).click()
        wait_idle(page)
        assert "eagle_pos=4" in page.url
        frame = page.frame_locator("iframe").first
        frame.get_by_role("button", name="Copy a link to this view").click()
        page.wait_for_timeout(500)
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == page.url and "eagle_pos=4" in copied
        no_exception(page)
    finally:
        ctx.close()


def test_download_the_run_as_json_and_replay_it(server, page, tmp_path):
    """The step-through's JSON download, replayed by the command line: the same tokens (exit 0)."""
    from decoding_core.cli import main as cli_main

    page.goto(server + "/speculative?spec_max_new=12&n_auto=false&n_draft=3")
    wait_idle(page)
    page.get_by_role("button", name="Run to end").click()
    wait_idle(page)
    with page.expect_download() as info:
        page.get_by_role("button", name="Download this run (JSON)").click()
    path = tmp_path / "run.json"
    info.value.save_as(path)
    import json

    rec = json.loads(path.read_text())
    assert rec["complete"] and len(rec["tokens"]) == 12 and rec["settings"]["strategy"]["type"] == "Speculative"
    assert cli_main(["replay", str(path)]) == 0
