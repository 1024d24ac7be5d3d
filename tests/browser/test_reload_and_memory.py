"""A reload restores the whole page from the server; the memory panel shows memory as it is.

Real headless Chromium against a real ``langgraph dev`` (offline model, extractive
compactor): pending reviews come back working, finished tasklists come back in full
from their agent threads, stale cards come back closed, the panel shows the newest
summary and a steady status line, a long message is flagged, and the page fits a phone.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from harness.langgraph_server import LangGraphServer
from harness.openai_stub import OpenAIStub, Reply, json_reply, text
from tests.browser.conftest import act, no_model, open_panel, screenshot, send, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

GOAL = "plan the product launch for spring"
OFFLINE_TASKS = 3
FIRST_TASK = "Define what done means for: plan the product launch"
CAP = 8_000
MARKER = "[truncated for chat memory]"
PHONE = {"width": 390, "height": 844}
MODEL_SUMMARY = "The model's summary: five questions about the launch, nothing decided yet."
HOLD_S = 60


def reload(page: Page) -> None:
    page.reload()
    wait_idle(page)


def review_card(page: Page) -> Locator:
    return page.locator("#messages li.review").last


def user_texts(page: Page) -> list[str]:
    return page.locator("#messages li.user .text").all_inner_texts()


def test_reload_with_a_pending_review_brings_the_card_back_and_it_works(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    send(page, "Hello before planning.")
    send(page, f"/tasklist {GOAL}")
    expect(review_card(page).locator("ol > li")).to_have_count(OFFLINE_TASKS)
    assert user_texts(page) == ["Hello before planning.", f"/tasklist {GOAL}"]

    reload(page)

    # The conversation from memory, then the pending review from the agent thread.
    assert user_texts(page) == ["Hello before planning.", f"/tasklist {GOAL}"]
    card = review_card(page)
    expect(card.locator("ol > li")).to_have_count(OFFLINE_TASKS)
    expect(card).to_contain_text(FIRST_TASK)
    expect(card.get_by_role("button", name="Approve")).to_be_focused()
    expect(page.locator("#activity")).to_have_text("Review the proposed tasks.")
    screenshot(page, "10-review-restored")

    act(page, card.get_by_role("button", name="Approve").click)

    expect(card.locator(".decided")).to_have_text("Approved.")
    expect(page.locator("#error")).to_be_hidden()
    summary = page.locator("#messages li.assistant").filter(has_text="Tasklist final")
    expect(summary).to_contain_text("3 tasks with 2 dependencies, approved")
    expect(page.locator("#messages li.report h1")).to_have_text(f"Tasklist: {GOAL}")

    # After approval a reload shows the command, the summary and the whole tasklist.
    reload(page)
    assert user_texts(page) == ["Hello before planning.", f"/tasklist {GOAL}"]
    items = page.locator("#messages > li")
    expect(items).to_have_count(5)
    expect(items.nth(3)).to_contain_text("Tasklist final: 3 tasks")
    report = items.nth(4)
    expect(report.locator("h1")).to_have_text(f"Tasklist: {GOAL}")
    expect(report.locator("ol > li")).to_have_count(OFFLINE_TASKS)
    expect(report).to_contain_text(FIRST_TASK)
    expect(page.locator("#messages li.review")).to_have_count(0)
    screenshot(page, "11-tasklist-restored")


def test_a_newer_command_closes_an_open_question_for_good(open_page: Callable[..., Page]) -> None:
    page = open_page()
    send(page, "/tasklist launch")  # too short for the offline planner: it asks first
    card = page.locator("#messages li.review").filter(has_text="The planner asks")
    expect(card.get_by_role("textbox", name="Your answer")).to_be_focused()

    send(page, "Actually, what is the weather like?")

    expect(card.get_by_role("textbox")).to_have_count(0)
    expect(card.get_by_role("button")).to_have_count(0)
    expect(card.locator(".decided")).to_contain_text("Closed: you moved on to another message.")
    expect(page.locator("#activity")).to_have_text("")

    # The question is still open on its thread, but the conversation moved on: the reload
    # shows it as the page did, closed, in its place.
    reload(page)
    assert user_texts(page) == ["/tasklist launch", "Actually, what is the weather like?"]
    card = page.locator("#messages li.review")
    expect(card).to_have_count(1)
    expect(card.get_by_role("textbox")).to_have_count(0)
    expect(card.get_by_role("button")).to_have_count(0)
    expect(card.locator(".decided")).to_contain_text("Closed: you moved on to another message.")
    expect(page.locator("#messages > li").nth(1)).to_have_class(re.compile(r"\breview\b"))
    expect(page.locator("#activity")).to_have_text("")


def test_a_review_answered_in_another_tab_is_closed_here(
    new_context: Callable[..., BrowserContext], server: LangGraphServer
) -> None:
    context = new_context()  # one cookie jar: two tabs of one session
    first, second = context.new_page(), context.new_page()
    for page in (first, second):
        page.goto(server.base_url + "/")
        wait_idle(page)
    send(first, f"/tasklist {GOAL}")
    reload(second)
    stale = review_card(second)
    expect(stale.get_by_role("button", name="Approve")).to_be_visible()

    act(first, review_card(first).get_by_role("button", name="Reject").click)
    act(second, stale.get_by_role("button", name="Approve").click)

    expect(stale.locator(".decided")).to_have_text(
        "Already answered elsewhere (another tab or client); its outcome is below."
    )
    expect(second.locator("#messages li.assistant .text").last).to_have_text(
        "Tasklist discarded at your request; nothing was saved."
    )
    expect(second.locator("#error")).to_be_hidden()


def test_memory_panel_after_20_turns_shows_the_newest_summary_text(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    status = page.locator("#memory-status")
    expect(status).to_have_text("Nothing remembered yet")
    for turn in range(1, 21):
        send(page, f"Turn {turn}: crate {turn} goes to the depot in town{turn}.")
        if turn == 4:
            expect(status).to_have_text("Your last 4 exchanges kept word for word")

    # Turns 1-18 are folded (compactions after turns 5, 8, …, 20); 19 and 20 stay verbatim.
    open_panel(page)
    summary = page.locator("#summary-text")
    expect(summary).to_contain_text("Turn 18: crate 18 goes to the depot in town18.")
    expect(summary).to_contain_text("Turn 1: crate 1 goes to the depot")
    expect(status).to_have_text(
        re.compile(
            r"^Earlier messages summarised · your last 2 exchanges kept word for word · "
            r"(\d+ decisions? pinned · )?updated \d{1,2}:\d\d(\s?[AP]M)?$"
        )
    )
    expect(status).to_have_attribute("data-state", "idle")
    panel = page.request.get(page.url.rstrip("/") + "/api/chat/memory").json()
    assert panel["summary"] == summary.inner_text() and len(panel["summary"]) > 240, (
        "the whole summary, not a preview"
    )
    # The summary box scrolls inside the panel and opens scrolled to its end: the newest.
    assert summary.inner_text().rstrip().endswith("Turn 18: crate 18 goes to the depot in town18.")
    height, visible, top = summary.evaluate(
        "el => [el.scrollHeight, el.clientHeight, el.scrollTop]"
    )
    assert height > visible and top + visible >= height - 2, (height, visible, top)
    screenshot(page, "12-memory-panel-after-20-turns")

    reload(page)
    open_panel(page)
    expect(page.locator("#summary-text")).to_contain_text("Turn 18: crate 18")
    expect(page.locator("#memory-status")).to_contain_text("last 2 exchanges")


def test_a_message_longer_than_memory_keeps_is_flagged(open_page: Callable[..., Page]) -> None:
    page = open_page()
    long_text = ("The spec, verbatim: " + "lorem ipsum " * 700).strip()  # > 8,000 characters
    box = page.locator("#composer")
    box.fill(long_text)
    box.press("Enter")
    dialog = page.locator("#confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(f"keeps only the first {CAP:,} characters")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert box.input_value() == long_text, "a cancelled send keeps the message in the box"
    expect(page.locator("#messages li")).to_have_count(0)

    box.press("Enter")
    act(page, dialog.get_by_role("button", name="Send anyway").click)
    bubble = page.locator("#messages li.user").last
    expect(bubble.locator(".truncated-note")).to_have_text(
        f"Chat memory keeps only the first {CAP:,} characters of this message."
    )

    # The conversation keeps the whole message (memory only its start): a reload shows it
    # all, still flagged.
    reload(page)
    restored = page.locator("#messages li.user").last
    expect(restored.locator(".truncated-note")).to_be_visible()
    text = restored.locator(".text").inner_text()
    assert text == long_text and MARKER not in text
    # A short message is sent at once and carries no note.
    send(page, "A short one.")
    expect(page.locator("#messages li.user").last.locator(".truncated-note")).to_have_count(0)


def test_a_phone_sized_viewport_is_usable(open_page: Callable[..., Page]) -> None:
    page = open_page(viewport=PHONE, is_mobile=True, has_touch=True)
    send(page, "A long word: " + "x" * 160 + " and a normal sentence after it.")
    for turn in range(4):
        send(page, f"Phone turn {turn}: we decided the venue is hall {turn}.")
    send(page, f"/tasklist {GOAL}")

    def fits() -> bool:
        return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")

    assert fits(), "the page scrolls sideways on a phone"
    for name in ("Send", "New conversation", "Approve", "Edit", "Ask for changes", "Reject"):
        found = page.get_by_role("button", name=name).bounding_box()
        assert found is not None and found["x"] >= 0 and found["x"] + found["width"] <= 390, name
    expect(page.locator("#composer")).to_be_in_viewport()
    expect(page.get_by_role("button", name="Send")).to_be_in_viewport()
    screenshot(page, "13-phone-review")

    open_panel(page)
    expect(page.locator("#memory-status")).to_be_in_viewport()
    expect(page.locator("#summary-text")).not_to_have_text("Nothing summarised yet.")
    expect(page.locator("#pins li").first).to_be_visible()
    assert fits(), "the open memory panel scrolls sideways on a phone"
    # A sheet over the lower part: the conversation stays in view above it.
    panel = page.locator("#memory-panel").bounding_box()
    assert panel is not None and panel["y"] >= PHONE["height"] * 0.35, panel
    screenshot(page, "14-phone-memory-panel")

    # Closed, the composer is where it was and works.
    page.get_by_role("button", name="Close").click()
    expect(page.locator("#memory-panel")).to_be_hidden()
    expect(page.locator("#composer")).to_be_in_viewport()
    act(page, review_card(page).get_by_role("button", name="Approve").click)
    send(page, "Thanks!")
    expect(page.locator("#messages li.assistant").last).to_contain_text("Thanks!")


# --- a model compaction lands after its run ---------------------------------------------------


class HeldCompactor:
    """The stub model: chat answers at once; a compaction waits until the test lets it go."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.asked = threading.Event()

    def __call__(self, body: dict[str, Any]) -> Reply:
        if not body.get("response_format"):
            return text(f"Answer {secrets.token_hex(2)}.")
        self.asked.set()
        self.release.wait(HOLD_S)  # the stub's own thread: the chat server is not blocked
        return json_reply({"summary": MODEL_SUMMARY, "pinned_decisions": []})


