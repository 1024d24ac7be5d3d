"""What a user notices beyond the happy path: markup from the model stays text, errors
read as sentences, the keyboard works, and "New conversation" starts an empty thread
while memory carries over ("Forget everything" is in ``test_memory_inspector.py``, the
phone-sized window in ``test_reload_and_memory.py``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Dialog, Page, expect

from harness.langgraph_server import LangGraphServer
from tests.browser.conftest import act, screenshot, send, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

HOSTILE = (
    "<script>window.__pwned = 1</script>"
    '<img src=x onerror="window.__pwned = 2; alert(1)">'
    "**<b>bold?</b>**"
)
"""The offline model echoes the question, so its answer carries this markup back."""
GOAL = "plan the product launch for spring"
REPORT_MARKUP = "<img src=x onerror=alert(3)> and **<b>bold</b>**"
"""Short enough for the offline delivery report to quote it whole."""


def watch_dialogs(page: Page) -> list[str]:
    dialogs: list[str] = []

    def record(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", record)
    return dialogs


def assert_nothing_injected(page: Page, dialogs: list[str]) -> None:
    assert dialogs == []
    for tag in ("script", "img", "b", "iframe"):
        expect(page.locator(f"#messages {tag}")).to_have_count(0)
    assert page.evaluate("() => window.__pwned") is None


def test_model_answer_with_markup_renders_as_text(open_page: Callable[..., Page]) -> None:
    page = open_page()
    dialogs = watch_dialogs(page)

    send(page, HOSTILE)
    answer = page.locator("#messages li.assistant .text").last
    expect(answer).to_contain_text(f'Your latest message: "{HOSTILE}"')
    expect(page.locator("#messages li.user .text")).to_have_text([HOSTILE])
    assert_nothing_injected(page, dialogs)

    send(page, f"/delivery {REPORT_MARKUP}")
    report = page.locator("#messages li.report").last
    expect(report).to_contain_text("Requirement: <img src=x onerror=alert(3)> and ")
    # Markdown bold still works; the HTML inside it is shown as characters.
    expect(report.locator("strong").last).to_have_text("<b>bold</b>")
    assert_nothing_injected(page, dialogs)
    screenshot(page, "07-markup-shown-as-text")

    page.reload()
    wait_idle(page)
    expect(page.locator("#messages li.user .text").first).to_have_text(HOSTILE)
    assert_nothing_injected(page, dialogs)


def test_new_conversation_starts_an_empty_thread_and_memory_carries_over(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    send(page, "Remember that we decided the launch is on a Tuesday.")
    send(page, f"/tasklist {GOAL}")  # a pending review on an agent thread
    expect(page.locator("#messages > li")).to_have_count(4)

    page.get_by_role("button", name="New conversation").click()

    expect(page.locator("#messages > li")).to_have_count(0)
    expect(page.locator("#activity")).to_have_text(
        "Started a new conversation. Memory carries over: see the memory panel."
    )
    expect(page.locator("#composer")).to_be_focused()
    # Nothing was erased: memory still holds the first turn (the review wrote none).
    expect(page.locator("#memory-status")).to_contain_text("Your last exchange kept word for word")
    page.reload()
    wait_idle(page)
    expect(page.locator("#messages > li")).to_have_count(0)  # nor the review

    send(page, "What day is the launch?")

    # The new thread's answer is built from the session's memory (contract §8a).
    expect(page.locator("#messages li.assistant").last).to_contain_text("1 recent turn")
    page.reload()
    wait_idle(page)
    assert page.locator("#messages li.user .text").all_inner_texts() == ["What day is the launch?"]


def test_keyboard_enter_sends_and_shift_enter_adds_a_line(open_page: Callable[..., Page]) -> None:
    page = open_page()
    box = page.locator("#composer")
    expect(box).to_be_focused()
    page.keyboard.type("first line")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("second line")
    expect(box).to_have_value("first line\nsecond line")
    expect(page.locator("#messages li")).to_have_count(0)

    act(page, lambda: page.keyboard.press("Enter"))

    expect(page.locator("#messages li.user .text")).to_have_text(["first line\nsecond line"])
    expect(page.locator("#messages li.assistant")).to_have_count(1)
    expect(box).to_have_value("")
    expect(box).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Send")).to_be_focused()


def test_errors_are_shown_as_a_sentence(
    server: LangGraphServer,
    new_context: Callable[..., BrowserContext],
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    page.locator("#composer").fill("/delivery")
    page.locator("#composer").press("Enter")
    error = page.get_by_role("alert")
    expect(error).to_have_text(
        "Add a requirement after /delivery, for example: /delivery a login page."
    )
    expect(page.locator("#messages li")).to_have_count(0)

    # A browser holding a broken session cookie gets a fresh session and just works.
    context = new_context()
    context.add_cookies([{"name": "aimind_session", "value": "short", "url": server.base_url}])
    healed = context.new_page()
    healed.goto(server.base_url + "/")
    wait_idle(healed)
    send(healed, "Hello after a broken cookie?")
    expect(healed.locator("#messages li.assistant")).to_have_count(1)
    expect(healed.get_by_role("alert")).to_have_count(0)
    cookie = next(c for c in context.cookies() if c["name"] == "aimind_session")
    assert cookie["value"] != "short" and cookie["httpOnly"]

    # When the server refuses the session mid-conversation, the page says so in a sentence.
    healed.route(
        "**/runs/stream",
        lambda route: route.fulfill(status=401, body='{"detail": "Malformed session token"}'),
    )
    send(healed, "Hello?")
    sentence = (
        "Your session was not accepted. "
        "Reload the page; if this keeps happening, clear this site’s cookies."
    )
    expect(healed.get_by_role("alert")).to_have_text(sentence)
    expect(healed.locator("#messages li.assistant")).to_have_count(1)
    screenshot(healed, "08-error-sentence")
