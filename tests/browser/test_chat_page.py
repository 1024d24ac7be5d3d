"""The chat page in real headless Chromium against a real ``langgraph dev``: streaming,
the whole conversation back on reload, compaction visible in the page, sessions kept
apart."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import open_panel, screenshot, send, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

RECORD_ASSISTANT_TEXT = """
window.__assistantTexts = [];
new MutationObserver((records) => {
  for (const r of records) {
    const item = r.target.closest && r.target.closest("li.assistant");
    if (item && r.target.classList.contains("text")) {
      for (const node of r.addedNodes) window.__assistantTexts.push(node.textContent);
    }
  }
}).observe(document, { childList: true, subtree: true });
"""
"""Every text the answer bubble was given, in order (one record per update, even when
several tokens arrive in one network read): proof the answer arrived in pieces."""


def assistant_texts(page: Page) -> list[str]:
    return page.locator("#messages li.assistant .text").all_inner_texts()


def user_texts(page: Page) -> list[str]:
    return page.locator("#messages li.user .text").all_inner_texts()


def test_answer_streams_in_token_by_token_and_survives_a_reload(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    page.add_init_script(RECORD_ASSISTANT_TEXT)
    page.reload()
    wait_idle(page)
    expect(page.locator("#messages li")).to_have_count(0)
    expect(page.locator("#composer")).to_be_focused()

    send(page, "What colour is the sky over Lisbon?")

    answer = page.locator("#messages li.assistant").last
    expect(answer).to_contain_text('Your latest message: "What colour is the sky over Lisbon?"')
    expect(answer).to_contain_text("[offline model]")
    final = answer.locator(".text").inner_text()
    shown: list[str] = page.evaluate("() => window.__assistantTexts")
    partial = [text for text in shown if text and text != final]
    assert len(set(partial)) >= 3, f"the answer did not stream in pieces: {shown!r}"
    assert all(final.startswith(text) for text in partial), "the answer grew out of order"
    assert all(len(a) <= len(b) for a, b in pairwise(partial))
    expect(page.locator("#error")).to_be_hidden()
    screenshot(page, "01-streamed-answer")

    page.reload()
    wait_idle(page)
    assert user_texts(page) == ["What colour is the sky over Lisbon?"]
    assert assistant_texts(page) == [final]
    expect(page.locator("#restored-note")).to_be_visible()
    screenshot(page, "02-restored-after-reload")


def test_compaction_shows_in_the_status_line_and_early_decision_is_pinned(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    status = page.locator("#memory-status")
    send(page, "We decided to use PostgreSQL for production storage.")
    for turns, question in enumerate(
        (
            "How many regions should we deploy to?",
            "What backup schedule fits a small team?",
            "Which metrics matter in the first month?",
        ),
        start=2,
    ):
        send(page, question)
        expect(status).to_contain_text(f"Your last {turns} exchanges kept word for word")
        expect(status).not_to_contain_text("updated")

    send(page, "Summarise where we are.")

    # The fifth turn folded the oldest three into the summary; two stay verbatim.
    expect(status).to_have_text(
        re.compile(
            r"^Earlier messages summarised · your last 2 exchanges kept word for word · "
            r"1 decision pinned · updated \d{1,2}:\d\d\s?[AP]M$"
        )
    )
    expect(status).to_have_attribute("data-state", "idle")
    open_panel(page)
    expect(page.locator("#pins > li .pin-text")).to_have_text(
        ["We decided to use PostgreSQL for production storage."]
    )
    expect(page.locator("#summary-text")).to_contain_text("What backup schedule fits a small team?")
    screenshot(page, "03-compacted-with-pinned-decision")

    page.reload()
    wait_idle(page)
    # The reload shows the whole conversation (its chat thread's transcript), not only
    # memory's window of two turns; the early decision lives on in memory as a pin.
    assert user_texts(page) == [
        "We decided to use PostgreSQL for production storage.",
        "How many regions should we deploy to?",
        "What backup schedule fits a small team?",
        "Which metrics matter in the first month?",
        "Summarise where we are.",
    ]
    expect(page.locator("#messages li.assistant")).to_have_count(5)
    open_panel(page)
    expect(page.locator("#pins > li .pin-text")).to_have_text(
        ["We decided to use PostgreSQL for production storage."]
    )
    # The next answer is built from that memory on the server.
    send(page, "Which database did we choose?")
    expect(page.locator("#messages li.assistant").last).to_contain_text(
        '"We decided to use PostgreSQL for production storage."'
    )


def test_two_sessions_never_see_each_others_messages(open_page: Callable[..., Page]) -> None:
    alice = open_page()
    bob = open_page()
    send(alice, "Alice's secret word is tangerine-42.")
    send(bob, "Bob is thinking about ravens.")
    send(bob, "What did I tell you before?")

    bob_answer = bob.locator("#messages li.assistant").last
    expect(bob_answer).to_contain_text("1 recent turn")
    expect(bob_answer).not_to_contain_text("tangerine")

    for page in (alice, bob):
        page.reload()
        wait_idle(page)
    assert user_texts(alice) == ["Alice's secret word is tangerine-42."]
    assert user_texts(bob) == ["Bob is thinking about ravens.", "What did I tell you before?"]
    expect(bob.locator("body")).not_to_contain_text("tangerine")
    expect(alice.locator("body")).not_to_contain_text("ravens")
