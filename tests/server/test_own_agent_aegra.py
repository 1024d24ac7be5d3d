"""A user's own agent served with memory on Aegra, as ``docs/guides/own-agent.md`` tells it.

The user's folder is a temporary directory holding the page's ``agent.py`` and
``aegra.json`` as written (a ``create_agent`` graph with ``ChatMemoryMiddleware``,
``aimind_memory.server:auth`` and ``:app``; only the public ``aimind_memory`` import
path), started by the page's own shell lines (``export … ; python -m uvicorn
aegra_api.main:app``) with a fresh database of the real PostgreSQL, a secret and a free
port in place of the page's, and driven with the LangGraph SDK's requests (``api_key``: the
``X-Api-Key`` header). Beside it, the same folder without the auth, started at the same
moment on a database of its own: memory refuses its runs and says what to add.

Why here and not in ``tests/production``: that folder is one unit of work for its shared
Redis and two replicas (the suite's longest); this needs neither, only PostgreSQL, which
every worker's session already has, so it runs as a unit of its own on whichever worker
is free.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import psycopg
import pytest
from langgraph_sdk import get_client

from harness.aegra_server import Replica, aegra_env, started_together
from harness.langgraph_server import free_port
from harness.own_agent import GRAPH, aegra_folder, aegra_start
from tests.conftest import fresh_database

pytestmark = pytest.mark.e2e

ALICE, BOB, CAROL = "aegra-own-alice-0001", "aegra-own-bob-000001", "aegra-own-carol-0001"
DECISION = "We ship on Friday, code word PLUM-7."
QUESTION = "What did we decide?"
RESERVED = "reserved for chat memory"
"""What every thread route answers for a memory thread's id."""
TIMEOUT = httpx.Timeout(60.0)
REFUSAL_S = 120
"""Generous: the refusal comes as the app loads, after Aegra's imports, on 2 shared cores."""


@dataclass
class Served:
    """An Aegra process serving a user's folder, and the database it was given."""

    server: Replica
    database_url: str

    def client(self, token: str | None = None) -> Any:
        return get_client(url=self.server.base_url, api_key=token, timeout=TIMEOUT)


@dataclass
class Servers:
    own: Served
    """The page's folder as written."""
    no_auth: Served
    """The same folder, its ``aegra.json`` without ``auth`` and ``http``."""


def _shell_env(data_dir: Path) -> dict[str, str]:
    """The user's shell: this environment's ``python`` first on the PATH."""
    env = aegra_env(data_dir)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _user_server(root: Path, name: str, database_url: str, *, auth: bool) -> Replica:
    """The user's folder ``root / name``, to be started by the page's shell lines."""
    folder = root / name
    aegra_folder(folder, auth=auth)
    port = free_port()
    return Replica(
        _shell_env(root / f"{name}-data"),
        root / "logs" / f"{name}.log",
        port=port,
        command=("bash", "-c", aegra_start(database_url, secrets.token_urlsafe(48), port)),
        cwd=folder,
    )