@pytest.fixture(scope="module")
def held(model_stub: OpenAIStub) -> Iterator[tuple[HeldCompactor, OpenAIStub]]:
    """``model_server``'s model, for this module's tests."""
    model_stub.responder = compactor = HeldCompactor()
    yield compactor, model_stub
    compactor.release.set()
    model_stub.responder = no_model


def test_the_panel_says_compacting_until_a_model_compaction_lands(
    held: tuple[HeldCompactor, OpenAIStub],
    model_server: LangGraphServer,
    new_context: Callable[..., BrowserContext],
) -> None:
    compactor, _ = held
    page = new_context().new_page()
    page.goto(model_server.base_url + "/")
    wait_idle(page)
    status = page.locator("#memory-status")
    for turn in range(1, 6):
        send(page, f"Launch question {turn}?")
    assert compactor.asked.wait(HOLD_S), "the fifth turn started no model compaction"

    # The fifth run has ended; its compaction is still with the model.
    expect(status).to_contain_text("last 5 exchanges kept word for word")
    expect(status).to_contain_text("updating the summary…")
    expect(status).to_have_attribute("data-state", "compacting")
    expect(page.locator("#messages li.assistant")).to_have_count(5)

    compactor.release.set()

    # The panel polls and shows the landed compaction without another turn.
    expect(status).to_contain_text("last 2 exchanges kept word for word")
    expect(status).to_contain_text("updated")
    expect(status).not_to_contain_text("updating")
    expect(status).not_to_contain_text("without the model")
    expect(status).to_have_attribute("data-state", "idle")
    open_panel(page)
    expect(page.locator("#summary-text")).to_have_text(MODEL_SUMMARY)
