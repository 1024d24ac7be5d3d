"""No cross-site writes on Aegra (contract §8), in real Chromium: a page on another port of
the replicas' host sends ``no-cors`` ``text/plain`` posts and HTML forms with the victim's
cookie to every route that changes something; none takes effect, and the chat page,
agent-chat-ui's way and the SDK still work (``tests/support/cross_site.py``; the same on
``langgraph dev``: ``tests/browser/test_cross_site_writes.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS, VIEWPORT
from tests.production.conftest import Cluster
from tests.support.cross_site import another_port, assert_no_cross_site_writes

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium as ``tests/browser`` drives it, for this module only (the sync API runs an
    event loop of its own, which the async tests of this folder cannot share)."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def test_a_page_on_another_port_cannot_write_as_the_victim(
    browser: Browser, cluster: Cluster
) -> None:
    replica = cluster.replicas[0]
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        with another_port() as attacker_origin:
            assert_no_cross_site_writes(
                context,
                replica.base_url,
                attacker_origin,
                lambda: "".join(r.log_tail(2_000_000) for r in cluster.replicas),
            )
    finally:
        context.close()
