"""Requests the HTTP edge refuses, shared by the ``langgraph dev`` and the Aegra suites (SPEC §8).

``memory_thread_requests(thread_id)`` lists (method, path, JSON body) for each way a
client could name a thread: its path, a body's ``thread_id``, a search's ``ids``, a
prune's ``thread_ids``, a run's checkpoint or config. The routes of ``langgraph dev``
and Aegra together: a route one server lacks still has to be refused, not 404'd by luck.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

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
