"""A real `streamlit run app.py` on 127.0.0.1 and Debian's chromium driven by Playwright."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "test-output" / "screenshots"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


class ServerUrl(str):
    """The server's address (a str) that also knows the server's process id (for its memory)."""

    def __new__(cls, url: str, pid: int):
        obj = super().__new__(cls, url)
        obj.pid = pid
        return obj


def rss_mib(pid: int) -> float:
    """Resident memory of a process, MiB (Linux /proc)."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server():
    port = _free_port()
    (ROOT / "test-output").mkdir(exist_ok=True)
    log = open(ROOT / "test-output" / "streamlit.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
                             "--server.port", str(port), "--server.headless", "true"],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).status == 200:
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("streamlit did not start: see test-output/streamlit.log")
    yield ServerUrl(url, proc.pid)
    proc.terminate()
    proc.wait(timeout=20)
    log.close()


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (scripts/setup.sh test does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--no-first-run", "--disable-sync", "--disable-quic"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1800})
    pg = ctx.new_page()
    yield pg
    ctx.close()


def wait_idle(page, timeout=180_000):
    """Wait until the script has finished its run (the app marks this on stApp)."""
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, timeout=timeout)
    page.wait_for_timeout(300)


def at_least(locator, n: int, timeout=60_000):
    """Wait until ``locator`` matches at least ``n`` elements (charts and graphs mount after the script is idle:
    plotly's code is loaded lazily, so counting right away races the browser under load)."""
    locator.nth(n - 1).wait_for(state="attached", timeout=timeout)
    return locator.count()


def no_exception(page):
    assert page.locator("[data-testid='stException']").count() == 0, page.locator(
        "[data-testid='stException']").first.inner_text()


def screenshot(page, name: str):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def download_figure_svg(page, path):
    """Open the first "Download figure" popover, download its SVG to ``path``; (suggested name, parsed root)."""
    import xml.etree.ElementTree as ET

    page.get_by_role("button", name="Download figure").first.click()
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name="SVG", exact=True).click()
    info.value.save_as(path)
    return info.value.suggested_filename, ET.parse(path).getroot()
