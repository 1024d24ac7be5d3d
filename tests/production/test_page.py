"""The chat page on Aegra, in headless Chromium: a reload restores it, on either replica.

Cookies are per host, not per port, so one browser context is one session on both
replicas: loading the page from the other replica is what a load balancer does.
The conversation comes back from memory, the pending review from its agent thread
(``threads.search`` + ``GET /threads/{id}/state``: what Aegra serves), it is approved
there, and the finished tasklist comes back in full on the first replica.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS, VIEWPORT, act, send
from tests.browser.conftest import wait_idle as wait_restored
from tests.production.conftest import Cluster

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

GOAL = "plan the product launch for spring"
OFFLINE_TASKS = 3


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium as ``tests/browser`` drives it, for this module only: Playwright's sync API
    runs an event loop of its own, which the async tests of this folder cannot share."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def load(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    wait_restored(page)


def user_texts(page: Page) -> list[str]:
    return page.locator("#messages li.user .text").all_inner_texts()


def test_a_reload_on_the_other_replica_restores_the_page(
    browser: Browser, cluster: Cluster
) -> None:
    a, b = (replica.base_url for replica in cluster.replicas)
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
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
        expect(
            page.locator("#messages li.assistant").filter(has_text="Tasklist final")
        ).to_have_count(1)
    finally:
        context.close()
