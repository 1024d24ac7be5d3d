"""One real ``langgraph dev`` (SQLite) and one headless Chromium for every browser test,
and one more ``langgraph dev`` whose model is a scripted OpenAI-compatible stub, for the
modules that need a model's compactions (each sets the stub's answers for its own tests).

Each test opens its own browser context, i.e. its own cookie jar and so its own
chat session. The page's Content-Security-Policy stays on, so the tests wait on
selectors (never on evaluated strings, which the policy forbids).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from harness.langgraph_server import LangGraphServer, langgraph_server
from harness.openai_stub import OpenAIStub, Reply, running_stub

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "browser"
TIMEOUT_MS = 120_000
"""Generous: 2 shared cores, a cold server, and several graphs per test."""
EXPECT_TIMEOUT_MS = 30_000
VIEWPORT = {"width": 1024, "height": 720}
OFFLINE_ENV = {
    # The offline model and extractive compactor, whatever the developer's shell holds.
    "OPENAI_API_KEY": "",
    "OPENAI_BASE_URL": "",
    "AIMIND_MODEL": "",
    "AIMIND_COMPACTION_MODEL": "",
    "AIMIND_ENV": "development",
}
IDLE = "body[data-ready]:not([data-busy])"

expect.set_options(timeout=EXPECT_TIMEOUT_MS)


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LangGraphServer]:
    root = tmp_path_factory.mktemp("browser-server")
    env = {**OFFLINE_ENV, "AIMIND_SESSION_SECRET": secrets.token_urlsafe(48)}
    with langgraph_server(
        f"sqlite:///{root / 'db' / 'aimind.sqlite'}",
        root / "data",
        workdir=root / "work",
        env=env,
    ) as running:
        yield running


def no_model(body: dict[str, Any]) -> Reply:
    raise AssertionError("no module set the stub model's answers (model_stub.responder)")


@pytest.fixture(scope="package")
def model_stub() -> Iterator[OpenAIStub]:
    """The OpenAI-compatible stub ``model_server`` calls. A module sets ``responder`` (its
    scripted model) for its own tests, and puts ``no_model`` back after them."""
    with running_stub(no_model) as stub:
        yield stub


@pytest.fixture(scope="package")
def model_server(
    model_stub: OpenAIStub, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LangGraphServer]:
    """``langgraph dev`` (SQLite) whose chat model and compactor are ``model_stub``, no MCP
    servers: started once for the modules that use it (a start costs seconds)."""
    root = tmp_path_factory.mktemp("model-server")
    (root / "no-mcp.json").write_text('{"mcpServers": {}}')
    env = {
        **OFFLINE_ENV,
        "AIMIND_SESSION_SECRET": secrets.token_urlsafe(48),
        "OPENAI_API_KEY": "sk-test-not-a-real-key",
        "OPENAI_BASE_URL": model_stub.base_url,
        "AIMIND_MCP_CONFIG": str(root / "no-mcp.json"),
    }
    with langgraph_server(
        f"sqlite:///{root / 'db' / 'aimind.sqlite'}", root / "data", workdir=root / "work", env=env
    ) as running:
        yield running


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_context(browser: Browser) -> Iterator[Callable[..., BrowserContext]]:
    """Open browser contexts (one session each); all are closed after the test."""
    opened: list[BrowserContext] = []

    def open_context(**options: object) -> BrowserContext:
        context = browser.new_context(**{"viewport": VIEWPORT, **options})  # type: ignore[arg-type]
        context.set_default_timeout(TIMEOUT_MS)
        opened.append(context)
        return context

    yield open_context
    for context in opened:
        context.close()


@pytest.fixture
def open_page(
    server: LangGraphServer, new_context: Callable[..., BrowserContext]
) -> Callable[..., Page]:
    """A fresh session's chat page, loaded and hydrated."""

    def open_one(**options: object) -> Page:
        page = new_context(**options).new_page()
        page.goto(server.base_url + "/")
        wait_idle(page)
        return page

    return open_one


def wait_idle(page: Page) -> None:
    page.wait_for_selector(IDLE, state="attached")


def actions_done(page: Page) -> int:
    return int(page.locator("body").get_attribute("data-actions") or 0)


def act(page: Page, do: Callable[[], object]) -> None:
    """Do something that starts a run (send, approve…) and wait until that run is over.

    The page counts finished actions on ``<body data-actions>``, so a run that ends
    before we look is not missed.
    """
    done = actions_done(page)
    do()
    page.wait_for_selector(f'body[data-actions="{done + 1}"]:not([data-busy])', state="attached")


def send(page: Page, text: str) -> None:
    """Type ``text`` into the message box, press Enter, wait until the run is over."""
    box = page.locator("#composer")
    box.fill(text)
    act(page, lambda: box.press("Enter"))


def open_panel(page: Page) -> None:
    """Open the memory panel: a narrow window's sheet, from the top bar's "Memory" button
    (a wide window shows the panel as a column already)."""
    toggle = page.locator("#memory-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    expect(page.locator("#memory-panel")).to_be_visible()


def window_turns(page: Page) -> int:
    """The exchanges memory keeps word for word, as the status line says it ("your last 4
    exchanges kept word for word"; none said: 0)."""
    status = page.locator("#memory-status").inner_text()
    if "your last exchange " in status.lower():
        return 1
    found = re.search(r"last ([\d,]+) exchanges", status)
    return int(found[1].replace(",", "")) if found else 0


def screenshot(page: Page, name: str) -> Path:
    """Save a screenshot for a person to look at (``tests/artifacts/`` is git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
