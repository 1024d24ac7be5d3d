"""Requests the HTTP edge refuses, shared by the ``langgraph dev`` and the Aegra suites
(contract §8).

``memory_thread_requests(thread_id)`` lists (method, path, JSON body) for each way a
client could name a thread: its path, a body's ``thread_id``, a search's ``ids``, a
prune's ``thread_ids``, a run's checkpoint or config. The routes of ``langgraph dev``
and Aegra together: a route one server lacks still has to be refused, not 404'd by luck.
``edge_refusals`` lists one request per kind of refusal the edge answers by itself, for
reading them from another origin (``cors_headers``, ``preflight``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

RUN_ID = "1f0c1a2e-0000-4000-8000-000000000001"
CHECKPOINT_ID = "1f0c1a2e-0000-6000-8000-000000000002"
CRON = {"assistant_id": "chat", "schedule": "0 0 1 1 *"}
MB = 1024 * 1024
HELLO = {"role": "user", "content": "hi"}
MALFORMED_RUNS = [
    ({"input": {"messages": [{**HELLO, "tool_calls": [{"bad": 1}]}]}}, "tool_calls"),
    ({"input": {"messages": [HELLO]}, "context": {"session_id": 5}}, "context"),
    ({"input": {"messages": [{"role": "tool", "content": "4"}, HELLO]}}, "tool_call_id"),
]
"""(run body, words of the 422's sentence): each passed the old check and failed inside the
run with a ``TypeError`` or a pydantic ``ValidationError`` quoting the value."""


async def chunked_body(megabytes: int) -> AsyncIterator[bytes]:
    """A ``chat`` run whose one message is ``megabytes`` MB, sent without a Content-Length."""
    yield b'{"assistant_id": "chat", "input": {"messages": [{"role": "user", "content": "'
    for _ in range(megabytes):
        yield b"y" * MB
    yield b'"}]}}'


def memory_thread_requests(
    thread_id: str, run_input: dict[str, Any]
) -> list[tuple[str, str, dict[str, Any] | None]]:
    run = {"assistant_id": "chat", "input": run_input}
    t = f"/threads/{thread_id}"
    encoded = f"/threads/{quote(thread_id, safe='')}"
    return [
        # create, read, update, delete, search, count, copy, prune
        ("POST", "/threads", {"thread_id": thread_id, "metadata": {"graph_id": "chat"}}),
        ("POST", "/threads", {"thread_id": thread_id, "if_exists": "do_nothing"}),
        ("GET", t, None),
        ("PATCH", t, {"metadata": {"topic": "mine now"}}),
        ("DELETE", t, None),
        ("POST", "/threads/search", {"ids": [thread_id], "limit": 10}),
        ("POST", "/threads/count", {"ids": [thread_id]}),
        ("POST", f"{t}/copy", {}),
        ("POST", "/threads/prune", {"thread_ids": [thread_id], "strategy": "delete"}),
        # state: get, update, patch, at a checkpoint; history
        ("GET", f"{t}/state", None),
        ("POST", f"{t}/state", {}),
        ("POST", f"{t}/state", {"values": {"messages": []}, "as_node": "final_turn"}),
        ("PATCH", f"{t}/state", {"metadata": {"x": 1}}),
        ("GET", f"{t}/state/{CHECKPOINT_ID}", None),
        ("POST", f"{t}/state/checkpoint", {"checkpoint": {"checkpoint_id": CHECKPOINT_ID}}),
        ("GET", f"{t}/history", None),
        ("POST", f"{t}/history", {"limit": 10}),
        ("POST", f"{encoded}/history", {"limit": 10}),
        # runs: create, stream, wait, list, get, join, cancel, delete, crons, events
        ("POST", f"{t}/runs", run),
        ("POST", f"{t}/runs/stream", run),
        ("POST", f"{t}/runs/wait", run),
        ("GET", f"{t}/runs", None),
        ("GET", f"{t}/runs/{RUN_ID}", None),
        ("GET", f"{t}/runs/{RUN_ID}/join", None),
        ("GET", f"{t}/runs/{RUN_ID}/stream", None),
        ("POST", f"{t}/runs/{RUN_ID}/cancel", None),
        ("PATCH", f"{t}/runs/{RUN_ID}", {"status": "interrupted"}),
        ("DELETE", f"{t}/runs/{RUN_ID}", None),
        ("POST", "/runs/cancel", {"thread_id": thread_id, "run_ids": [RUN_ID]}),
        ("POST", f"{t}/runs/crons", CRON),
        ("POST", "/runs/crons", {**CRON, "thread_id": thread_id}),
        ("POST", f"{t}/stream/events", {}),
        ("POST", f"{t}/commands", {}),
        # another thread's run or state pointed at it through a body
        ("POST", "/runs/wait", {**run, "config": {"configurable": {"thread_id": thread_id}}}),
        ("POST", "/runs/wait", {**run, "checkpoint": {"thread_id": thread_id}}),
    ]


# --- read from another origin ------------------------------------------------------------------

CROSS_ORIGIN = "http://localhost:3000"
"""agent-chat-ui's development server: a browser client on another origin."""
FOREIGN_ORIGIN = "http://elsewhere.example"
"""An origin a configured allow-list leaves out."""
SERVER_ERROR_PATH = "/threads/00000000-0000-4000-8000-000000000000"
"""A thread no one has: the server's own 404, the reference for its CORS headers."""


@dataclass(frozen=True)
class EdgeRefusal:
    """A request the HTTP edge answers by itself, and the status it answers with."""

    name: str
    method: str
    path: str
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes | None = None


def edge_refusals(token: str, other: str, memory_thread: str, body_limit: int) -> list[EdgeRefusal]:
    """One request per refusal our middleware answers itself (``token`` and ``other`` are two
    sessions; ``body_limit`` the server's ``AIMIND_MAX_BODY_MB`` in bytes)."""
    mine = {"X-AIMind-Session": token}
    as_json = {**mine, "Content-Type": "application/json"}
    return [
        EdgeRefusal("two tokens", "GET", "/api/chat/memory", 401, {**mine, "X-Api-Key": other}),
        EdgeRefusal("memory thread path", "GET", f"/threads/{memory_thread}/state", 403, mine),
        EdgeRefusal(
            "memory thread in a body",
            "POST",
            "/threads/search",
            403,
            as_json,
            json.dumps({"ids": [memory_thread]}).encode(),
        ),
        EdgeRefusal("NUL in a path", "GET", "/threads/ab%00cd", 422, mine),
        EdgeRefusal(
            "NUL in a body", "POST", "/threads", 422, as_json, b'{"metadata": {"k": "a\\u0000"}}'
        ),
        EdgeRefusal(
            "body rule", "POST", "/threads", 422, as_json, b'{"ttl": {"strategy": "keep_latest"}}'
        ),
        EdgeRefusal(
            "body too large", "POST", "/threads/search", 413, as_json, b" " * (body_limit + 1)
        ),
        EdgeRefusal(
            "cross-site write",
            "POST",
            "/runs/wait",
            403,
            {"Cookie": f"aimind_session={token}", "Content-Type": "text/plain"},
            json.dumps({"assistant_id": "chat", "input": {"messages": [HELLO]}}).encode(),
        ),
    ]


def cors_headers(response: httpx.Response) -> list[tuple[str, str]]:
    """The response's ``Access-Control-*`` and ``Vary`` headers, every copy, sorted."""
    return sorted(
        (name.lower(), value)
        for name, value in response.headers.multi_items()
        if name.lower().startswith("access-control-") or name.lower() == "vary"
    )


def preflight(origin: str, method: str = "GET") -> dict[str, str]:
    """What a browser sends before a request with a session header from ``origin``."""
    return {
        "Origin": origin,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "content-type,x-aimind-session",
    }
