"""``/tasklist`` (human review through the page) and ``/delivery`` (progress bar, markdown
report) in real headless Chromium against a real ``langgraph dev``."""

from __future__ import annotations

import functools
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import act, screenshot, send, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

GOAL = "plan the product launch for spring"
OFFLINE_TASKS = 3
"""The offline planner drafts three tasks: define done, do the work, hand it over."""
DELIVERY_STAGES = 7
"""load, plan, task, review, risk, boundary, synthesize."""

RECORD_PROGRESS = """
window.__progress = [];
new MutationObserver((records) => {
  for (const r of records) {
    if (r.target.id === "progress-bar" && r.attributeName === "value") {
      window.__progress.push(["value", r.oldValue]);
    } else if (r.target.id === "progress-label") {
      for (const node of r.removedNodes) window.__progress.push(["label", node.textContent]);
    }
  }
}).observe(document, { attributes: true, attributeOldValue: true, childList: true, subtree: true });
"""
"""Every state the progress bar went through, in order."""


def review_card(page: Page) -> Locator:
    return page.locator("#messages li.review").last


def start_tasklist(page: Page) -> None:
    send(page, f"/tasklist {GOAL}")
    card = review_card(page)
    expect(card.locator("ol > li")).to_have_count(OFFLINE_TASKS)
    expect(card.get_by_role("button", name="Approve")).to_be_focused()
    expect(page.locator("#activity")).to_have_text("Review the proposed tasks.")


