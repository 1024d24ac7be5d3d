"""A user's own agent served with memory, as ``docs/guides/own-agent.md`` tells it.

The user's folder is a temporary directory holding the page's ``agent.py`` and
``langgraph.json`` as written (a ``create_agent`` graph with ``ChatMemoryMiddleware``,
``aimind_memory.server:auth`` and ``:app``; only the public ``aimind_memory`` import
path), served by a real ``langgraph dev`` on a free port and driven with the LangGraph
SDK's requests (``api_key``: the ``X-Api-Key`` header). Beside it, the checkout's own
server on the same ``AIMIND_DATA_DIR`` and nothing else in common — the page's way to
share memory. Without an auth, memory refuses the run and says what to add.

How fast the user's runs are against the checkout's ``chat`` graph is measured here
only against a loose bound (the figures are printed); no timing is asserted tightly.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from harness.langgraph_server import LangGraphServer, langgraph_server
from harness.own_agent import GRAPH, user_folder
from tests.support.forget_scenario import new_marker
from tests.support.residue import folder_bytes, holds, sqlite_bytes

pytestmark = pytest.mark.e2e

ALICE, BOB = "own-agent-alice-0001", "own-agent-bob-00001"
DECISION = "We ship on Friday, code word PLUM-7."
DEV_FLUSH_WAIT_S = 30.0
"""``langgraph dev`` writes its in-memory runtime to ``.langgraph_api`` every 10 s."""


@dataclass
class Servers:
    own: LangGraphServer
    checkout: LangGraphServer
    data: Path


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    root = tmp_path_factory.mktemp("own-agent")
    data = root / "shared-data"  # the one setting the two servers share
    folder = root / "my-agent"
    config = user_folder(folder)
    with (
        langgraph_server(None, data, workdir=folder, config=config) as own,
        langgraph_server(None, data, workdir=root / "checkout") as checkout,
    ):
        yield Servers(own, checkout, data)


def client(server: LangGraphServer, token: str) -> Any:
    return get_client(url=server.base_url, api_key=token)


def ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def answer(server: LangGraphServer, token: str, graph: str, text: str) -> str:
    """One run on a new thread; the final answer's text."""
    sdk = client(server, token)
    thread = await sdk.threads.create()
    out = await sdk.runs.wait(thread["thread_id"], graph, input=ask(text))
    return str(out["messages"][-1]["content"])


def remembered(server: LangGraphServer, token: str) -> list[str]:
    """The session's memory as the memory route shows it: its user messages' text."""
    response = httpx.get(
        f"{server.base_url}/api/chat/thread", headers={"X-Api-Key": token}, timeout=30
    )
    response.raise_for_status()
    return [m["text"] for m in response.json()["messages"] if m["role"] == "user"]


async def test_memory_follows_a_session_into_new_threads_and_no_further(
    servers: Servers,
) -> None:
    first = await answer(servers.own, ALICE, GRAPH, DECISION)
    assert "0 recent turns" in first
    later = await answer(servers.own, ALICE, GRAPH, "What did we decide?")
    assert "1 recent turn." in later  # a new thread, and the model got the first turn
    assert remembered(servers.own, ALICE) == [DECISION, "What did we decide?"]

    stranger = await answer(servers.own, BOB, GRAPH, "What did we decide?")
    assert "0 recent turns" in stranger and "PLUM-7" not in stranger
    assert remembered(servers.own, BOB) == ["What did we decide?"]


async def test_the_checkouts_server_on_the_same_data_folder_shares_memory(
    servers: Servers,
) -> None:
    token = "own-agent-shared-0001"
    await answer(servers.own, token, GRAPH, "Told to my own agent: PEAR-3.")
    assert remembered(servers.checkout, token) == ["Told to my own agent: PEAR-3."]
    reply = await answer(servers.checkout, token, "chat", "And now the chat graph.")
    assert "1 recent turn." in reply
    assert remembered(servers.own, token)[-1] == "And now the chat graph."


