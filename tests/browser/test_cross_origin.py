"""A page on another origin — as agent-chat-ui's dev server on ``localhost:3000`` — reads our
refusals from ``langgraph dev`` in real Chromium, as it reads the server's own errors (contract §8).

Chromium enforces CORS for real: preflights for the session header, and a response
without ``Access-Control-Allow-Origin`` is a network error to the page ("Failed to
fetch"), which is what agent-chat-ui showed for every refusal of ours before. The page
comes from a local HTTP server of its own at ``localhost`` (a loopback page, as
agent-chat-ui's: Chromium lets it reach the loopback server); every request goes to the
real server, with the session as agent-chat-ui sends it (``X-Api-Key``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from aimind_memory.adapters.server.memory_threads import MEMORY_THREAD_REFUSED
from aimind_memory.adapters.server.request_guard import BAD_TEXT
from aimind_memory.adapters.server.request_limits import RequestLimits
from aimind_memory.memory.session import hash_token, memory_thread_id, new_token
from harness.langgraph_server import LangGraphServer

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

FETCH = """async ([url, method, headers, body]) => {
  try {
    const response = await fetch(url, { method, headers, body: body ?? undefined });
    return { status: response.status, body: await response.json() };
  } catch (failure) {
    return { status: 0, error: String(failure) };
  }
}"""
"""What the page does: one ``fetch`` from its origin; a CORS failure is ``status: 0``."""


PAGE = b"<!doctype html><title>another origin</title>"


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def other_origin() -> Iterator[str]:
    """A blank page's origin: ``http://localhost:<port>``, another origin than the server's."""
    with ThreadingHTTPServer(("127.0.0.1", 0), _Page) as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        yield f"http://localhost:{httpd.server_address[1]}"
        httpd.shutdown()


def fetch(
    page: Page, url: str, method: str, headers: dict[str, str], body: Any = None
) -> dict[str, Any]:
    payload = None if body is None else body if isinstance(body, str) else json.dumps(body)
    return page.evaluate(FETCH, [url, method, headers, payload])


def test_another_origin_reads_each_refusal_and_the_server_as_before(
    server: LangGraphServer, new_context: Callable[..., BrowserContext], other_origin: str
) -> None:
    page = new_context().new_page()
    page.goto(f"{other_origin}/")
    token, other = new_token(), new_token()
    secret = server.env["AIMIND_SESSION_SECRET"].encode()
    memory_thread = memory_thread_id(hash_token(token, secret))
    key = {"X-Api-Key": token, "Content-Type": "application/json"}
    base = server.base_url

    listed = fetch(page, f"{base}/threads/search", "POST", key, {"limit": 100})
    assert listed == {"status": 200, "body": []}, listed
    created = fetch(page, f"{base}/threads", "POST", key, {})
    assert created["status"] == 200 and created["body"]["thread_id"]

    refusals = [
        # agent-chat-ui's history read, on a memory thread
        (f"/threads/{memory_thread}/history", key, {"limit": 10}, 403, MEMORY_THREAD_REFUSED),
        # a NUL in a new message
        (
            "/threads/search",
            key,
            '{"metadata": {"graph_id": "chat\\u0000"}}',
            422,
            BAD_TEXT,
        ),
        # two sessions in one request
        ("/threads/search", {**key, "X-AIMind-Session": other}, {}, 401, None),
        # a body over the server's limit
        ("/threads/search", key, " " * (RequestLimits().max_body_bytes + 1), 413, None),
    ]
    for path, headers, body, status, sentence in refusals:
        read = fetch(page, f"{base}{path}", "POST", headers, body)
        assert read["status"] == status, (path, read)
        assert set(read["body"]) == {"detail"}
        if sentence is not None:
            assert read["body"]["detail"] == sentence

    # Our own routes and the server's errors read the same as before.
    memory = fetch(page, f"{base}/api/chat/memory", "GET", {"X-Api-Key": token})
    assert memory["status"] == 200 and memory["body"]["pins"] == []
    missing = fetch(page, f"{base}/threads/{created['body']['thread_id']}x/state", "GET", key)
    assert missing["status"] in (404, 422) and "detail" in missing["body"]
