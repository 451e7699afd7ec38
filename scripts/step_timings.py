"""What the step pages say a step's draft and target took, read in Chromium as a student sees them.

    python scripts/step_timings.py [--root .] [--steps 7] [--runs 1]

Starts `streamlit run app.py` (in --root: another checkout, say a git worktree of an earlier commit, to compare), opens
the Speculative page (N = 4) and the EAGLE page at their defaults in Debian's chromium, presses Step --steps times one
second apart and prints, per page, the median "draft ... ms, target ... ms" of the steps after the first (the first
also feeds the prompt) and every step's pair. The server inherits the environment (DECODING_LAB_SETTLE_S, say).
Timing, so run it alone on the machine.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.app_session import app_and_chromium  # noqa: E402
from tests.browser.conftest import IDLE  # noqa: E402

PAGES = [("speculative", "?n_auto=false&n_draft=4"), ("eagle", "")]
STEP = re.compile(r"draft (\d+) ms, target (\d+) ms")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(ROOT), help="the checkout whose app.py runs")
    ap.add_argument("--steps", type=int, default=7)
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args()
    for run in range(args.runs):
        with app_and_chromium(args.root) as (url, browser):
            for path, query in PAGES:
                page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
                page.goto(f"{url}/{path}{query}")
                page.wait_for_timeout(500)
                page.wait_for_selector(IDLE, timeout=300_000)
                pairs = []
                for _ in range(args.steps):
                    page.get_by_role("button", name="Step", exact=True).first.click()
                    page.wait_for_timeout(300)
                    page.wait_for_selector(IDLE, timeout=300_000)
                    found = STEP.findall(page.inner_text("body"))
                    pairs.append(tuple(map(int, found[-1])) if found else None)
                    time.sleep(1.0)
                later = [x for x in pairs[1:] if x]
                if later:
                    print(f"run {run + 1} {path}: median draft {statistics.median(a for a, _ in later):.0f} ms, "
                          f"target {statistics.median(b for _, b in later):.0f} ms (steps 2-{args.steps}); "
                          f"every step {pairs}", flush=True)
                else:
                    print(f"run {run + 1} {path}: no step timing found on the page", flush=True)
                page.context.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