def test_the_start_says_where_memory_and_its_secret_live(servers: Servers) -> None:
    data = servers.data
    for server in (servers.own, servers.checkout):
        said = [line for line in server.log_tail(200_000).splitlines() if "chat memory:" in line]
        assert len(said) == 1, server.log_tail()
        assert f"SQLite file {data / 'aimind.sqlite'}" in said[0]
        assert f"data folder {data} (from AIMIND_DATA_DIR)" in said[0]
        assert f"session secret kept in {data / 'session-secret'}" in said[0]


async def test_the_users_runs_get_the_run_queue_wake_up(servers: Servers) -> None:
    """``aimind_memory.server:app`` brings the wake-up to a user's own graph: its runs start
    when created, not at the stock queue's next poll. How much sooner is benchmark 10's
    row "your own agent served" (a ratio to the chat graph's, measured there, not here)."""
    assert "dev run queue wake-up: active" in servers.own.log_tail(200_000)
    sdk = client(servers.own, "own-agent-woken-00001")
    done = await sdk.runs.wait(None, GRAPH, input=ask("Is the queue woken for my graph?"))
    assert isinstance(done, dict) and done["messages"][-1]["type"] == "ai"


async def test_forget_leaves_nothing_of_the_session_in_the_users_folder(
    servers: Servers,
) -> None:
    """The page's setup keeps the agent's threads where forgetting reaches them: after
    ``DELETE /api/chat/session`` no file of the user's folder (``langgraph dev``'s own
    under ``.langgraph_api``, flushed every 10 s) nor of the data folder holds the session's
    words; another session's stay."""
    gone, kept = "own-agent-forget-0001", "own-agent-keeps-00001"
    marker, other = new_marker("own-forget-"), new_marker("own-keep-")
    await answer(servers.own, gone, GRAPH, f"The code word is {marker}.")
    await answer(servers.own, gone, GRAPH, "And again, the code word?")
    await answer(servers.own, kept, GRAPH, f"My code word is {other}.")
    files = servers.own.workdir / ".langgraph_api"

    def stored() -> bytes:
        return folder_bytes(files) + sqlite_bytes(servers.data / "aimind.sqlite")

    # the dev server's files have the session (its runs at least) before it is forgotten
    assert holds(await flushed(lambda: folder_bytes(files), marker, present=True), marker)
    async with httpx.AsyncClient(base_url=servers.own.base_url, timeout=60) as raw:
        forgot = await raw.delete("/api/chat/session", headers={"X-Api-Key": gone})
    assert forgot.status_code == 200 and forgot.json()["threads"] == 2, forgot.text
    left = await flushed(stored, marker, present=False)
    assert not holds(left, marker), [
        str(f.relative_to(servers.own.workdir)) for f in files.rglob("*") if holds_file(f, marker)
    ]
    assert holds(left, other)


async def flushed(read: Any, marker: str, *, present: bool) -> bytes:
    """What ``read()`` returns once it holds (or no longer holds) ``marker``, or at the
    deadline: ``langgraph dev`` writes its files every 10 s."""
    deadline = time.monotonic() + DEV_FLUSH_WAIT_S
    while True:
        blob = read()
        if holds(blob, marker) == present or time.monotonic() > deadline:
            return blob
        await asyncio.sleep(0.5)


def holds_file(path: Path, marker: str) -> bool:
    return path.is_file() and holds(path.read_bytes(), marker)


async def test_without_our_auth_memory_refuses_the_run_with_the_fix(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "no-auth"
    config = user_folder(folder, auth=False)
    with langgraph_server(None, tmp_path / "data", workdir=folder, config=config) as server:
        sdk = get_client(url=server.base_url)
        thread = await sdk.threads.create()
        with pytest.raises(Exception, match=r"^MemoryNotServedError: ") as refused:
            await sdk.runs.wait(thread["thread_id"], GRAPH, input=ask(DECISION))
        assert '"auth": {"path": "aimind_memory.server:auth"}' in str(refused.value)
        state = await sdk.threads.get_state(thread["thread_id"])
        assert [m["type"] for m in state["values"]["messages"]] == ["human"]  # no answer
    # the agent's own thread holds the question (the page's checkpointer keeps it in the
    # data folder's database); memory holds nothing: no memory thread was written
    with sqlite3.connect(tmp_path / "data" / "aimind.sqlite") as conn:
        memory_threads = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id LIKE 'chat:%'"
        ).fetchone()[0]
    assert memory_threads == 0
