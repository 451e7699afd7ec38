"""A classroom at once: eight browser sessions on one server, on different pages and seeds, each reopening a
link at step 5; each gets exactly the tokens of the same settings decoded alone, no page shows an
exception, and the server's memory stays within a stated bound (issue 15, item 5)."""
import re

import pytest

from decoding_core.settings import RunSettings, Sample, SamplingSettings
from decoding_core.strategies import build_decoder
from tests.browser.conftest import rss_mib, wait_idle

pytestmark = pytest.mark.browser

STEPS = 5
RSS_BOUND_MIB = 4096  # the server with the model, draft and eight sessions' decoders


def solo_text(lm, strategy, seed: int) -> str:
    prompt = lm.encode("Write a short poem about the sea.", chat=True)
    dec = build_decoder(lm, strategy, RunSettings(48, seed)).start(prompt)
    for _ in range(STEPS):
        dec.step()
    return "".join(lm.token_text(t) for t in dec.tokens[:STEPS])


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_eight_sessions_at_once_get_their_solo_tokens(server, browser, embedded):
    links = [(f"/sampling?seed={seed}&draws=100&sampling_pos={STEPS}", seed) for seed in range(1, 7)]
    links += [(f"/sampling?seed={seed}&draws=100&temperature=0.05&sampling_pos={STEPS}", seed) for seed in (7, 8)]
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in links]
    try:
        pages = [ctx.new_page() for ctx in contexts]
        for page, (link, _) in zip(pages, links):  # all eight load and replay their links at the same time
            page.goto(server + link, wait_until="commit")
        for page in pages:
            wait_idle(page, timeout=300_000)
        for page, (link, seed) in zip(pages, links):
            assert page.locator("[data-testid='stException']").count() == 0, link
            temperature = 0.05 if "temperature" in link else 1.0
            want = solo_text(embedded, Sample(SamplingSettings(temperature=temperature), "gumbel"), seed)
            strip = page.locator("[data-testid='token-strip']").first
            strip.wait_for()
            assert squash(strip.inner_text()) == squash(want), (link, strip.inner_text(), want)
        rss = rss_mib(server.pid)
        print(f"server RSS after eight sessions: {rss:.0f} MiB")
        assert rss < RSS_BOUND_MIB
    finally:
        for ctx in contexts:
            ctx.close()
