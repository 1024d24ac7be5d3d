"""No cross-site writes on ``langgraph dev`` (contract §8), in real Chromium: a page on another
port of the same host sends ``no-cors`` ``text/plain`` posts and HTML forms with the
victim's cookie to every route that changes something; none takes effect, and the chat
page, agent-chat-ui's way and the SDK still work (``tests/support/cross_site.py``; the
same on Aegra: ``tests/production/test_cross_site_writes.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext

from harness.langgraph_server import LangGraphServer
from tests.support.cross_site import another_port, assert_no_cross_site_writes

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


def test_a_page_on_another_port_cannot_write_as_the_victim(
    server: LangGraphServer, new_context: Callable[..., BrowserContext]
) -> None:
    with another_port() as attacker_origin:
        assert_no_cross_site_writes(
            new_context(), server.base_url, attacker_origin, lambda: server.log_tail(2_000_000)
        )
