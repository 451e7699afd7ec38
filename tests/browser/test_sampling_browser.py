"""The Sampling page in Chromium on the embedded model: load, draw, step, no exception box."""
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import at_least, no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser


def test_home_page(server, page):
    page.goto(server)
    wait_idle(page)
    page.get_by_text("Decoding Lab").first.wait_for()
    assert at_least(page.locator("[data-testid='stSidebar']").get_by_text("Model", exact=True), 1) >= 1
    no_exception(page)
    screenshot(page, "home")


def test_sampling_page_draw_and_step(server, page):
    page.goto(server + "/sampling")
    wait_idle(page)
    page.get_by_text("1 · The next-token distribution").wait_for()
    assert at_least(page.locator(".js-plotly-plot"), 2) >= 2
    page.get_by_role("button", name="Draw samples").click()
    wait_idle(page)
    table = page.locator("[data-testid='stDataFrame']")
    table.wait_for()
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    page.get_by_text("Step 1", exact=False).first.wait_for()
    expect(page.locator("[data-testid='token-strip'] span")).to_have_count(1, timeout=60_000)
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    expect(page.locator("[data-testid='token-strip'] span")).to_have_count(2, timeout=60_000)
    no_exception(page)
    screenshot(page, "sampling")


def test_sampling_link_values_are_validated(server, page):
    page.goto(server + "/sampling?temperature=99&top_k=-3&prompt=Hello")
    wait_idle(page)
    alerts = page.locator("[data-testid='stAlert']").all_inner_texts()
    text = " ".join(alerts)
    assert "temperature" in text and "top_k" in text
    no_exception(page)


