"""Memory the user can see and correct, from the page alone (contract §9a), on ``langgraph dev``.

Real headless Chromium, a real server (offline model, extractive compactor). A user
sees why a decision is pinned (who pinned it, when, and the message it came from),
unpins a wrong one, pins "remember this" from any message (a selection of it, or a
shortened copy of a long one), edits a pin and the summary, and forgets everything
behind a confirmation. The offline model says what context it received, so every
assertion on the next answer checks that the model's context followed the edit.
The same on Aegra: ``tests/production/test_page.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from aimind_memory.memory.config.limits import PIN_EXCERPT_CHARS
from tests.browser.conftest import act, open_panel, screenshot, send, wait_idle, window_turns

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

RIGHT = "We decided to use PostgreSQL for production storage."
WRONG = "We decided to host the servers in Lisbon."
QUESTIONS = (
    "How many regions should we deploy to?",
    "What backup schedule fits a small team?",
    "Summarise where we are.",
)
"""After RIGHT and WRONG, the fifth turn compacts: both decisions are pinned."""
SHORT_TIME = re.compile(r"^\d{1,2}:\d\d(\s?[AP]M)?$")
GOAL = "plan the product launch for spring"
LONG = (
    "We decided the migration runs in three waves: first the read replicas in the Frankfurt "
    "region, then the primary during the Sunday maintenance window, and finally the analytics "
    "cluster once the dashboards have been checked by the data team. Nobody deploys anything "
    "else during a wave, and every wave gets a written rollback plan before it starts."
)
"""Over a pin's 300 characters."""
SHORTENED = "Migration in three waves; the primary moves in the Sunday window."


def pins(page: Page) -> Locator:
    return page.locator("#pins > li")


def pin_item(page: Page, text: str) -> Locator:
    return pins(page).filter(has=page.locator(".pin-text", has_text=text))


def as_the_page(page: Page) -> dict[str, str]:
    """What the page's own fetch of a change sends besides the cookie (Playwright's
    ``page.request`` sends neither): JSON, from the page's origin."""
    return {"Origin": origin(page), "Content-Type": "application/json"}


def origin(page: Page) -> str:
    """The page's server, for a request the test sends as this session (its cookies)."""
    return "/".join(page.url.split("/", 3)[:3])


def answer(page: Page) -> Locator:
    return page.locator("#messages li.assistant .text").last


