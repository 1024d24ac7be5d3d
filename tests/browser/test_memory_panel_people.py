"""The memory panel as a person reads it, on ``langgraph dev`` (SQLite): the story of
``tests/browser/panel_story.py`` — pins of each origin with why, an edited pin, a pin that
replaced another and the Replaced decisions list, "Remembered" after a reload, the status
line in plain words, in English and Chinese, on a wide window and on a phone's sheet —
with its screenshots in ``tests/artifacts/browser/4*-langgraph-*.png``."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from harness.langgraph_server import LangGraphServer
from tests.browser.panel_story import run_story

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


def test_the_memory_panel_reads_plainly_in_english_and_chinese(
    browser: Browser, server: LangGraphServer
) -> None:
    run_story(browser, server.base_url, server.env, "langgraph")
