"""Issue 43's chat-page conversation, typed into the page (contract §5, §9a): the offline
engine pins the new decision, keeps the old one in the Replaced list with why, leaves the
decision beside it alone, and the panel shows all of it — nothing seeded.

Real headless Chromium, a real ``langgraph dev`` (offline model, extractive compactor).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import open_panel, screenshot, send

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

POSTGRES = "Let's use PostgreSQL."
KUBERNETES = "We decided to deploy on Kubernetes in the Frankfurt region."
MYSQL = "Actually, switch to MySQL."
AFTER = ("How long do schema migrations usually take?", "Which metrics should we watch first?")
"""Two more turns: the fifth folds the first three, the change of mind among them."""


def test_a_change_of_mind_shows_the_new_pin_and_the_old_one_replaced_with_why(
    open_page: Callable[..., Page],
) -> None:
    page = open_page()
    for text in (POSTGRES, KUBERNETES, MYSQL, *AFTER):
        send(page, text)
    open_panel(page)

    pins = page.locator("#pins > li")
    expect(pins.locator(".pin-text")).to_have_text([KUBERNETES, MYSQL])
    mysql = pins.filter(has=page.locator(".pin-text", has_text=MYSQL))
    expect(mysql.locator(".pin-changed")).to_have_text(f"Changed from “{POSTGRES}”")
    expect(mysql.locator(".pin-why")).to_have_text("Why: a correction: 'switch to MySQL'")
    kubernetes = pins.filter(has=page.locator(".pin-text", has_text=KUBERNETES))
    expect(kubernetes.locator(".pin-changed")).to_have_count(0)  # the other decision: untouched
    expect(kubernetes.locator(".pin-why")).to_have_text(
        "Why: a decision: 'We decided' + 'Kubernetes'"
    )

    replaced = page.locator("#replaced")
    expect(replaced).to_be_visible()
    replaced.locator("summary").click()
    entry = replaced.locator(".replaced-item")
    expect(entry).to_have_count(1)
    expect(entry.locator(".replaced-text")).to_have_text(POSTGRES)
    expect(entry.locator(".replaced-meta")).to_contain_text(MYSQL)
    expect(entry.locator(".pin-why")).to_contain_text("a correction: 'switch to MySQL'")
    screenshot(page, "50-change-of-mind-replaced")
