"""Screenshots of every page in Chromium at 1280x720, as a student sees them (for reviewing the UI).

    python scripts/screenshots.py [--out test-output/shots] [--pages home,sampling,...]

Starts `streamlit run app.py` on a free port, opens each page in Debian's chromium (never a downloaded
browser), presses the main buttons, and saves the first screen plus the full page.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.app_session import app_and_chromium  # noqa: E402
from tests.browser.conftest import IDLE  # noqa: E402

MAIN = '[data-testid="stMain"]'  # the block that scrolls
ACTIONS = {  # page[:what] -> (query, buttons to press in order)
    "home": ("", []),
    "sampling": ("", ["Draw samples", "Step", "Step"]),
    "beam": ("?beam_max_new=16&use_ap=true&ap=1.5", ["Step", "Run to end", "Pin this run as A"]),
    "speculative": ("", ["Step", "Step"]),
    "speculative:stop": ("?n_auto=false&n_draft=8&stop_below=0.6", ["Step", "Step", "Step"]),
    "speculative:copy": ("?copy=0.3&n_auto=false&n_draft=4&prompt=Explain%20why%20the%20sky%20is%20blue%20and%20why"
                         "%20sunsets%20are%20red.", ["Step", "Step", "Step", "Step"]),
    "speculative:tree": ("?n_auto=false&n_draft=3&prompt=Repeat%20after%20me%3A%20the%20quick%20brown%20fox%20jumps%20"
                         "over%20the%20lazy%20dog.", ["Step", "Step", "Step"]),
    "eagle": ("", ["Step", "Step", "Step"]),
    "eagle:lookup": ("?eagle_lookup=8&eagle_tree_view=whole%20tree&prompt=Repeat%20after%20me%3A%20the%20quick%20brown%20"
                     "fox%20jumps%20over%20the%20lazy%20dog.", ["Step", "Step", "Step", "Step"]),
    "eagle:corpus": ("?eagle_lookup=8&eagle_corpus=true&eagle_tree_view=whole%20tree&tree_auto=false&total_tokens=12"
                     "&tree_depth=3&prompt=Name%20three%20uses%20for%20a%20paper%20clip.", ["Step", "Step", "Step"]),
    "compare": ("?cmp_max_new=16&cmp_cols=3&c1=greedy&c2=speculative&c3=eagle", ["Run all"]),
    "compare:zh": ("?lang=zh&cmp_max_new=16&cmp_cols=3&c1=greedy&c2=speculative&c3=eagle", ["全部运行"]),
    "home:present": ("?present=true", []),
    "sampling:present": ("?present=true", ["Draw samples", "Step", "Step"]),
    "beam:present": ("?present=true&beam_max_new=16&use_ap=true&ap=1.5", ["Step", "Run to end"]),
    "speculative:present": ("?present=true", ["Step", "Step"]),
    "eagle:present": ("?present=true", ["Step", "Step", "Step"]),
    "sampling_cost:present": ("?present=true&cost_budget=0.2", ["Measure"]),
    "glossary:present": ("?present=true&term=tau", []),
    "beam:zh-present": ("?lang=zh&present=true&beam_max_new=16&use_ap=true&ap=1.5", ["单步", "运行到底"]),
    "speculative:zh-present": ("?lang=zh&present=true", ["单步", "单步"]),
    "eagle:zh-present": ("?lang=zh&present=true", ["单步", "单步", "单步"]),
    "sampling:zh-present": ("?lang=zh&present=true", ["抽取样本", "单步", "单步"]),
    "compare:zh-present": ("?lang=zh&present=true&cmp_max_new=16&cmp_cols=3&c1=greedy&c2=speculative&c3=eagle",
                           ["全部运行"]),
    "compare:present": ("?present=true&cmp_max_new=16&cmp_cols=3&c1=greedy&c2=speculative&c3=eagle", ["Run all"]),
    "speculative:sample": ("?rule=sample&n_auto=false&n_draft=4&seed=3&spec_lookup=8&prompt=Write%20a%20short%20poem"
                           "%20about%20rain.", ["Step", "Step", "Step"]),  # a runner-up tested against the residual
    "compare:bad-link": ("?cmp_cols=2&c1=beam:num_beams=0,rp=0.5&c2=speculative:n_draft=500,rule=topk", []),
    "eagle:end": ("?eagle_max_new=2", ["Step", "Step"]),  # the budget's last token: said, not drawn as a tree
    "glossary": ("", []),
    "glossary:term": ("?term=tau", []),  # a metric's help link: its entry first
    # the measurements (slow: a minute or more each); the screenshot shows the screen around the pressed button
    "speculative:sweep": ("?sweep_tokens=32&sweep_repeats=1", ["Run the sweep"]),
    "eagle:measure": ("", ["Measure"]),
    "sampling_cost:measure": ("?cost_budget=0.2", ["Measure"]),
    "beam:thresholds": ("", ["Measure the thresholds"]),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="test-output/shots")
    ap.add_argument("--pages", default=",".join(ACTIONS))
    ap.add_argument("--screens", type=int, default=0,
                    help="also N screens down the page, one per 600 px (Streamlit scrolls its main block itself: a full-page "
                         "screenshot is one screen tall)")
    args = ap.parse_args()
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    with app_and_chromium() as (url, browser):
        for name in args.pages.split(","):
            query, buttons = ACTIONS[name]
            page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
            path, _, what = name.partition(":")
            page.goto(f"{url}/{'' if path == 'home' else path}{query}")
            page.wait_for_timeout(500)
            page.wait_for_selector(IDLE, timeout=300_000)
            for label in buttons:
                page.get_by_role("button", name=label, exact=True).first.click()
                page.wait_for_timeout(500)
                page.wait_for_selector(IDLE, timeout=300_000)
            if what and buttons:  # the result appears below its button: show that screen
                page.get_by_role("button", name=buttons[-1], exact=True).first.scroll_into_view_if_needed()
                page.mouse.wheel(0, 300)
            page.wait_for_timeout(800)
            stem = name.replace(":", "-")
            page.screenshot(path=str(out / f"{stem}.png"))
            page.screenshot(path=str(out / f"{stem}-full.png"), full_page=True)
            for i in range(1, args.screens + 1):
                page.evaluate(f"document.querySelector('{MAIN}').scrollTop = {600 * i}")
                page.wait_for_timeout(400)
                page.screenshot(path=str(out / f"{stem}-{i}.png"))
            print(f"{name}: {out / stem}.png", flush=True)
            page.context.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
