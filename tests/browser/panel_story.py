"""The memory panel as a person reads it (contract §9a "The page"), told once and run on
both servers (``tests/browser/test_memory_panel_people.py`` on ``langgraph dev``,
``tests/production/test_page.py`` on Aegra).

A session chooses PostgreSQL, switches to MySQL, fixes a launch day and a venue, and
remembers two things from the page (a whole message, and a phrase selected inside a long
answer). The compactor's side — a model's pin that replaced the PostgreSQL one, with why,
and a pin picked from the conversation, with why — is written through the library on the
server's own database (a model's pin and its replacement, which the offline engine does
not make; what the engine writes itself is tests/memory/test_why.py's);
the page reads all of it through the real routes. Then the reader checks, in English and
in Chinese, on a wide window and on a phone: each card's text, "edited", "changed from",
who pinned it, when and why, the quote centred on what was pinned, Edit/Unpin in the same
place on every card, the Replaced decisions list, "Remembered" after a reload, a status
line in plain words, and the phone's sheet. Screenshots of each state go to
``tests/artifacts/browser/4*.png``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from aimind_memory.memory import MemoryService
from aimind_memory.memory.compaction.extractive import ExtractiveCompactor
from aimind_memory.memory.config.settings import memory_settings
from aimind_memory.memory.models import Pin, PinSource, ReplacedPin, ThreadState, utcnow
from aimind_memory.memory.storage import open_backend
from tests.browser.conftest import TIMEOUT_MS, open_panel, screenshot, send, wait_idle

POSTGRES = "Let's use PostgreSQL for the main database."
MYSQL_SAID = "Actually, switch to MySQL for the main database."
DAY = "The launch is on a Tuesday."
VENUE = "We decided the venue is the harbour warehouse."
MYSQL_PIN = "We use MySQL for the main database."
MODEL_WHY = "You switched from PostgreSQL to MySQL in your message."
VENUE_WHY = "A decision: “we decided”."
REPLACED_WHY = "A correction: “switch to MySQL”."
PHRASE = "a summary of 0 characters"
"""Selected inside the first answer (the offline model's long reply) and remembered."""
EDITED_DAY = "The launch is on a Wednesday."
WIDE = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
INTERNAL_WORDS = re.compile(r"extractive|compactor|compaction|window|turn", re.IGNORECASE)
SESSION_COOKIE = "aimind_session"


# --- the compactor's side, written through the library ------------------------------------


async def _seed(env: Mapping[str, str], token: str) -> None:
    """A model's pin that replaced the PostgreSQL one, and a pin picked from the
    conversation, each with why and the message it came from, on the server's database."""
    limits = memory_settings().limits
    async with open_backend(env["AIMIND_DATABASE_URL"]) as backend:
        secret = env["AIMIND_SESSION_SECRET"].encode()
        memory = MemoryService(backend, secret, limits, ExtractiveCompactor(limits))

        def change(state: ThreadState) -> ThreadState:
            said = {m.text: m for m in state.messages}
            now = utcnow()

            def source(text: str) -> tuple[PinSource, ...]:
                m = said[text]
                return (
                    PinSource(
                        message_id=m.id, role=m.role, excerpt=m.text, created_at=m.created_at
                    ),
                )

            old = Pin(text=POSTGRES, origin="extractive", pinned_at=now - timedelta(minutes=2))
            mysql = Pin(
                text=MYSQL_PIN,
                origin="model",
                pinned_at=now,
                sources=source(MYSQL_SAID),
                why=MODEL_WHY,
            )
            venue = Pin(
                text=VENUE, origin="extractive", pinned_at=now, sources=source(VENUE), why=VENUE_WHY
            )
            gone = ReplacedPin(
                id=old.id, text=old.text, replaced_by=mysql.id, replaced_at=now, why=REPLACED_WHY
            )
            pins = [mysql, venue, *state.pins]
            return state.model_copy(update={"pins": pins, "replaced": [*state.replaced, gone]})

        await memory._edit(token, change)  # the library's own serialized write, as an edit is


def seed_compactor_pins(context: BrowserContext, env: Mapping[str, str]) -> None:
    token = next(c["value"] for c in context.cookies() if c["name"] == SESSION_COOKIE)
    with ThreadPoolExecutor(1) as thread:  # Playwright's sync API holds this thread's loop
        thread.submit(asyncio.run, _seed(env, token)).result()


# --- what the reader does and checks -------------------------------------------------------


def message(page: Page, role: str, text: str) -> Locator:
    return page.locator(f"#messages li.{role}").filter(has_text=text)


def pin_card(page: Page, text: str) -> Locator:
    return page.locator("#pins > li").filter(has=page.locator(".pin-text", has_text=text))


def select_phrase(page: Page, item: Locator, phrase: str) -> None:
    """Select ``phrase`` inside a message's text, as a person drags over it."""
    item.locator(".text").evaluate(
        """(el, phrase) => {
          const node = el.firstChild;
          const at = node.textContent.indexOf(phrase);
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + phrase.length);
          getSelection().removeAllRanges();
          getSelection().addRange(range);
        }""",
        phrase,
    )


def talk_and_remember(page: Page) -> None:
    """Four messages; remember the launch day whole and a phrase of the first answer."""
    for text in (POSTGRES, MYSQL_SAID, DAY, VENUE):
        send(page, text)
    day = message(page, "user", DAY)
    day.get_by_role("button", name="Remember").click()
    expect(day.get_by_role("button", name="Remembered")).to_be_visible()
    first_answer = page.locator("#messages li.assistant").first
    select_phrase(page, first_answer, PHRASE)
    first_answer.get_by_role("button", name="Remember").hover()
    first_answer.get_by_role("button", name="Remember").click()
    expect(pin_card(page, PHRASE)).to_have_count(1)


def actions_in_one_place(page: Page) -> None:
    """Edit and Unpin sit at the top right of every card, whoever pinned it."""
    offsets = []
    for card in page.locator("#pins > li").all():
        card.scroll_into_view_if_needed()
        box, actions = card.bounding_box(), card.locator(".pin-actions").bounding_box()
        assert box and actions
        offsets.append(
            (
                round(actions["y"] - box["y"]),
                round(box["x"] + box["width"] - actions["x"] - actions["width"]),
            )
        )
    assert len(set(offsets)) == 1, offsets


def no_overlap(page: Page) -> None:
    """Nothing runs off the side, the page itself never scrolls, and every card's controls
    stay inside it."""
    trouble: list[str] = page.evaluate(
        """() => {
          const out = [];
          const doc = document.documentElement;
          if (doc.scrollWidth > innerWidth) out.push("page scrolls sideways");
          if (doc.scrollHeight > innerHeight + 1) out.push("page scrolls");
          for (const el of document.querySelectorAll("#memory-panel *")) {
            if (el.matches(".visually-hidden, textarea") || !el.offsetParent) continue;
            if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "auto")
              out.push("too wide: " + (el.className || el.tagName));
          }
          for (const card of document.querySelectorAll("#pins > li")) {
            const c = card.getBoundingClientRect();
            for (const b of card.querySelectorAll("button")) {
              const r = b.getBoundingClientRect();
              if (r.width && (r.left < c.left || r.right > c.right)) out.push("control outside");
            }
            const text = card.querySelector(".pin-body").getBoundingClientRect();
            const act = card.querySelector(".pin-actions").getBoundingClientRect();
            if (text.right > act.left + 1 && text.top < act.bottom && act.top < text.bottom)
              out.push("pin text under its controls");
          }
          return out;
        }"""
    )
    assert trouble == [], trouble


def check_english_cards(page: Page) -> None:
    cards = page.locator("#pins > li")
    expect(cards).to_have_count(4)
    mysql = pin_card(page, MYSQL_PIN)
    expect(mysql.locator(".pin-changed")).to_have_text(f"Changed from “{POSTGRES}”")
    expect(mysql.locator(".pin-origin")).to_have_text(
        re.compile(r"^Pinned by the model · \d{1,2}:\d\d\s?[AP]M$")
    )
    expect(mysql.locator(".pin-why")).to_have_text(f"Why: {MODEL_WHY}")
    venue = pin_card(page, VENUE)
    expect(venue.locator(".pin-origin")).to_contain_text("Pinned from the conversation · ")
    expect(venue.locator(".pin-why")).to_have_text(f"Why: {VENUE_WHY}")
    expect(venue.locator(".pin-changed")).to_have_count(0)
    phrase = pin_card(page, PHRASE)
    expect(phrase.locator(".pin-origin")).to_contain_text("Pinned by you · ")
    expect(phrase.locator(".pin-why")).to_have_count(0)  # the page's words, not the server's
    quote = phrase.locator(".pin-source blockquote")
    expect(quote.locator("mark")).to_have_text(PHRASE)
    expect(quote).not_to_contain_text("[offline model]")  # centred on it, not the start
    day = pin_card(page, EDITED_DAY)
    expect(day.locator(".pin-edited")).to_have_text("edited")
    expect(day.locator(".pin-origin")).to_contain_text("Edited by you · ")
    expect(day.locator(".pin-source figcaption")).to_contain_text("You said · ")
    expect(day.locator(".pin-source blockquote")).to_have_text(DAY)
    for other in (mysql, venue, phrase):
        expect(other.locator(".pin-edited")).to_have_count(0)


def check_replaced_list(page: Page, heading: str, by: str, why: str) -> None:
    replaced = page.locator("#replaced")
    expect(replaced).to_be_visible()
    expect(replaced).not_to_have_attribute("open", "")  # collapsed until asked
    expect(replaced.locator("summary")).to_have_text(heading)
    replaced.locator("summary").click()
    entry = replaced.locator(".replaced-item")
    expect(entry).to_have_count(1)
    expect(entry.locator(".replaced-text")).to_have_text(POSTGRES)
    expect(entry.locator(".replaced-meta")).to_contain_text(by)
    expect(entry.locator(".pin-why")).to_have_text(why)


def check_status(page: Page, pinned: str) -> None:
    status = page.locator("#memory-status")
    expect(status).to_contain_text(pinned)
    assert not INTERNAL_WORDS.search(status.inner_text()), status.inner_text()


def check_remembered_after_reload(page: Page) -> None:
    """Remember's state is memory's: the two remembered messages say so, the rest do not."""
    expect(message(page, "user", DAY).locator("button.remember")).to_have_text("Remembered")
    expect(page.locator("#messages li.assistant").first.locator("button.remember")).to_have_text(
        "Remembered"
    )
    for text in (POSTGRES, MYSQL_SAID, VENUE):
        expect(message(page, "user", text).locator("button.remember")).to_have_text("Remember")


def open_sheet_on_a_phone(page: Page, toggle_name: str) -> None:
    """The phone's panel is a sheet: the conversation stays in view above it, and its
    header stays put while it scrolls."""
    panel = page.locator("#memory-panel")
    expect(panel).to_be_hidden()
    conversation = page.locator("main.conversation").bounding_box()
    assert conversation and conversation["height"] > PHONE["height"] * 0.5, conversation
    page.get_by_role("button", name=toggle_name).click()
    expect(panel).to_be_visible()
    sheet = panel.bounding_box()
    assert sheet is not None
    assert sheet["y"] >= PHONE["height"] * 0.35, ("the conversation stays in view", sheet)
    head = page.locator("#memory-title").bounding_box()
    page.locator("#memory-body").evaluate("el => el.scrollTop = el.scrollHeight")
    assert page.locator("#memory-body").evaluate("el => el.scrollTop") > 0, "the sheet scrolls"
    assert page.locator("#memory-title").bounding_box() == head, "its header stays put"
    expect(page.locator("#memory-title")).to_be_in_viewport()
    page.locator("#memory-body").evaluate("el => el.scrollTop = 0")


def new_page(
    browser: Browser, base_url: str, state: Any, viewport: dict[str, int], locale: str
) -> Page:
    context = browser.new_context(
        viewport=viewport, storage_state=state, locale=locale, is_mobile=viewport["width"] < 500
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.goto(base_url + "/")
    wait_idle(page)
    return page


def run_story(browser: Browser, base_url: str, env: Mapping[str, str], server: str) -> None:
    """The whole story on one server (``server`` names its screenshots)."""
    context = browser.new_context(viewport=WIDE, locale="en-US")
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(base_url + "/")
        wait_idle(page)
        talk_and_remember(page)
        seed_compactor_pins(context, env)
        page.reload()  # Remember's state comes from memory
        wait_idle(page)
        check_remembered_after_reload(page)
        open_panel(page)
        day = pin_card(page, DAY)
        day.get_by_role("button", name="Edit").click()
        day.get_by_role("textbox").fill(EDITED_DAY)
        day.get_by_role("button", name="Save").click()
        expect(pin_card(page, EDITED_DAY).locator(".pin-edited")).to_be_visible()
        check_english_cards(page)
        check_status(page, "4 decisions pinned")
        actions_in_one_place(page)
        no_overlap(page)
        page.locator("#memory-body").evaluate("el => el.scrollTop = 0")
        screenshot(page, f"40-{server}-en-wide-panel")
        check_replaced_list(
            page, "Replaced decisions (1)", f"Replaced by “{MYSQL_PIN}” · ", f"Why: {REPLACED_WHY}"
        )
        no_overlap(page)
        page.locator("#replaced").scroll_into_view_if_needed()
        screenshot(page, f"41-{server}-en-wide-replaced")
        state = context.storage_state()
    finally:
        context.close()

    phone = new_page(browser, base_url, state, PHONE, "en-US")
    try:
        check_remembered_after_reload(phone)
        screenshot(phone, f"42-{server}-en-phone-conversation")
        open_sheet_on_a_phone(phone, "Memory 4")
        check_status(phone, "4 decisions pinned")
        actions_in_one_place(phone)
        no_overlap(phone)
        phone.locator("#memory-body").evaluate("el => el.scrollTop = 0")
        screenshot(phone, f"43-{server}-en-phone-panel")
        check_replaced_list(
            phone, "Replaced decisions (1)", f"Replaced by “{MYSQL_PIN}” · ", f"Why: {REPLACED_WHY}"
        )
        phone.locator("#replaced").scroll_into_view_if_needed()
        no_overlap(phone)
        screenshot(phone, f"44-{server}-en-phone-replaced")
        phone.get_by_role("button", name="Close").click()
        expect(phone.locator("#memory-panel")).to_be_hidden()
    finally:
        phone.context.close()

    for viewport, width in ((WIDE, "wide"), (PHONE, "phone")):
        zh = new_page(browser, base_url, state, viewport, "zh-CN")
        try:
            check_chinese(zh, width == "phone")
            no_overlap(zh)
            screenshot(zh, f"45-{server}-zh-{width}-panel")
            check_replaced_list(
                zh, "已被取代的决定（1）", f"已被“{MYSQL_PIN}”取代 · ", f"原因：{REPLACED_WHY}"
            )
            zh.locator("#replaced").scroll_into_view_if_needed()
            no_overlap(zh)
            screenshot(zh, f"46-{server}-zh-{width}-replaced")
        finally:
            zh.context.close()


def check_chinese(page: Page, phone: bool) -> None:
    """The same memory on a Chinese browser: the page's own words are all Chinese."""
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(message(page, "user", DAY).locator("button.remember")).to_have_text("已记住")
    expect(message(page, "user", POSTGRES).locator("button.remember")).to_have_text("记住")
    if phone:
        open_sheet_on_a_phone(page, "记忆 4")
    check_status(page, "已固定 4 项决定")
    expect(pin_card(page, MYSQL_PIN).locator(".pin-changed")).to_have_text(f"改自“{POSTGRES}”")
    expect(pin_card(page, MYSQL_PIN).locator(".pin-origin")).to_contain_text("由模型固定 · ")
    expect(pin_card(page, MYSQL_PIN).locator(".pin-why")).to_have_text(f"原因：{MODEL_WHY}")
    expect(pin_card(page, VENUE).locator(".pin-origin")).to_contain_text("从对话中固定 · ")
    expect(pin_card(page, PHRASE).locator(".pin-origin")).to_contain_text("由你固定 · ")
    day = pin_card(page, EDITED_DAY)
    expect(day.locator(".pin-edited")).to_have_text("已编辑")
    expect(day.locator(".pin-origin")).to_contain_text("由你编辑 · ")
    expect(day.get_by_role("button", name="编辑", exact=True)).to_be_visible()
    expect(day.get_by_role("button", name="取消固定")).to_be_visible()
    # Every word the page adds is Chinese: its labels, headings, buttons and hints.
    chrome = page.locator(
        "h1, h2, h3, button, .panel-hint, #memory-status, .pin-origin, figcaption, "
        ".composer-area .hint span"
    )
    english = [
        text
        for text in chrome.all_inner_texts()
        if re.search(r"[A-Za-z]{3,}", re.sub(r"AI Mind|Enter|Shift|JSON", "", text))
    ]
    assert english == [], english
