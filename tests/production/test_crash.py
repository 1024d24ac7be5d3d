"""A replica killed (SIGKILL) mid-conversation loses no turn that was reported written,
and the other replica keeps serving (contract §15).

A third replica joins the cluster; sessions converse turn after turn, alternating
between it and replica A, until the third is killed with turns in flight. Turns
sent to the dead replica fail (not reported, so memory may or may not hold them);
runs it had taken from the shared queue are taken over by A once their lease
expires. Every turn a client saw answered must then be in memory, in order, and A
answers the sessions' next turns.
"""

from __future__ import annotations

import asyncio
import contextlib

import httpx
import pytest

from aimind_memory.memory import open_memory
from aimind_memory.memory.session import new_token
from harness.aegra_server import Replica
from harness.faults import assert_bounded
from tests.production.conftest import Cluster, human

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SESSIONS = 6
TURNS_BEFORE_KILL = 8
"""Answered turns (in all) by the doomed replica before it is killed."""
MAX_TURNS = 9
"""Per session, so every turn stays verbatim in the cluster's widened window."""
AFTER = 2
LOST_CONNECTION = (httpx.TransportError, httpx.HTTPStatusError)


async def test_a_killed_replica_loses_no_reported_turn_and_the_other_serves_on(
    memory_env: Cluster,
) -> None:
    doomed = Replica(memory_env.replica_env("doomed"), memory_env.root / "doomed" / "serve.log")
    doomed.spawn()
    await asyncio.to_thread(doomed.wait_ready)
    urls = [memory_env.replicas[0].base_url, doomed.base_url]
    tokens = [new_token() for _ in range(SESSIONS)]
    reported: dict[str, list[str]] = {t: [] for t in tokens}
    sent: dict[str, list[str]] = {t: [] for t in tokens}
    on_doomed = 0
    killed = asyncio.Event()

    async def turn(token: str, url: str, text: str) -> bool:
        sent[token].append(text)
        async with httpx.AsyncClient(base_url=url, timeout=120) as client:
            response = await client.post(
                "/runs/wait",
                json={"assistant_id": "chat", "input": human(text)},
                headers={"X-AIMind-Session": token},
            )
            response.raise_for_status()
            assert "__error__" not in response.json(), response.text
        reported[token].append(text)
        return True

    async def converse(number: int, token: str) -> None:
        nonlocal on_doomed
        for t in range(MAX_TURNS - AFTER):
            target = (number + t) % 2
            if killed.is_set():
                target = 0
            with contextlib.suppress(*LOST_CONNECTION):
                await turn(token, urls[target], f"Session {number} turn {t}: box {number}{t}.")
                on_doomed += target
            if on_doomed >= TURNS_BEFORE_KILL and not killed.is_set():
                killed.set()
                await asyncio.to_thread(doomed.kill)

    await asyncio.gather(*(converse(i, t) for i, t in enumerate(tokens)))
    assert killed.is_set() and not doomed.running
    for number, token in enumerate(tokens):  # the survivor serves every session on
        for t in range(AFTER):
            assert await turn(token, urls[0], f"Session {number} after the crash {t}.")
    async with open_memory() as mem:
        for token in tokens:
            state = await mem.load(token)
            assert_bounded(state)
            stored = [m.text for m in state.messages if m.role == "user"]
            assert [t for t in stored if t in reported[token]] == reported[token], (
                "a reported turn was lost"
            )
            assert all(t in sent[token] for t in stored)
            assert len(stored) == len(set(stored)), "a turn was written twice"
