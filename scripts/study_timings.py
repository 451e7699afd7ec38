"""How long each study a page offers takes, from the click to a quiet page, read in Chromium as a student waits for it.

    python scripts/study_timings.py [--pages sampling,beam,...]

Starts `streamlit run app.py`, opens each page at its defaults in Debian's chromium (never a downloaded browser),
presses its study buttons one at a time and prints the seconds until the script is idle again, one line per button
(one press each: a teacher's wait, not a benchmark figure). Timing, so run it alone on the machine.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.app_session import app_and_chromium  # noqa: E402
from tests.browser.conftest import IDLE  # noqa: E402

STUDIES = [  # page, button (English labels, as the page draws them at its defaults)
    ("sampling", "Draw samples"),
    ("beam", "Measure diversity"),
    ("beam", "Measure the thresholds"),
    ("speculative", "Run the sweep"),
    ("speculative", "Measure the drift"),
    ("eagle", "Measure"),
    ("sampling_cost", "Measure"),
    ("compare", "Run all"),
    ("beam", "Run to end"),
    ("speculative", "Run to end"),
    ("eagle", "Run to end"),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", default=None, help="comma-separated pages (default: all of " +
                    ", ".join(dict.fromkeys(p for p, _ in STUDIES)) + ")")
    args = ap.parse_args()
    wanted = set(args.pages.split(",")) if args.pages else None
    with app_and_chromium() as (url, browser):
        for path, button in STUDIES:
            if wanted and path not in wanted:
                continue
            page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
            page.goto(f"{url}/{path}")
            page.wait_for_timeout(1500)
            page.wait_for_selector(IDLE, timeout=300_000)
            target = page.get_by_role("button", name=button, exact=True).first
            target.wait_for(timeout=120_000)
            t0 = time.perf_counter()
            target.click()
            page.wait_for_timeout(300)
            page.wait_for_selector(IDLE, timeout=900_000)
            print(f"{path} [{button}]: {time.perf_counter() - t0:.1f} s", flush=True)
            page.context.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
