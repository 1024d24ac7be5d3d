"""The chat page on Aegra, in headless Chromium: a reload restores it, on either replica,
and memory can be seen and corrected from the page alone (contract §9a).

Cookies are per host, not per port, so one browser context is one session on both
replicas (and one remembered chat thread): loading the page from the other replica is
what a load balancer does. The conversation comes back from its chat thread's
transcript, the pending review from its agent thread (``threads.search`` + ``GET
/threads/{id}/state``: what Aegra serves), it is approved there, and the finished
tasklist comes back in full on the first replica. The memory inspector's pins, edits and
"Forget everything" go through the memory routes of either replica; the offline model
says what context it received, so the next answer shows each edit took.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright

from tests.browser.conftest import (
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    VIEWPORT,
    act,
    open_panel,
    send,
)
from tests.browser.conftest import wait_idle as wait_restored
from tests.browser.panel_story import run_story
from tests.production.conftest import Cluster

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

GOAL = "plan the product launch for spring"
OFFLINE_TASKS = 3
VENUE = "The venue is the old harbour warehouse."
DAY = "We decided the launch is on a Tuesday."


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium as ``tests/browser`` drives it, for this module only: Playwright's sync API
    runs an event loop of its own, which the async tests of this folder cannot share."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A new session's page (one cookie jar, so one session on both replicas)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_MS)
    yield context.new_page()
    context.close()


def load(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    wait_restored(page)


def user_texts(page: Page) -> list[str]:
    return page.locator("#messages li.user .text").all_inner_texts()


def pin_item(page: Page, text: str) -> Locator:
    return page.locator("#pins > li").filter(has=page.locator(".pin-text", has_text=text))


def answer(page: Page) -> Locator:
    return page.locator("#messages li.assistant .text").last


def test_a_reload_on_the_other_replica_restores_the_page(page: Page, cluster: Cluster) -> None:
    a, b = (replica.base_url for replica in cluster.replicas)
    load(page, a)
    send(page, "Hello before planning.")
    send(page, f"/tasklist {GOAL}")
    card = page.locator("#messages li.review").last
    expect(card.locator("ol > li")).to_have_count(OFFLINE_TASKS)

    load(page, b)  # the next request went to the other replica

    assert user_texts(page) == ["Hello before planning.", f"/tasklist {GOAL}"]
    card = page.locator("#messages li.review").last
    expect(card.locator("ol > li")).to_have_count(OFFLINE_TASKS)
    expect(card.get_by_role("button", name="Approve")).to_be_focused()
    act(page, card.get_by_role("button", name="Approve").click)
    expect(card.locator(".decided")).to_have_text("Approved.")
    expect(page.locator("#error")).to_be_hidden()

    load(page, a)

    assert user_texts(page) == ["Hello before planning.", f"/tasklist {GOAL}"]
    expect(page.locator("#messages li.review")).to_have_count(0)
    report = page.locator("#messages li.report")
    expect(report.locator("h1")).to_have_text(f"Tasklist: {GOAL}")
    expect(report.locator("ol > li")).to_have_count(OFFLINE_TASKS)
    summary = page.locator("#messages li.assistant").filter(has_text="Tasklist final")
    expect(summary).to_have_count(1)


def test_memory_is_seen_and_corrected_from_the_page_on_either_replica(
    page: Page, cluster: Cluster
) -> None:
    a, b = (replica.base_url for replica in cluster.replicas)
    load(page, a)
    for text in (VENUE, DAY, "Who is catering?"):
        send(page, text)

    # "Remember" two of the user's messages: pins by you, each from its message.
    for text in (VENUE, DAY):
        message = page.locator("#messages li.user").filter(has_text=text)
        message.get_by_role("button", name="Remember").click()
        expect(message.get_by_role("button", name="Remembered")).to_be_visible()
    open_panel(page)
    venue = pin_item(page, VENUE)
    expect(venue.locator(".pin-origin")).to_contain_text("Pinned by you · ")
    expect(venue.locator(".pin-source figcaption")).to_contain_text(
        "You said this, word for word · "
    )

    # Edit a pin and the summary on the other replica; the next answer follows both.
    load(page, b)
    open_panel(page)
    day = pin_item(page, DAY)
    day.get_by_role("button", name="Edit").click()
    day.get_by_role("textbox").fill("The launch is on a Wednesday.")
    day.get_by_role("button", name="Save").click()
    expect(pin_item(page, "The launch is on a Wednesday.")).to_have_count(1)
    page.get_by_role("button", name="Edit summary").click()
    summary = "A spring launch at the harbour; catering is still open."
    page.get_by_role("textbox", name="Summary of earlier messages").fill(summary)
    # This cluster allows a longer summary (AIMIND_SUMMARY_CHARS): the page says so.
    expect(page.locator("#memory-panel .editor-count")).to_have_text(
        f"{len(summary)} / 100,000 characters"
    )
    page.locator("#memory-panel .editor").get_by_role("button", name="Save").click()
    expect(page.locator("#summary-text")).to_have_text(summary)
    send(page, "What did we settle?")
    expect(answer(page)).to_contain_text(f"a summary of {len(summary)} characters;")
    expect(answer(page)).to_contain_text(
        f'2 pinned decisions: "{VENUE}"; "The launch is on a Wednesday.";'
    )

    # Unpin on the first replica; a reload there shows the whole conversation.
    load(page, a)
    open_panel(page)
    pin_item(page, VENUE).get_by_role("button", name="Unpin").click()
    expect(page.locator("#pins > li .pin-text")).to_have_text(["The launch is on a Wednesday."])
    send(page, "And the venue?")
    expect(answer(page)).to_contain_text('1 pinned decision: "The launch is on a Wednesday.";')
    load(page, b)
    assert user_texts(page) == [
        VENUE,
        DAY,
        "Who is catering?",
        "What did we settle?",
        "And the venue?",
    ]
    expect(page.locator("#messages li.assistant")).to_have_count(5)

    # Forget everything, behind its confirmation: both replicas show nothing after.
    open_panel(page)
    page.get_by_role("button", name="Forget everything").click()
    dialog = page.locator("#confirm-dialog")
    act(page, dialog.get_by_role("button", name="Forget everything").click)
    expect(page.locator("#error")).to_be_hidden()
    expect(page.locator("#messages > li")).to_have_count(0)
    load(page, a)
    expect(page.locator("#messages > li")).to_have_count(0)
    expect(page.locator("#memory-status")).to_have_text("Nothing remembered yet")
    send(page, "What do you know?")
    expect(answer(page)).to_contain_text(
        "a summary of 0 characters; 0 pinned decisions; 0 recent turns."
    )


def test_the_memory_panel_reads_plainly_in_english_and_chinese(
    browser: Browser, cluster: Cluster
) -> None:
    """``tests/browser/panel_story.py`` on Aegra (PostgreSQL): pins of each origin with why,
    an edited pin, a replaced decision, "Remembered" after a reload, the status line, in
    English and Chinese, wide and on a phone; screenshots ``4*-aegra-*.png``."""
    replica = cluster.replicas[0]
    run_story(browser, replica.base_url, replica.env, "aegra")
