"""The memory panel full — 20 pins, long texts, long excerpts — read in English and Chinese,
on a phone and on a wide window, with screenshots a person looks at.

A real ``langgraph dev`` whose model is a scripted OpenAI-compatible stub (the folder's
``model_server``), so a session
gets pins of every origin the way they really arise: the model's compactions pin the
decisions of the turns they fold (each pin names the six messages it folded), one
compaction fails and the extractive fallback pins instead, and the user pins messages
with "Remember". Each session reaches the 20-pin bound. The checks are what a reader
notices first: nothing runs off the side, every pin's text wraps inside its card, its
controls stay inside it, times are short, and the sidebar or the phone panel fits the
window. The screenshots go to ``tests/artifacts/browser/3*.png``.

The 26 turns are the requests the page's composer and "Remember" send (a run on the page's
chat thread, ``POST /api/chat/memory/pins`` naming the message), sent over HTTP with the
page's session cookie: this is about the full panel, not typing, and 26 turns typed and
streamed into Chromium cost it several times what the server spends on them (typing and
streaming are ``test_chat_page``'s, the "Remember" button ``test_memory_inspector``'s and
``panel_story``'s). The page then loads that conversation and memory, as a reload does,
and shows the three remembered messages as "Remembered".
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from harness.langgraph_server import LangGraphServer
from harness.openai_stub import OpenAIStub, Reply, json_reply, text
from tests.browser.conftest import (
    TIMEOUT_MS,
    no_model,
    open_panel,
    screenshot,
    wait_idle,
)
from tests.browser.panel_story import SESSION_COOKIE, actions_in_one_place

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

PINS_MAX = 20
PIN_CHARS = 300
PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1440, "height": 900}
FAILING_COMPACTION = 3
"""The stub model fails the third compaction of a session: the extractive fallback pins."""
REMEMBERED_TURNS = (2, 9, 16)
"""Turns whose message the user pins with "Remember" (still in memory's window then)."""
TURNS = 26
CHAT_THREAD_COOKIE = "aimind_chat_thread"
"""Where the page keeps its conversation's thread id (``static/chat_thread.js``)."""

EN_TOPICS = (
    ("the public beta", "open on March 3 to the first 500 people on the waiting list"),
    ("the billing service", "move to the new payment provider before the summer sale"),
    ("customer support", "answer every ticket within four working hours, weekends included"),
    ("the mobile app", "ship one release every two weeks, on Tuesdays, never on Fridays"),
    ("the data warehouse", "keep raw events for 13 months and aggregates for five years"),
    ("the design system", "freeze its colour tokens until the accessibility audit is done"),
    ("the on-call rota", "rotate weekly between four engineers, with a written handover"),
    ("the pricing page", "show prices in euros and dollars, with VAT included for the EU"),
    ("the security review", "block any release that adds a dependency nobody has read"),
    ("the search index", "rebuild nightly at 02:00 UTC from the primary database"),
    ("the launch event", "take place in the harbour warehouse with room for 300 guests"),
    ("the documentation", "live next to the code and be reviewed with every pull request"),
)
ZH_TOPICS = (
    ("公开测试版", "在三月三日向候补名单上的前五百人开放"),
    ("计费服务", "在夏季促销之前迁移到新的支付服务商"),
    ("客户支持", "在四个工作小时内回复每一张工单，周末也不例外"),
    ("移动应用", "每两周发布一次，只在周二发布，绝不在周五发布"),
    ("数据仓库", "原始事件保留十三个月，汇总数据保留五年"),
    ("设计系统", "在无障碍审计完成之前冻结全部颜色变量"),
    ("值班安排", "由四位工程师每周轮换，并且必须有书面交接"),
    ("定价页面", "同时显示欧元和美元价格，欧盟地区价格含增值税"),
    ("安全评审", "拦截任何引入了没人读过的新依赖的发布"),
    ("搜索索引", "每晚协调世界时两点从主数据库完整重建"),
    ("发布会", "在港口仓库举行，最多容纳三百位来宾"),
    ("项目文档", "与代码放在同一个仓库，并随每个合并请求一起评审"),
)


def english(turn: int) -> str:
    topic, what = EN_TOPICS[turn % len(EN_TOPICS)]
    return (
        f"Turn {turn}: we decided that {topic} will {what}. The reason is that the team "
        f"agreed it in the planning meeting of week {turn}; the details are at "
        f"https://wiki.example.org/decisions/{turn:03d}/{topic.replace(' ', '-')}-rationale."
    )


def chinese(turn: int) -> str:
    topic, what = ZH_TOPICS[turn % len(ZH_TOPICS)]
    return (
        f"第{turn}轮：我们决定{topic}{what}。原因是团队在第{turn}周的规划会议上一致同意了这个方案，"
        f"任何改动都必须先在决策记录里写明理由，并在下一次例会上复核；相关的会议纪要和背景材料"
        f"都已整理好，放在团队共享文件夹的决策目录下。"
    )


def has_chinese(value: str) -> bool:
    return re.search(r"[\u4e00-\u9fff]", value) is not None


def decision_of(message: str) -> str:
    """The model's pin for a folded user message: the decision and its reason, restated."""
    if has_chinese(message):
        return "已决定：" + message.split("：", 1)[-1].removeprefix("我们决定")
    body = message.split(": ", 1)[-1].removeprefix("we decided that ")
    return f"Decided: {body[0].upper()}{body[1:]}"[: PIN_CHARS - 10]


class ScriptedModel:
    """Chat turns get a one-line acknowledgement; compactions pin the folded decisions.

    The ``FAILING_COMPACTION``-th compaction of each language answers with text that is
    not the JSON asked for, so the runtime falls back to the extractive compactor."""

    def __init__(self) -> None:
        self.compactions: dict[bool, int] = {True: 0, False: 0}

    def __call__(self, body: dict[str, Any]) -> Reply:
        last = str(body["messages"][-1].get("content") or "")
        if not body.get("response_format"):
            return text("好的，已记下。" if has_chinese(last) else "Noted: that is on the record.")
        payload = json.loads(last)
        zh = has_chinese(last)
        self.compactions[zh] += 1
        if self.compactions[zh] == FAILING_COMPACTION:
            return text("I cannot produce JSON right now.")
        folded = [m["text"] for m in payload["fold"] if m["role"] == "user"]
        pins = [*payload["previous_pinned_decisions"], *map(decision_of, folded)]
        summary = " ".join([payload["previous_summary"], *folded]).strip()
        return json_reply({"summary": summary[-2400:], "pinned_decisions": pins[-PINS_MAX:]})


@pytest.fixture(scope="module")
def scripted(model_stub: OpenAIStub) -> Iterator[ScriptedModel]:
    """``model_server``'s model, for this module's tests."""
    model_stub.responder = model = ScriptedModel()
    yield model
    model_stub.responder = no_model


def said_now() -> str:
    """A time as the page's ``markSaidNow`` writes it (``Date.toISOString``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def fill_memory(context: BrowserContext, base_url: str, message: Any) -> None:
    """26 turns of long decisions, three of them remembered, as the page sends them: each a
    run on the page's chat thread with the message's own id, "Remember" the pin route with
    that message; the page is given the thread, as the one it started."""
    token = next(c["value"] for c in context.cookies() if c["name"] == SESSION_COOKIE)
    with httpx.Client(
        base_url=base_url,
        timeout=TIMEOUT_MS / 1000,
        headers={"Origin": base_url},  # what the page's fetch sends with every change
        cookies={SESSION_COOKIE: token},
    ) as page:
        made = page.post("/threads", json={})
        assert made.status_code == 200, made.text
        thread = made.json()["thread_id"]
        for turn in range(1, TURNS + 1):
            text, message_id, said = message(turn), str(uuid.uuid4()), said_now()
            human = {"type": "human", "content": text, "id": message_id}
            run = page.post(
                f"/threads/{thread}/runs/wait",
                json={"assistant_id": "chat", "input": {"messages": [human]}},
            )
            assert run.status_code == 200 and "__error__" not in run.json(), run.text
            if turn in REMEMBERED_TURNS:
                mine = {"text": text, "messageId": message_id, "role": "user", "createdAt": said}
                pinned = page.post("/api/chat/memory/pins", json=mine)
                assert pinned.status_code == 201, pinned.text
            settled(page)
    context.add_cookies([{"name": CHAT_THREAD_COOKIE, "value": thread, "url": base_url}])


def settled(page: httpx.Client) -> None:
    """Wait until memory has no compaction pending, as a person's next message comes after
    the panel settles: each fold then folds the turns it would for them, not however many
    26 requests sent back to back let pile up (which folds what decides the pins)."""
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while page.get("/api/chat/memory").json().get("pending"):
        assert time.monotonic() < deadline, "memory stayed pending"
        time.sleep(SETTLE_POLL_S)


SETTLE_POLL_S = 0.1


def shows_full_memory(page: Page) -> None:
    """The page restores the 26 turns, and its status line reaches the 20 pins, at rest."""
    status = page.locator("#memory-status")
    said = page.locator("#messages li.user")
    expect(said).to_have_count(TURNS)
    for turn in REMEMBERED_TURNS:
        expect(said.nth(turn - 1).locator("button.remember")).to_have_text("Remembered")
    expect(status).to_contain_text(f"{PINS_MAX} decisions pinned")
    expect(status).not_to_contain_text("updating")


def no_overflow(page: Page) -> None:
    """Nothing in the panel is wider than its box, and the page never scrolls: the panel
    and the conversation scroll inside it."""
    wider: list[str] = page.evaluate(
        """() => {
          const out = [];
          const panel = document.getElementById("memory-panel");
          for (const el of [panel, ...panel.querySelectorAll("*")]) {
            if (el.matches(".visually-hidden, textarea")) continue;
            if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "auto")
              out.push(el.className || el.tagName);
          }
          const page = document.documentElement;
          if (page.scrollWidth > innerWidth) out.push("page scrolls sideways");
          if (page.scrollHeight > innerHeight + 1) out.push("page scrolls past the composer");
          return out;
        }"""
    )
    assert wider == [], wider


def read_pins(page: Page, language: str, width: str) -> None:
    """What a reader of the full panel checks, whichever the language and window."""
    pins = page.locator("#pins > li")
    expect(pins).to_have_count(PINS_MAX)
    origins = set(pins.locator(".pin-origin").all_inner_texts())
    for who in ("Pinned by you", "Pinned by the model", "Pinned from the conversation"):
        assert any(o.startswith(who) for o in origins), (who, origins)
    for stamp in page.locator("#pins time").all_text_contents():
        assert re.fullmatch(r"\d{1,2}:\d\d(\s?[AP]M)?", stamp), stamp
    expect(page.locator("#pins .pin-more > summary").first).to_have_text(
        re.compile(r"^\d+ more messages? it came from$")
    )
    no_overflow(page)
    actions_in_one_place(page)  # Edit and Unpin at the top right of every card, any origin
    for index in (0, PINS_MAX // 2, PINS_MAX - 1):
        pin = pins.nth(index)
        pin.scroll_into_view_if_needed()
        box = pin.bounding_box()
        assert box is not None
        for name in ("Edit", "Unpin"):
            control = pin.get_by_role("button", name=name, exact=True).bounding_box()
            assert control is not None and box["x"] <= control["x"], (language, width, name)
            assert control["x"] + control["width"] <= box["x"] + box["width"], (language, name)
    lines = pins.locator(".pin-text").evaluate_all(
        "els => els.map(el => el.offsetHeight / parseFloat(getComputedStyle(el).lineHeight))"
    )
    assert max(lines) >= 2.5, ("a long pin wraps onto several lines", lines)


def shoot(browser: Browser, base_url: str, state: Any, language: str) -> None:
    """The filled session on a phone and on a wide window: the top of the panel, and its
    middle with one pin's sources opened."""
    for width, viewport in (("phone", PHONE), ("wide", WIDE)):
        context = browser.new_context(
            viewport=viewport, storage_state=state, is_mobile=width == "phone"
        )
        context.set_default_timeout(TIMEOUT_MS)
        try:
            page = context.new_page()
            page.goto(base_url + "/")
            wait_idle(page)
            open_panel(page)
            if width == "wide":
                panel = page.locator("#memory-panel").bounding_box()
                assert panel is not None and panel["height"] <= viewport["height"], panel
                expect(page.locator("#composer")).to_be_in_viewport()
            read_pins(page, language, width)
            page.locator("#memory-panel").evaluate("el => el.scrollTop = 0")
            screenshot(page, f"3{'0' if language == 'en' else '2'}-{language}-{width}-panel-top")
            middle = page.locator("#pins > li:has(.pin-more)").nth(PINS_MAX // 4)
            middle.locator(".pin-more > summary").click()
            middle.evaluate("el => el.scrollIntoView({block: 'start'})")
            no_overflow(page)
            screenshot(page, f"3{'1' if language == 'en' else '3'}-{language}-{width}-panel-middle")
        finally:
            context.close()


@pytest.mark.parametrize(("language", "message"), [("en", english), ("zh", chinese)])
@pytest.mark.usefixtures("scripted")
def test_a_full_panel_reads_well_on_a_phone_and_a_wide_window(
    browser: Browser, model_server: LangGraphServer, language: str, message: Any
) -> None:
    context = browser.new_context(viewport=WIDE)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(model_server.base_url + "/")
        wait_idle(page)  # the page's first read mints the session cookie
        fill_memory(context, model_server.base_url, message)
        page.reload()
        wait_idle(page)
        shows_full_memory(page)
        texts = page.locator("#pins .pin-text").all_inner_texts()
        assert all(len(t) <= PIN_CHARS for t in texts)
        if language == "zh":  # a Chinese character is about two Latin ones wide
            assert all(has_chinese(t) for t in texts) and max(map(len, texts)) > 100
        else:
            assert max(map(len, texts)) > 200
        state = context.storage_state()
    finally:
        context.close()
    shoot(browser, model_server.base_url, state, language)
