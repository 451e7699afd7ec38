"""Every page in Chinese (?lang=zh) in Chromium at 1280x720: it opens without an exception box, the page is in
Chinese, a screenshot is saved (test-output/screenshots/zh-<page>.png), and no character is drawn as a tofu box:
each CJK character on the page is drawn on a canvas in the page's own font stack and compared with the glyph
of a code point no font has (what a missing glyph looks like)."""
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import no_exception, screenshot, wait_idle
from ui.app import PAGES
from ui.i18n import t

pytestmark = pytest.mark.browser

TOFU = """() => {
  const text = document.body.innerText;
  const chars = [...new Set([...text].filter(c => /[\\u3400-\\u9fff\\uf900-\\ufaff\\u3000-\\u303f\\uff00-\\uffef]/.test(c)))];
  const font = "24px " + getComputedStyle(document.querySelector("[data-testid='stMarkdownContainer']")
                                          || document.body).fontFamily;
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 32;
  const ctx = canvas.getContext("2d", {willReadFrequently: true});
  const draw = c => { ctx.clearRect(0, 0, 32, 32); ctx.font = font; ctx.fillText(c, 2, 26);
                      return Array.from(ctx.getImageData(0, 0, 32, 32).data).join(","); };
  const missing = draw("\\u0378");  // unassigned in Unicode: every font lacks it, so this is the tofu box
  // the check can see a tofu box: another unassigned code point draws the same box, and the box is not blank
  const works = draw("\\u0379") === missing && missing !== draw(" ");
  return {font, works, chars: chars.length, tofu: chars.filter(c => draw(c) === missing)};
}"""


@pytest.fixture
def small_page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="zh-CN")
    pg = ctx.new_page()
    yield pg
    ctx.close()


@pytest.mark.parametrize("name", [name for name, _ in PAGES])
def test_every_page_in_chinese_has_no_tofu(server, small_page, name):
    page = small_page
    page.goto(server + ("/" if name == "home" else f"/{name}") + "?lang=zh")
    wait_idle(page, timeout=300_000)
    title = t("app.title", "zh") if name == "home" else t(f"page.{name}.title", "zh")
    page.locator("h1").filter(has_text=title).first.wait_for()
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_text("提示词", exact=True).first.wait_for()  # under load the sidebar can mount after the title
    expect(sidebar.get_by_text(t("page.glossary.title", "zh"), exact=True)).to_have_count(1)  # the navigation too
    no_exception(page)
    screenshot(page, f"zh-{name}")
    found = page.evaluate(TOFU)
    assert found["works"] and found["chars"] > 20, found
    assert not found["tofu"], f"drawn as tofu in {found['font']}: {''.join(found['tofu'])}"


def test_the_browser_language_picks_chinese(server, small_page):
    """No lang in the link: a browser set to Chinese gets the Chinese app (st.context.locale)."""
    small_page.goto(server + "/glossary")
    wait_idle(small_page)
    small_page.locator("h1").filter(has_text="术语表").first.wait_for()
    assert "lang=zh" in small_page.url


def test_switching_language_keeps_every_choice(server, page):
    """The browser keeps a choice widget's value as the text it showed: after the sidebar's switch to Chinese
    the English text matched no choice and the next run fell back to the first (Compare's column 2 became greedy,
    column 3's head read "default (EAGLE-3 if shipped)" and failed; the Speculative page's rule became greedy).
    ui.i18n.translated_choices: the run that sees the switch sends every such value again, in Chinese."""
    for path, keep in [("/compare?cmp_max_new=16&cmp_cols=3&c1=greedy&c2=speculative&c3=eagle",
                        ("c2=speculative", "c3=eagle")),
                       ("/speculative?rule=sample&draft_source=prompt-lookup", ("rule=sample",
                                                                                "draft_source=prompt-lookup"))]:
        page.goto(server + path)
        wait_idle(page)
        sidebar = page.locator("[data-testid='stSidebar']")
        sidebar.locator("[data-testid='stSelectbox']").first.click()
        page.get_by_role("option", name="简体中文").click()
        wait_idle(page)
        sidebar.get_by_text(t("p.present", "zh")).first.click()  # any widget: the run after the switch
        wait_idle(page)
        assert "lang=zh" in page.url and "present=true" in page.url
        for part in keep:
            assert part in page.url, (part, page.url)
        no_exception(page)
        assert not page.locator("[data-testid='stAlertContentError']").count(), \
            page.locator("[data-testid='stAlertContentError']").first.inner_text()