@pytest.fixture(scope="module")
def servers(pg_server_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    root = tmp_path_factory.mktemp("own-agent-aegra")
    with (
        fresh_database(pg_server_url, "own") as own_url,
        fresh_database(pg_server_url, "own") as bare_url,
    ):
        own = _user_server(root, "my-agent", own_url, auth=True)
        bare = _user_server(root, "no-auth", bare_url, auth=False)
        with started_together([own, bare]):
            yield Servers(Served(own, own_url), Served(bare, bare_url))


def ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def answer(served: Served, token: str, thread_id: str, text: str) -> str:
    """One run on the thread; the final answer's text."""
    out = await served.client(token).runs.wait(thread_id, GRAPH, input=ask(text))
    return str(out["messages"][-1]["content"])


async def new_thread(served: Served, token: str | None) -> str:
    return str((await served.client(token).threads.create())["thread_id"])


def memory_thread(served: Served, token: str) -> dict[str, Any]:
    """The session's memory as the memory route shows it."""
    response = httpx.get(
        f"{served.server.base_url}/api/chat/thread", headers={"X-Api-Key": token}, timeout=30
    )
    response.raise_for_status()
    return dict(response.json())


def said(served: Served, token: str) -> list[str]:
    """What the session's user said, as memory keeps it."""
    return [m["text"] for m in memory_thread(served, token)["messages"] if m["role"] == "user"]


def checkpointed_threads(database_url: str) -> set[str]:
    with psycopg.connect(database_url) as conn:
        return {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}


async def test_the_second_turn_on_a_thread_is_answered_from_memory(servers: Servers) -> None:
    own = servers.own
    thread = await new_thread(own, ALICE)
    assert "0 recent turns" in await answer(own, ALICE, thread, DECISION)
    # The model's context is rebuilt from memory, never from the thread's own history:
    # the one earlier turn it got is memory's.
    assert "1 recent turn." in await answer(own, ALICE, thread, QUESTION)
    assert said(own, ALICE) == [DECISION, QUESTION]

    later = await answer(own, ALICE, await new_thread(own, ALICE), "And on a new thread?")
    assert "2 recent turns" in later  # memory follows the session, not the thread
    stranger = await answer(own, BOB, await new_thread(own, BOB), QUESTION)
    assert "0 recent turns" in stranger and "PLUM-7" not in stranger


async def test_memory_lives_in_the_database_the_page_gives_aegra(servers: Servers) -> None:
    own = servers.own
    await answer(own, CAROL, await new_thread(own, CAROL), "Kept with Aegra's threads.")
    memory_id = memory_thread(own, CAROL)["threadId"]
    assert memory_id.startswith("chat:")
    assert memory_id in checkpointed_threads(own.database_url)
    start = [line for line in own.server.log_tail(200_000).splitlines() if "chat memory:" in line]
    assert len(start) == 1, own.server.log_tail()
    database = urlsplit(own.database_url).path.lstrip("/")
    assert re.search(rf"database PostgreSQL \S+/{database};", start[0]), start[0]
    assert "session secret from AIMIND_SESSION_SECRET" in start[0]  # none kept on disk


async def test_memorys_thread_is_not_reachable_through_the_thread_routes(
    servers: Servers,
) -> None:
    own, token = servers.own, "aegra-own-dave-00001"
    await answer(own, token, await new_thread(own, token), DECISION)
    memory_id = memory_thread(own, token)["threadId"]
    sdk = own.client(token)
    attempts = {
        "get": lambda: sdk.threads.get(memory_id),
        "get_state": lambda: sdk.threads.get_state(memory_id),
        "get_history": lambda: sdk.threads.get_history(memory_id),
        "update_state": lambda: sdk.threads.update_state(memory_id, {"messages": []}),
        "delete": lambda: sdk.threads.delete(memory_id),
        "create": lambda: sdk.threads.create(thread_id=memory_id),
        "runs.wait": lambda: sdk.runs.wait(memory_id, GRAPH, input=ask("Into memory, directly.")),
    }
    for route, attempt in attempts.items():
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await attempt()
        assert 400 <= refused.value.response.status_code < 500, route
        assert RESERVED in refused.value.response.text, route
    listed = {t["thread_id"] for t in await sdk.threads.search(limit=100)}
    assert listed and memory_id not in listed
    assert said(own, token) == [DECISION]  # untouched


async def test_without_our_auth_memory_refuses_the_run_with_the_fix(servers: Servers) -> None:
    bare = servers.no_auth
    sdk = bare.client()
    thread = await new_thread(bare, None)
    with pytest.raises(Exception, match="chat memory needs to know whose memory") as refused:
        await sdk.runs.wait(thread, GRAPH, input=ask(DECISION))
    assert '"auth": {"path": "aimind_memory.server:auth"}' in str(refused.value)
    assert "aegra.json" in str(refused.value)
    state = await sdk.threads.get_state(thread)
    assert [m["type"] for m in state["values"]["messages"]] == ["human"]  # no answer
    assert checkpointed_threads(bare.database_url) == {thread}  # and no memory thread


def test_the_pages_start_without_its_secret_stops_with_one_sentence(tmp_path: Path) -> None:
    """The page's lines with the secret's left out: the server stops as it loads, before
    it serves or reaches the database (production generates no secret), with one
    sentence naming the variable and no traceback."""
    folder = tmp_path / "my-agent"
    aegra_folder(folder)
    unreachable = f"postgresql://me@127.0.0.1:{free_port()}/myagent"
    start = aegra_start(unreachable, "left out", free_port()).splitlines()
    script = "\n".join(line for line in start if "AIMIND_SESSION_SECRET" not in line)
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=folder,
        env=_shell_env(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=REFUSAL_S,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("aimind: AIMIND_SESSION_SECRET is not set."), last
    assert not list(tmp_path.rglob("session-secret"))