def test_a_pinned_decision_shows_where_it_came_from_and_a_wrong_one_can_be_unpinned(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    for text in (RIGHT, WRONG, *QUESTIONS):
        send(page, text)
    open_panel(page)

    # Why it is pinned: picked from the conversation, when, from which messages.
    expect(pins(page).locator(".pin-text")).to_have_text([RIGHT, WRONG])
    wrong = pin_item(page, WRONG)
    expect(wrong.locator(".pin-origin")).to_contain_text("Pinned from the conversation · ")
    expect(wrong.locator(".pin-origin time")).to_have_text(SHORT_TIME)
    said = wrong.locator(".pin-source figcaption")
    expect(said.first).to_contain_text("You said this, word for word · ")
    expect(said.first.locator("time")).to_have_text(SHORT_TIME)
    assert re.match(r"\d{4}-\d\d-\d\dT", wrong.locator("time").first.get_attribute("datetime"))
    # The offline answer quoted it back ('Your latest message: "…"'): reported, not said,
    # so the user's message, word for word, is its one source (no excerpt to show).
    expect(said).to_have_count(1)
    expect(wrong.locator(".pin-source blockquote")).to_have_count(0)
    screenshot(page, "20-pin-provenance")

    wrong.get_by_role("button", name="Unpin").click()

    expect(pins(page).locator(".pin-text")).to_have_text([RIGHT])
    expect(page.locator("#memory-status")).to_contain_text("1 decision pinned")
    expect(pin_item(page, RIGHT).get_by_role("button", name="Unpin")).to_be_focused()
    send(page, "Where do the servers run?")
    expect(answer(page)).to_contain_text(f'1 pinned decision: "{RIGHT}";')
    expect(answer(page)).not_to_contain_text("Lisbon")

    # Later compactions fold the turns that said it again: it stays unpinned.
    for turn in range(4):
        send(page, f"Follow-up question {turn}: what else should we check?")
    expect(page.locator("#memory-status")).to_contain_text("updated")
    page.reload()
    wait_idle(page)
    open_panel(page)
    expect(pins(page).locator(".pin-text")).to_have_text([RIGHT])
    send(page, "Remind me of our decisions.")
    expect(answer(page)).not_to_contain_text("Lisbon")


def test_remember_edit_and_the_summary_and_the_next_answer_follows_each(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    send(page, "The venue is the old harbour warehouse.")
    send(page, LONG)

    # "Remember" on the user's own message: pinned by you, from that message.
    first = page.locator("#messages li.user").first
    first.get_by_role("button", name="Remember").click()
    expect(page.locator("#activity")).to_contain_text("is pinned in memory")
    expect(first.get_by_role("button", name="Remember")).to_have_text("Remembered")
    open_panel(page)
    venue = pin_item(page, "The venue is the old harbour warehouse.")
    expect(venue.locator(".pin-origin")).to_contain_text("Pinned by you · ")
    expect(venue.locator(".pin-source figcaption")).to_contain_text(
        "You said this, word for word · "
    )

    # A selection of the assistant's answer: only the selected words are pinned.
    reply = page.locator("#messages li.assistant").first
    reply.locator(".text").evaluate(
        """el => {
          const text = el.firstChild, at = text.data.indexOf("Context received");
          const range = document.createRange();
          range.setStart(text, at);
          range.setEnd(text, at + "Context received".length);
          getSelection().removeAllRanges();
          getSelection().addRange(range);
        }"""
    )
    reply.get_by_role("button", name="Remember").click()
    picked = pin_item(page, "Context received")
    expect(picked.locator(".pin-text")).to_have_text("Context received")
    expect(picked.locator(".pin-source figcaption")).to_contain_text("The assistant said · ")
    # The excerpt is the answer from where the selection was said.
    expect(picked.locator(".pin-source blockquote")).to_contain_text(
        "Context received: a summary of 0 characters"
    )

    # A message longer than a pin: the page says so and lets the user shorten it.
    long_item = page.locator("#messages li.user").nth(1)
    long_item.get_by_role("button", name="Remember").click()
    editor = long_item.locator(".editor")
    expect(editor).to_contain_text(
        f"A pin holds at most 300 characters and this is {len(LONG)}: shorten it"
    )
    expect(editor.locator(".editor-count")).to_have_text(
        f"{len(LONG)} / 300 characters: {len(LONG) - 300} too many"
    )
    expect(editor.get_by_role("button", name="Remember")).to_be_disabled()
    expect(editor.get_by_role("textbox")).to_be_focused()
    screenshot(page, "21-remember-a-long-message")
    editor.get_by_role("textbox").fill(SHORTENED)
    expect(editor.get_by_role("button", name="Remember")).to_be_enabled()
    editor.get_by_role("button", name="Remember").click()
    expect(long_item.locator(".editor")).to_have_count(0)
    migration = pin_item(page, SHORTENED)
    expect(migration.locator(".pin-source blockquote")).to_contain_text(
        "We decided the migration runs in three waves"
    )
    expect(page.locator("#memory-status")).to_contain_text("3 decisions pinned")

    send(page, "What did we pin?")
    expect(answer(page)).to_contain_text(
        '3 pinned decisions: "The venue is the old harbour warehouse."; "Context received"; '
        f'"{SHORTENED}";'
    )

    # Edit a pin: it changes in place and stays the user's.
    picked = pin_item(page, "Context received")
    picked.get_by_role("button", name="Edit").click()
    box = picked.get_by_role("textbox", name="Pinned decision")
    expect(box).to_be_focused()
    box.fill("x" * 301)
    expect(picked.locator(".editor-count")).to_have_text("301 / 300 characters: 1 too many")
    expect(picked.get_by_role("button", name="Save")).to_be_disabled()
    box.press("Escape")
    expect(picked.locator(".editor")).to_have_count(0)
    expect(picked.locator(".pin-text")).to_have_text("Context received")
    picked.get_by_role("button", name="Edit").click()
    box.fill("The launch party is on Friday at 6 pm.")
    picked.get_by_role("button", name="Save").click()
    edited = pin_item(page, "The launch party is on Friday at 6 pm.")
    expect(edited.locator(".pin-origin")).to_contain_text("Edited by you · ")
    expect(edited.locator(".pin-edited")).to_have_text("edited")
    expect(edited.get_by_role("button", name="Edit")).to_be_focused()
    expect(pins(page).locator(".pin-text")).to_have_text(
        [
            "The venue is the old harbour warehouse.",
            "The launch party is on Friday at 6 pm.",
            SHORTENED,
        ]
    )

    # The summary: written by hand, then the next answer gets exactly that many characters.
    page.get_by_role("button", name="Edit summary").click()
    summary_box = page.get_by_role("textbox", name="Summary of earlier messages")
    expect(summary_box).to_be_focused()
    summary = "A launch at the harbour warehouse; the data migration comes first."
    summary_box.fill(summary)
    expect(page.locator("#memory-panel .editor-count")).to_have_text(
        f"{len(summary)} / 2,500 characters"
    )
    page.locator("#memory-panel .editor").get_by_role("button", name="Save").click()
    expect(page.locator("#summary-text")).to_have_text(summary)
    expect(page.get_by_role("button", name="Edit summary")).to_be_focused()
    screenshot(page, "22-edited-pins-and-summary")

    send(page, "What do you remember now?")
    expect(answer(page)).to_contain_text(f"a summary of {len(summary)} characters;")
    expect(answer(page)).to_contain_text(
        '3 pinned decisions: "The venue is the old harbour warehouse."; '
        f'"The launch party is on Friday at 6 pm."; "{SHORTENED}";'
    )
    expect(answer(page)).not_to_contain_text('"Context received"')

    # An edit the server refuses shows the route's own sentence, and the editor stays.
    edited.get_by_role("button", name="Edit").click()
    pin_id = edited.get_attribute("data-pin-id")
    # Another tab unpins it meanwhile (as the page sends a change: contract §8).
    gone = page.request.delete(
        f"{origin(page)}/api/chat/memory/pins/{pin_id}", headers=as_the_page(page)
    )
    assert gone.status == 200, gone.text()
    edited.get_by_role("textbox").fill("The launch party moves to Saturday.")
    edited.get_by_role("button", name="Save").click()
    expect(edited.get_by_role("alert")).to_have_text(
        "This session's memory has no pin with that id."
    )
    expect(edited.get_by_role("textbox")).to_be_focused()
    edited.get_by_role("button", name="Cancel").click()
    page.reload()
    wait_idle(page)
    open_panel(page)
    expect(pins(page).locator(".pin-text")).to_have_text(
        ["The venue is the old harbour warehouse.", SHORTENED]
    )


def test_forget_everything_asks_first_then_erases_memory_and_every_thread(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    send(page, "We decided the launch is on a Tuesday.")
    send(page, f"/tasklist {GOAL}")  # a pending review on an agent thread
    page.locator("#messages li.user").first.get_by_role("button", name="Remember").click()
    expect(page.locator("#memory-status")).to_contain_text("1 decision pinned")
    open_panel(page)
    dialog = page.locator("#confirm-dialog")
    forget = page.get_by_role("button", name="Forget everything")

    forget.click()
    expect(dialog).to_be_visible()
    expect(dialog.locator("#confirm-text")).to_have_text(
        "Forget everything? This erases this session’s memory — its summary, pinned "
        "decisions and recent messages — and all of its conversations, tasklists and "
        "delivery reports from the server, for good."
    )
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()
    screenshot(page, "23-forget-everything-confirm")
    dialog.get_by_role("button", name="Cancel").click()
    expect(forget).to_be_focused()
    page.reload()
    wait_idle(page)
    expect(page.locator("#messages > li")).to_have_count(4)
    expect(page.locator("#memory-status")).to_contain_text("1 decision pinned")

    open_panel(page)
    forget.click()
    act(page, dialog.get_by_role("button", name="Forget everything").click)

    expect(page.locator("#messages > li")).to_have_count(0)
    expect(page.locator("#activity")).to_have_text(
        "Everything was forgotten: this session’s memory and conversations are erased."
    )
    expect(page.locator("#memory-status")).to_have_text("Nothing remembered yet")
    expect(pins(page)).to_have_count(0)
    expect(page.locator("#composer")).to_be_focused()
    # Every thread of the session is gone from the server, not only from the page.
    found = page.request.post(
        f"{origin(page)}/threads/search", data={"limit": 100}, headers=as_the_page(page)
    )
    assert found.status == 200 and found.json() == [], found.text()
    page.reload()
    wait_idle(page)
    expect(page.locator("#messages > li")).to_have_count(0)
    send(page, "What day is the launch?")
    expect(answer(page)).to_contain_text(
        "a summary of 0 characters; 0 pinned decisions; 0 recent turns."
    )


def test_a_reload_shows_the_whole_conversation_with_memory_in_the_panel(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    chat = [f"Question {n}: which crate goes to dock {n}?" for n in range(1, 7)]
    send(page, chat[0])
    send(page, f"/tasklist {GOAL}")
    act(page, page.locator("#messages li.review").get_by_role("button", name="Approve").click)
    for text in chat[1:4]:
        send(page, text)
    send(page, "/delivery a login page")
    for text in chat[4:]:
        send(page, text)
    shown = page.locator("#messages > li").all_inner_texts()
    expect(page.locator("#memory-status")).to_contain_text("exchanges kept word for word")
    window = window_turns(page)
    assert window < 9, "memory's window holds fewer turns than the conversation"

    page.reload()
    wait_idle(page)

    expect(page.locator("#restored-note")).to_be_visible()
    assert page.locator("#messages li.user .text").all_inner_texts() == [
        chat[0],
        f"/tasklist {GOAL}",
        *chat[1:4],
        "/delivery a login page",
        *chat[4:],
    ]
    # Everything the page showed, in order (the review card came back as its outcome).
    restored = page.locator("#messages > li:not(.review)").all_inner_texts()
    assert restored == [text for text in shown if "Proposed tasks" not in text]
    expect(page.locator("#messages li.report h1").first).to_have_text(f"Tasklist: {GOAL}")
    open_panel(page)
    expect(page.locator("#memory-status")).to_contain_text(f"last {window} exchanges")
    expect(page.locator("#summary-text")).not_to_have_text("Nothing summarised yet.")
    screenshot(page, "24-whole-conversation-restored")


OLD = "My cousin Ada plays the cello on Sunday mornings."
OLD_LONG = (
    "Some background on the venue: the old library on Elm Street has a reading room for "
    "about eighty people, a small kitchen behind the stacks, a ramp at the side entrance, "
    "a piano nobody has tuned for years, and a caretaker who locks the doors at ten sharp "
    "every evening, so any event there has to end well before that, cleaning included."
)
"""Over a pin's 300 characters, and no decision: no compaction pins it by itself."""
OLD_SHORT = "The library closes at ten; the event ends before that."


def test_remembering_a_message_older_than_memorys_window_shows_where_it_came_from(
    open_page: Callable[..., Page],
) -> None:
    """The page shows the whole conversation, memory keeps 4 turns: "Remember" on a message
    6 turns back names it in the panel — with its time when the page saw it said, without
    one after a reload (the transcript has none), with its own words when the pin shortens
    them."""
    page = open_page()
    for text in (OLD, OLD_LONG, *(f"Question {n}: what else?" for n in range(4))):
        send(page, text)
    # 6 turns sent; memory's window holds at most 4 and has folded the first ones.
    expect(page.locator("#memory-status")).to_contain_text("Earlier messages summarised")
    assert 1 <= window_turns(page) <= 4
    expect(page.locator("#memory-status")).to_contain_text("updated")

    first = page.locator("#messages li.user").first
    first.get_by_role("button", name="Remember").click()
    expect(first.get_by_role("button", name="Remember")).to_have_text("Remembered")
    open_panel(page)
    said = pin_item(page, OLD).locator(".pin-source figcaption")
    expect(said).to_contain_text("You said this, word for word · ")
    expect(said.locator("time")).to_have_text(SHORT_TIME)

    page.reload()
    wait_idle(page)
    open_panel(page)
    expect(pin_item(page, OLD).locator(".pin-source figcaption time")).to_have_text(SHORT_TIME)

    long_item = page.locator("#messages li.user").nth(1)
    expect(long_item.locator(".text")).to_have_text(OLD_LONG)
    long_item.get_by_role("button", name="Remember").click()
    editor = long_item.locator(".editor")
    editor.get_by_role("textbox").fill(OLD_SHORT)
    editor.get_by_role("button", name="Remember").click()
    shortened = pin_item(page, OLD_SHORT)
    expect(shortened.locator(".pin-origin")).to_contain_text("Pinned by you · ")
    expect(shortened.locator(".pin-source figcaption")).to_have_text("You said")
    expect(shortened.locator(".pin-source blockquote")).to_contain_text(
        "Some background on the venue: the old library on Elm Street"
    )

    reply = page.locator("#messages li.assistant").first
    reply_text = reply.locator(".text").inner_text().strip()
    assert PIN_EXCERPT_CHARS < len(reply_text) <= 300, "the offline model's first answer"
    reply.get_by_role("button", name="Remember").click()
    answer_pin = pins(page).last
    expect(answer_pin.locator(".pin-text")).to_have_text(reply_text)
    expect(answer_pin.locator(".pin-source figcaption")).to_have_text("The assistant said")
    # Longer than an excerpt: its start, as memory keeps a source's words.
    expect(answer_pin.locator(".pin-source blockquote")).to_contain_text(reply_text[:80])
    expect(pins(page)).to_have_count(3)
    shortened.scroll_into_view_if_needed()
    screenshot(page, "25-remember-an-old-message")
