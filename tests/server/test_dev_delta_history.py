"""``langgraph dev`` reads a chat thread's transcript through our saver's own delta-channel
history (``adapters/server/langgraph_dev/delta_history.py``), and reads exactly what the
stock adapter reads.

A real server writes a chat thread long enough to pass a full copy of its
``DeltaChannel`` transcript; then the same thread is read by a server with the
forwarding (the default) and by one with ``AIMIND_DEV_DELTA_HISTORY=0`` (the
adapter as shipped): ``getState`` and ``getHistory`` must agree message for
message. How much faster is measured by ``python -m bench --only dev_queue``'s
thread-read figures (no timing asserts here).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client

from aimind_memory.adapters.server.langgraph_dev import delta_history as dev_delta_history
from aimind_memory.adapters.server.langgraph_dev.delta_history import (
    SUPPORTED_VERSIONS,
    SWITCH_ENV,
    inactive_reason,
)
from harness.langgraph_server import langgraph_server

TOKEN = "dev-delta-history-session-01"
TURNS = 55
"""More than one full copy of the transcript (one every 100 channel updates, two per turn)."""
DEV_ENV = {"LANGGRAPH_RUNTIME_EDITION": "inmem", "LANGSMITH_LANGGRAPH_API_VARIANT": "local_dev"}


def _messages(values: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(m["id"], m["type"], m["content"]) for m in values.get("messages", [])]


async def _read(base_url: str, thread_id: str) -> tuple[list[Any], list[list[Any]]]:
    client = get_client(url=base_url, headers={"X-AIMind-Session": TOKEN})
    state = await client.threads.get_state(thread_id)
    history = await client.threads.get_history(thread_id, limit=10)
    return _messages(state["values"]), [_messages(h["values"]) for h in history]


async def test_a_long_chat_thread_reads_the_same_with_and_without_the_forwarding(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'db' / 'aimind.sqlite'}"
    data, work = tmp_path / "data", tmp_path / "work"
    with langgraph_server(url, data, workdir=work) as server:
        assert "dev delta-channel history: active" in server.log_tail(10**7)
        client = get_client(url=server.base_url, headers={"X-AIMind-Session": TOKEN})
        thread_id = (await client.threads.create())["thread_id"]
        for i in range(TURNS):
            message = {"role": "user", "content": f"turn {i}: the code word is w{i}", "id": f"u{i}"}
            await client.runs.wait(thread_id, "chat", input={"messages": [message]})
        forwarded = await _read(server.base_url, thread_id)
    with langgraph_server(url, data, workdir=work, env={SWITCH_ENV: "0"}) as stock:
        assert "dev delta-channel history: inactive" in stock.log_tail(10**7)
        shipped = await _read(stock.base_url, thread_id)
    state, history = forwarded
    assert len(state) == 2 * TURNS
    assert state[0][2] == "turn 0: the code word is w0"
    assert state[-2][2] == f"turn {TURNS - 1}: the code word is w{TURNS - 1}"
    assert len(history) == 10 and history[0] == state
    assert forwarded == shipped


@pytest.mark.parametrize(
    ("environ", "why"),
    [
        ({**DEV_ENV, SWITCH_ENV: "0"}, f"{SWITCH_ENV}=0"),
        ({**DEV_ENV, "AIMIND_ENV": "production"}, "not langgraph dev"),
        ({}, "not langgraph dev"),
    ],
)
def test_the_forwarding_stays_off_outside_langgraph_dev(environ: dict[str, str], why: str) -> None:
    reason = inactive_reason(environ)
    assert reason is not None and why in reason


def test_the_forwarding_is_gated_on_the_reviewed_version(monkeypatch: pytest.MonkeyPatch) -> None:
    assert inactive_reason(DEV_ENV) is None  # the lock pins the reviewed version
    monkeypatch.setitem(dev_delta_history.SUPPORTED_VERSIONS, "langgraph-api", "0.0.0")  # type: ignore[index]
    assert "reviewed for langgraph-api 0.0.0" in (inactive_reason(DEV_ENV) or "")
    assert SUPPORTED_VERSIONS is dev_delta_history.SUPPORTED_VERSIONS