def test_static_backend_from_a_link_steps_in_the_browser(server, page):
    """The sidebar's target forward, set by a link: the sampling page steps on the static KV cache and says so."""
    page.goto(server + "/sampling?backend=static&max_new=3")
    wait_idle(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_text("Target forward").wait_for()
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    page.get_by_text("(static target forward)", exact=False).first.wait_for()
    expect(page.locator("[data-testid='token-strip'] span")).to_have_count(1, timeout=60_000)
    no_exception(page)
    screenshot(page, "sampling-static-backend")


def test_cost_of_sampling_page_measures_both_regimes(server, page):
    page.goto(server + "/sampling_cost?cost_budget=0.2")
    wait_idle(page)
    page.get_by_role("button", name="Measure", exact=True).click()
    wait_idle(page, timeout=300_000)
    page.get_by_text("What the measurements say").wait_for()
    # plotly's front-end code is loaded lazily: under load the charts mount a while after the text
    expect(page.locator("[data-testid='stPlotlyChart']")).to_have_count(3, timeout=60_000)
    no_exception(page)
    screenshot(page, "sampling-cost")


def test_run_to_end_stops_and_keeps_its_steps(server, page):
    """Run to end inside the step-through fragment: Stop ends it early, and the steps made so far stay."""
    import re

    page.goto(server + "/sampling?max_new=256&draws=100")
    wait_idle(page)
    page.get_by_role("button", name="Run to end").click()
    stop = page.get_by_role("button", name="Stop (keep what is measured so far)")
    stop.wait_for(timeout=60_000)
    page.get_by_text(re.compile(r"Decoding… [1-9]\d* tokens")).first.wait_for(timeout=60_000)
    stop.click()
    wait_idle(page, timeout=120_000)
    drew = page.get_by_text(re.compile(r"^Step \d+ drew")).first
    drew.wait_for()
    n = int(re.search(r"Step (\d+)", drew.inner_text()).group(1))
    assert 1 <= n < 256
    assert page.get_by_role("button", name="Step", exact=True).is_enabled()  # not at the end: more to decode
    no_exception(page)


def test_newlines_and_emoji_are_visible_glyphs(server, page):
    """A prompt of numbered lines: the sampled newlines show as ↵ (and break the line); an emoji prompt's
    byte tokens show as their bytes in the beam tree's root, never as empty boxes."""
    from urllib.parse import quote

    page.goto(server + "/sampling?chat=false&temperature=0.05&max_new=6&draws=100&prompt=" + quote("1\n2\n3\n4\n"))
    wait_idle(page)
    for _ in range(4):
        page.get_by_role("button", name="Step", exact=True).click()
        wait_idle(page)
    strip = page.locator("[data-testid='token-strip']").first
    assert "\u21b5" in strip.inner_text()
    page.goto(server + "/beam?chat=false&beam_max_new=2&prompt=" + quote("I like \U0001F600"))
    wait_idle(page)
    page.get_by_role("button", name="Step", exact=True).click()
    wait_idle(page)
    page.locator("[data-testid='stGraphVizChart'] svg").first.wait_for(timeout=30_000)
    texts = page.evaluate("""() => Array.from(document.querySelectorAll("[data-testid='stGraphVizChart'] svg text"))
        .map(t => t.textContent)""")
    assert any("\u27e8F0 9F" in t for t in texts), texts[:5]
    no_exception(page)


def test_settings_come_back_after_another_page_and_an_empty_prompt(server, page):
    """Streamlit drops the value of a widget a run did not draw: another page, or this page stopped early by an
    empty prompt. The widgets then came back at their first values (temperature 1.00, max new tokens 1, sampler
    multinomial) while the session still decoded with the link's, and a page switch lost the link's settings too.
    ``ui.controls.keep_settings`` keeps them (AppTest keeps widget values itself, so only a browser shows this)."""
    page.goto(server + "/sampling?max_new=4&step_sampler=alias&temperature=0.7")
    wait_idle(page)
    section = page.get_by_text("4 · A sampled continuation", exact=False).first
    section.wait_for()
    sidebar = page.locator("[data-testid='stSidebar']")

    def shown() -> tuple[str, str, str]:
        slider = page.locator("[data-testid='stSlider']")
        temperature = slider.filter(has_text="Temperature").first.locator("[data-testid='stSliderThumbValue']")
        max_new = slider.filter(has_text="Max new tokens").first.locator("[data-testid='stSliderThumbValue']")
        sampler = page.locator("[data-testid='stSelectbox']").filter(has_text="Sampler").last.locator("input")
        return temperature.inner_text(), max_new.inner_text(), sampler.input_value()

    assert shown()[:2] == ("0.70", "4") and "alias" in shown()[2].lower()
    sidebar.get_by_text("Beam search", exact=True).click()
    wait_idle(page)
    page.wait_for_url("**/beam**")
    sidebar.get_by_text("Sampling", exact=True).click()
    wait_idle(page)
    section.wait_for()
    assert shown()[:2] == ("0.70", "4") and "alias" in shown()[2].lower()
    assert "max_new=4" in page.url  # back in the link
    prompt = sidebar.locator("textarea").first
    prompt.fill("")
    prompt.press("Control+Enter")
    wait_idle(page)
    page.get_by_text("The prompt is empty", exact=False).first.wait_for()
    prompt.fill("Hello there")
    prompt.press("Control+Enter")
    wait_idle(page)
    section.wait_for()
    assert shown()[:2] == ("0.70", "4") and "alias" in shown()[2].lower()
    page.get_by_role("button", name="Run to end", exact=True).click()
    wait_idle(page)
    expect(page.locator("[data-testid='token-strip'] span")).to_have_count(4, timeout=60_000)
    no_exception(page)


def _contrast(rgb: str) -> float:
    """WCAG contrast of a computed CSS colour ("rgb(r, g, b)" or "rgba(r, g, b, a)", blended on white) against white."""
    import re

    values = [float(v) for v in re.findall(r"[\d.]+", rgb)]
    alpha = values[3] if len(values) > 3 else 1.0
    r, g, b = ((alpha * v + (1 - alpha) * 255) / 255 for v in values[:3])
    lum = sum(w * (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
              for w, c in zip((0.2126, 0.7152, 0.0722), (r, g, b)))
    return 1.05 / (lum + 0.05)


def test_captions_chart_labels_and_the_keyboard_focus_read_on_a_projector(server, page):
    """Captions (what a chart shows) and the charts' tick labels at >= 4.5:1 on white (Streamlit's caption opacity
    0.6 and chart grey gave 4.3 and 3.7), and a button reached with Tab shows a solid focus ring (Streamlit's halo was half transparent)."""
    page.goto(server + "/sampling")
    wait_idle(page)
    page.get_by_text("1 · The next-token distribution").wait_for()
    caption = page.locator("[data-testid='stMain'] [data-testid='stCaptionContainer']").first
    colour, opacity = caption.evaluate("e => [getComputedStyle(e).color, getComputedStyle(e).opacity]")
    assert _contrast(colour.replace(")", f", {opacity})") if colour.startswith("rgb(") else colour) >= 4.5
    tick = page.locator(".js-plotly-plot .ytick text").first
    tick.wait_for()
    assert _contrast(tick.evaluate("e => getComputedStyle(e).fill")) >= 4.5
    button = page.get_by_role("button", name="Draw samples")
    button.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # focus that came from the keyboard: :focus-visible
    ring = button.evaluate("e => [getComputedStyle(e).outlineStyle, getComputedStyle(e).outlineWidth, "
                           "getComputedStyle(e).outlineColor]")
    assert ring[0] == "solid" and float(ring[1].rstrip("px")) >= 3 and _contrast(ring[2]) >= 3, ring
    no_exception(page)
