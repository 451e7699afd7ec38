"""Two app replicas behind nginx with sticky sessions (deploy/nginx.conf.template): four browser sessions
through the proxy, each on one replica for its whole life (its steps continue where they were), each with
the tokens of a solo run; both replicas serve (issue 15, item 8)."""
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.browser.conftest import wait_idle
from tests.browser.test_classroom_browser import solo_text, squash
from decoding_core.settings import Sample, SamplingSettings

pytestmark = pytest.mark.browser
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    if not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        pytest.fail("nginx is not installed: scripts/setup.sh test installs Debian's nginx-light")
    from serve_replicas import Classroom

    room = Classroom(2, run_dir=tmp_path_factory.mktemp("proxy")).start()
    yield room
    room.stop()


def replica_of(classroom, cookie: str) -> str:
    import urllib.request

    req = urllib.request.Request(classroom.url + "/_stcore/health", headers={"Cookie": f"replica={cookie}"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.headers["X-Replica"]


def two_per_replica(classroom) -> list[str]:
    by_replica: dict[str, list[str]] = {}
    for n in range(64):
        cookie = f"student-{n}"
        assert replica_of(classroom, cookie) == replica_of(classroom, cookie)  # sticky: the same every time
        by_replica.setdefault(replica_of(classroom, cookie), []).append(cookie)
        if len(by_replica) == 2 and all(len(v) >= 2 for v in by_replica.values()):
            return [c for v in by_replica.values() for c in v[:2]]
    raise AssertionError(f"64 cookies did not spread over two replicas: {by_replica}")


def test_sessions_stay_on_their_replica_through_the_proxy(classroom, browser, embedded):
    replicas, contexts = {}, []
    try:
        # four students; their cookies are what a first visit would set, picked here (by asking the proxy
        # which replica each cookie goes to) so that two students land on each replica
        for i, cookie in enumerate(two_per_replica(classroom)):
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})
            ctx.add_cookies([{"name": "replica", "value": cookie, "url": classroom.url}])
            contexts.append((ctx, i + 1))
        pages = []
        for ctx, seed in contexts:
            page = ctx.new_page()
            resp = page.goto(f"{classroom.url}/sampling?seed={seed}&draws=100&sampling_pos=3", wait_until="commit")
            replicas[seed] = resp.headers.get("x-replica")
            pages.append((page, seed))
        for page, _ in pages:
            wait_idle(page, timeout=300_000)
        for page, seed in pages:  # two more steps each: the session's decoder is still on its replica
            for _ in range(2):
                page.get_by_role("button", name="Step", exact=True).click()
                wait_idle(page)
            drew = page.get_by_text(re.compile(r"^Step \d+ drew")).first
            assert drew.inner_text().startswith("Step 5 drew"), drew.inner_text()
            want = solo_text(embedded, Sample(SamplingSettings(), "gumbel"), seed)
            assert squash(page.locator("[data-testid='token-strip']").first.inner_text()) == squash(want)
            assert page.locator("[data-testid='stException']").count() == 0
        assert len(set(replicas.values())) == 2, replicas      # both replicas serve
        assert set(replicas.values()) == {f"127.0.0.1:{p}" for p in classroom.ports}
        fresh = browser.new_context()
        try:
            fresh.new_page().goto(classroom.url + "/", wait_until="commit")
            assert any(c["name"] == "replica" and c["value"] for c in fresh.cookies())  # set by the proxy
        finally:
            fresh.close()
    finally:
        for ctx, _ in contexts:
            ctx.close()