def test_tasklist_review_approve_finishes_the_plan_and_remembers_the_goal(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    start_tasklist(page)
    card = review_card(page)
    expect(card).to_contain_text("Define what done means for: plan the product launch")
    expect(card.locator("ol > li").nth(1)).to_contain_text("T2: [offline] Do the main work")
    expect(card.locator("ol > li").nth(1)).to_contain_text("after: T1")
    screenshot(page, "04-tasklist-review")

    act(page, card.get_by_role("button", name="Approve").click)

    expect(card.locator(".decided")).to_have_text("Approved.")
    expect(card.get_by_role("button")).to_have_count(0)
    summary = page.locator("#messages li.assistant:not(.review):not(.report)").last
    expect(summary).to_contain_text("Tasklist final: 3 tasks with 2 dependencies, approved.")
    report = page.locator("#messages li.report").last
    expect(report.locator("h1")).to_have_text(f"Tasklist: {GOAL}")
    expect(report.locator("ol > li")).to_have_count(OFFLINE_TASKS)
    expect(page.locator("#error")).to_be_hidden()
    expect(page.locator("#composer")).to_be_focused()
    screenshot(page, "05-tasklist-approved")

    # Memory keeps the goal and the short summary; the tasklist itself comes back from the
    # agent's thread, after its summary, and the goal gets its command back.
    page.reload()
    wait_idle(page)
    expect(page.locator("#messages li.user .text")).to_have_text([f"/tasklist {GOAL}"])
    restored = page.locator("#messages li.assistant")
    expect(restored).to_have_count(2)
    expect(restored.first).to_contain_text("Tasklist final: 3 tasks")
    expect(restored.last.locator("h1")).to_have_text(f"Tasklist: {GOAL}")
    expect(restored.last).to_contain_text("Define what done means")


def test_tasklist_edit_in_place_sends_the_new_lines_back(open_page: Callable[..., Page]) -> None:
    """The card edits the same text a stock client edits: the tasks, one per line."""
    page = open_page()
    start_tasklist(page)
    card = review_card(page)
    card.get_by_role("button", name="Edit").click()
    tasks = card.get_by_role("textbox", name="Tasks, one per line")
    expect(tasks).to_be_focused()
    expect(card.get_by_role("button", name="Approve")).to_be_disabled()
    lines = tasks.input_value().splitlines()
    assert len(lines) == OFFLINE_TASKS and lines[0].startswith("T1: [offline] Define what done")
    lines[0] = "1. T1: Agree the launch date with marketing | done when: the date is in the plan"
    tasks.fill("\n\n".join(lines))

    act(page, card.get_by_role("button", name="Send edits").click)

    expect(card.locator(".decided")).to_have_text("Edited and sent back.")
    summary = page.locator("#messages li.assistant").filter(has_text="Tasklist final")
    expect(summary).to_contain_text("finalised with your edits")
    report = page.locator("#messages li.report").last
    expect(report.locator("ol > li").first).to_contain_text(
        "T1 — Agree the launch date with marketing"
    )


def test_tasklist_ask_for_changes_redrafts_until_the_revision_limit(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    start_tasklist(page)
    cards = page.locator("#messages li.review")
    for round_ in (1, 2):
        card = cards.nth(round_ - 1)  # stays on this card once the redraft is shown
        expect(card.locator(".role")).to_have_text(
            "Proposed tasks: approve, edit, ask for changes or reject"
        )
        card.get_by_role("button", name="Ask for changes").click()
        request = card.get_by_role("textbox", name="What should change")
        expect(request).to_be_focused()
        request.fill(f"add rehearsal {round_} with the whole team")
        act(page, functools.partial(request.press, "Enter"))
        expect(card.locator(".decided")).to_have_text(
            f"You asked for changes: add rehearsal {round_} with the whole team"
        )
        expect(card.get_by_role("textbox")).to_have_count(0)
        redraft = cards.nth(round_)
        expect(redraft.locator("ol > li")).to_have_count(OFFLINE_TASKS + 1)
        expect(redraft).to_contain_text(
            f"Apply the reviewer's request: add rehearsal {round_} with the whole team"
        )

    # Both revision rounds used: the card offers only the final decisions.
    last = review_card(page)
    expect(last.locator(".role")).to_have_text("Proposed tasks: approve, edit or reject")
    expect(last.get_by_role("button")).to_have_text(["Approve", "Edit", "Reject"])
    act(page, last.get_by_role("button", name="Approve").click)
    summary = page.locator("#messages li.assistant").filter(has_text="Tasklist final")
    expect(summary).to_contain_text("approved after 2 revision rounds")
    report = page.locator("#messages li.report").last
    expect(report).to_contain_text("add rehearsal 2 with the whole team")


def test_tasklist_reject_saves_nothing(open_page: Callable[..., Page]) -> None:
    page = open_page()
    start_tasklist(page)
    act(page, review_card(page).get_by_role("button", name="Reject").click)
    expect(page.locator("#messages li.assistant .text").last).to_have_text(
        "Tasklist discarded at your request; nothing was saved."
    )
    expect(page.locator("#memory-status")).to_have_text("Nothing remembered yet")
    page.reload()
    wait_idle(page)
    # Memory kept nothing; the conversation shows what happened, as it was.
    expect(page.locator("#memory-status")).to_have_text("Nothing remembered yet")
    expect(page.locator("#messages > li .text")).to_have_text(
        [f"/tasklist {GOAL}", "Tasklist discarded at your request; nothing was saved."]
    )


def test_tasklist_clarifying_question_is_answered_in_the_page(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    send(page, "/tasklist launch")  # too short for the offline planner: it asks first
    card = page.locator("#messages li.review").filter(has_text="The planner asks")
    expect(card).to_contain_text("What outcome do you want, and by when?")
    answer = card.get_by_role("textbox", name="Your answer")
    expect(answer).to_be_focused()
    answer.fill("A public launch of the mobile app by June")
    act(page, lambda: answer.press("Enter"))
    expect(card).to_contain_text("You answered: A public launch of the mobile app by June")
    expect(review_card(page).locator("ol > li")).to_have_count(OFFLINE_TASKS)


def test_delivery_progress_bar_and_markdown_report(open_page: Callable[..., Page]) -> None:
    page = open_page()
    page.add_init_script(RECORD_PROGRESS)
    page.reload()
    wait_idle(page)

    send(page, "/delivery a sign-in page with email and password")

    bar = page.locator("#progress-bar")
    expect(page.locator("#progress")).to_be_visible()
    expect(bar).to_have_attribute("max", str(DELIVERY_STAGES))
    expect(bar).to_have_attribute("value", str(DELIVERY_STAGES))
    expect(page.locator("#progress-label")).to_have_text(
        f"Delivery finished: {DELIVERY_STAGES} of {DELIVERY_STAGES} stages done."
    )
    seen: list[list[str]] = page.evaluate("() => window.__progress")
    values = [int(v) for kind, v in seen if kind == "value" and v] + [DELIVERY_STAGES]
    assert values == sorted(values), f"the progress bar went backwards: {values}"
    assert set(range(DELIVERY_STAGES + 1)) <= set(values), f"stages skipped: {values}"
    labels = " ".join(text for kind, text in seen if kind == "label")
    assert "“load” running" in labels
    assert "“synthesize” done" in labels

    report = page.locator("#messages li.report").last
    expect(report.locator("h1")).to_have_text("Delivery Chain Report")
    expect(report.locator("strong").first).to_have_text("Status:")
    expect(report.locator("th")).to_have_text(["Reviewer", "Verdict"])
    expect(report.locator("td")).to_contain_text(["review", "pass", "risk", "pass"])
    expect(report).to_contain_text("Requirement: a sign-in page with email and password")
    expect(page.locator("#error")).to_be_hidden()
    screenshot(page, "06-delivery-report")

    # Memory keeps the requirement and the report; restored, it renders as markdown again.
    page.reload()
    wait_idle(page)
    expect(page.locator("#messages li.user .text")).to_have_text(
        ["/delivery a sign-in page with email and password"]
    )
    restored = page.locator("#messages li.report")
    expect(restored.locator("h1")).to_have_text("Delivery Chain Report")
    expect(restored.locator("th")).to_have_text(["Reviewer", "Verdict"])
