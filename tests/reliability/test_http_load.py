"""Concurrency and load through real ``langgraph dev`` servers sharing one PostgreSQL.

Every turn a client saw complete must be in its session's memory exactly once. The
summary keeps only what is salient, so turns are counted by the memory thread's
checkpoints instead: each write is one step on a linear chain (every checkpoint's
parent is the one before it), so the latest step + 1 is the number of turns stored,
and the window holds the newest of them, each once.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from aimind_memory.memory import MemoryService, open_memory
from aimind_memory.memory.session import new_token
from harness.faults import assert_bounded
from tests.reliability.conftest import Cluster

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

HEADER = "X-AIMind-Session"
TIMEOUT = httpx.Timeout(180.0)
LOAD_CLIENTS = 30
LOAD_TURNS = 14
LOAD_BUDGET_S = 300.0
"""Clients start no new turn after this; the test is bounded whatever the machine's load."""
MIN_LOAD_RUNS = LOAD_CLIENTS
"""Enough runs for the figures to mean something even on a crowded machine."""


def human(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def assert_stored_once(mem: MemoryService, session: str, texts: list[str]) -> None:
    """``texts`` (the turns clients saw complete) were each stored once, none lost: as many
    writes on the memory thread's chain as turns, and the window's turns among them, once."""
    state = await mem.load(session)
    assert_bounded(state)
    chain = await mem.graph.aget_state({"configurable": {"thread_id": mem.thread_id(session)}})
    assert chain.metadata["step"] + 1 == len(texts), "one write per completed turn"
    window = [m.text for m in state.messages if m.role == "user"]
    assert len(window) == len(set(window)) and set(window) <= set(texts)


async def test_two_servers_same_session_lose_no_turn(cluster_env: Cluster) -> None:
    """Two processes, four clients each, all on one session at once."""
    session = new_token()
    clients = [
        get_client(url=server.base_url, headers={HEADER: session}, timeout=TIMEOUT)
        for server in cluster_env.servers
        for _ in range(4)
    ]

    async def client_turns(index: int, client: Any) -> list[str]:
        sent = []
        for t in range(3):
            text = f"turn c{index} t{t} on one session"
            result = await client.runs.wait(None, "chat", input=human(text))
            assert "__error__" not in result, result
            sent.append(text)
        return sent

    sent = await asyncio.gather(*(client_turns(i, c) for i, c in enumerate(clients)))
    texts = [t for batch in sent for t in batch]
    async with open_memory() as mem:
        await assert_stored_once(mem, session, texts)


async def test_thirty_clients_fourteen_turns_each_lose_no_turn(cluster_env: Cluster) -> None:
    url = cluster_env.url
    deadline = time.monotonic() + LOAD_BUDGET_S
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    completed: dict[str, list[str]] = {}

    async def one_client(index: int) -> None:
        session = new_token()
        client = get_client(url=url, headers={HEADER: session}, timeout=TIMEOUT)
        completed[session] = []
        thread_id = (await client.threads.create())["thread_id"]
        for t in range(LOAD_TURNS):
            if time.monotonic() > deadline:
                return
            text = f"load client {index} turn {t}"
            started = time.monotonic()
            try:
                result = await client.runs.wait(thread_id, "chat", input=human(text))
            except httpx.HTTPStatusError as exc:
                errors[f"http {exc.response.status_code}"] += 1
                continue
            except httpx.HTTPError as exc:
                errors[type(exc).__name__] += 1
                continue
            if "__error__" in result:
                errors["run error"] += 1
                continue
            latencies.append(time.monotonic() - started)
            completed[session].append(text)

    began = time.monotonic()
    await asyncio.gather(*(one_client(i) for i in range(LOAD_CLIENTS)))
    wall = time.monotonic() - began
    runs = len(latencies)
    quantiles = statistics.quantiles(latencies, n=20) if runs >= 2 else [0.0] * 19
    print(
        f"\nLOAD {LOAD_CLIENTS} clients x {LOAD_TURNS} turns, langgraph dev on Postgres: "
        f"{runs} runs completed of {LOAD_CLIENTS * LOAD_TURNS} in {wall:.1f}s "
        f"({runs / wall:.2f} runs/s), latency p50 {statistics.median(latencies):.3f}s "
        f"p95 {quantiles[18]:.3f}s max {max(latencies):.3f}s, errors {dict(errors) or 0}"
    )
    assert not [e for e in errors if e.startswith("http 5")], errors
    assert not errors, errors
    assert runs >= MIN_LOAD_RUNS

    async with open_memory() as mem:
        for session, texts in completed.items():
            await assert_stored_once(mem, session, texts)
