"""A Streamlit server of the app and Debian's chromium for the scripts that look at pages (screenshots.py,
step_timings.py): ``with app_and_chromium() as (url, browser): ...``."""
from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, _free_port  # noqa: E402


@contextmanager
def app_and_chromium(root: Path | str = ROOT):
    """`streamlit run app.py` in ``root`` on a free port (waited for) and a headless chromium (never a downloaded
    browser); both stopped on leaving."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                               "--server.address", "127.0.0.1", "--server.headless", "true"], cwd=root,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(url + "/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                        args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
            try:
                yield url, browser
            finally:
                browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
