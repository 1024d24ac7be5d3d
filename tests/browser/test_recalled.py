"""The chat page shows, under an answer, which earlier messages were recalled for it
(contract §5a): collapsed, opened on a click, and again after a reload.

Real headless Chromium against a real ``langgraph dev`` (offline model, extractive
compactor).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import send, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

FACT = "The boat trailer is parked behind the old mill on Fenwick Lane."
SMALL_TALK = (
    "How is the weather over there?",
    "I had pasta for lunch.",
    "My cat sleeps all afternoon.",
    "Jazz concerts are fun.",
    "Tomatoes grow fast in July.",
)


def test_an_answer_shows_the_earlier_messages_recalled_for_it(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    send(page, FACT)
    for said in SMALL_TALK:
        send(page, said)
    answers = page.locator("#messages li.assistant")
    expect(answers.locator("details.recalled")).to_have_count(0)  # nothing matched so far

    send(page, "Where is the boat trailer parked?")
    recalled = answers.last.locator("details.recalled")
    expect(recalled).to_have_count(1)
    expect(recalled).not_to_have_attribute("open", "")
    expect(recalled.locator("summary")).to_have_text(re.compile(r"Recalled \d+ earlier messages?"))
    expect(recalled.locator("li").first).to_be_hidden()  # collapsed
    recalled.locator("summary").click()
    expect(recalled).to_contain_text("Fenwick Lane")

    page.reload()
    wait_idle(page)
    again = page.locator("#messages li.assistant").last.locator("details.recalled")
    expect(again).to_have_count(1)
    again.locator("summary").click()
    expect(again).to_contain_text("Fenwick Lane")
    assert page.locator("#messages li.assistant details.recalled").count() == 1
