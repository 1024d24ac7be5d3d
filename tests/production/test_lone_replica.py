"""One replica on its own database with a real (stub) model: the run wait without our
wake-up, and a SIGTERM with a model compaction pending (contract §5, §15).

The replica runs with ``AIMIND_AEGRA_WAIT_WAKEUP=0``, so ``runs.wait`` and
``runs.join`` are Aegra's own; the cluster's replicas run with the wake-up. Both
give the same answers; only a replica with the wake-up listens to the run's end
event (seen in Redis's MONITOR: a SUBSCRIBE to the run's channel). The SIGTERM
test stops the replica: it comes last.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client
from redis.asyncio import Redis

from aimind_memory.memory import open_memory
from aimind_memory.memory.session import new_token
from harness.aegra_server import Replica, aegra_replicas, replica_env
from harness.openai_stub import OpenAIStub, Reply, json_reply, running_stub, text
from harness.redis_server import RedisServer
from tests.conftest import fresh_database
from tests.production.conftest import SECRET, TIMEOUT, Cluster, human

pytestmark = pytest.mark.e2e

SUMMARY = "Five questions were asked; LONE-REPLICA-SUMMARY."
COMPACTION_S = 3.0
"""The stub model's compaction takes this long: still pending when SIGTERM comes."""
SHUTDOWN_LIMIT_S = 20.0
REDIS_DB = 1
"""Its own Redis database: its own job queue, apart from the cluster's."""
CHANNEL = "aegra:run:"


def responder(body: dict[str, Any]) -> Reply:
    if body.get("response_format"):  # the compaction's structured output: slow
        time.sleep(COMPACTION_S)
        return json_reply({"summary": SUMMARY, "pinned_decisions": []})
    return text(f"Answer {len(body['messages'])}.")


@dataclass
class Lone:
    replica: Replica
    database_url: str
    stub: OpenAIStub


@pytest.fixture(scope="module")
def lone(
    pg_server_url: str, redis: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Lone]:
    root = tmp_path_factory.mktemp("lone")
    with running_stub(responder) as stub, fresh_database(pg_server_url, "prod") as url:
        env = replica_env(
            url,
            redis.url(REDIS_DB),
            SECRET,
            root / "data",
            {
                "AIMIND_AEGRA_WAIT_WAKEUP": "0",
                "OPENAI_API_KEY": "sk-test-not-a-real-key",
                "OPENAI_BASE_URL": stub.base_url,
            },
        )
        with aegra_replicas([env], root) as (replica,):
            yield Lone(replica, url, stub)


@contextlib.asynccontextmanager
async def subscriptions(redis: RedisServer) -> AsyncIterator[list[str]]:
    """The run channels any client SUBSCRIBEs to while the block runs (Redis MONITOR)."""
    seen: list[str] = []
    client = Redis.from_url(redis.url())

    async def watch(ready: asyncio.Event) -> None:
        async with client.monitor() as monitor:
            ready.set()
            while True:
                command = (await monitor.next_command())["command"]
                if command.startswith("SUBSCRIBE") and CHANNEL in command:
                    seen.append(command.split()[-1].removeprefix(CHANNEL))

    ready = asyncio.Event()
    watcher = asyncio.create_task(watch(ready))
    await asyncio.wait_for(ready.wait(), 10)
    try:
        yield seen
    finally:
        await asyncio.sleep(0.2)  # the last commands reach the monitor
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        await client.aclose()


async def waits(base_url: str, token: str) -> dict[str, Any]:
    """A ``runs.wait`` and a ``runs.create`` + ``runs.join`` on one thread: their answers
    and run ids."""
    client = get_client(url=base_url, api_key=token, timeout=TIMEOUT)
    thread = (await client.threads.create())["thread_id"]
    waited = await client.runs.wait(thread, "chat", input=human("First question?"))
    run = await client.runs.create(thread, "chat", input=human("Second question?"))
    joined = await client.runs.join(thread, run["run_id"])
    run_ids = [r["run_id"] for r in await client.runs.list(thread)]
    return {"waited": waited, "joined": joined, "run_ids": run_ids}


def answers(result: dict[str, Any]) -> tuple[Any, ...]:
    """What a client reads of ``waits``: who spoke last, and the question each answered."""
    return tuple(
        (
            result[kind]["messages"][-1]["type"],
            [m["content"] for m in result[kind]["messages"] if m["type"] == "human"][-1],
        )
        for kind in ("waited", "joined")
    )


async def test_runs_wait_and_join_with_the_wake_up_and_without(
    lone: Lone, cluster: Cluster, redis: RedisServer
) -> None:
    """With the wake-up (the cluster) the API replica subscribes to each waited run's end
    event; without it (this replica, Aegra's own poll) it does not. The answers agree."""
    assert "Aegra run wait wake-up: inactive (AIMIND_AEGRA_WAIT_WAKEUP=0)" in lone.replica.log_tail(
        2_000_000
    )
    async with subscriptions(redis) as with_wakeup:
        woken = await waits(cluster.replicas[0].base_url, new_token())
    async with subscriptions(redis) as without:
        polled = await waits(lone.replica.base_url, new_token())
    expected = (("ai", "First question?"), ("ai", "Second question?"))
    assert answers(woken) == answers(polled) == expected
    assert set(woken["run_ids"]) <= set(with_wakeup)  # every waited or joined run
    assert not set(polled["run_ids"]) & set(without)


async def test_sigterm_lets_a_pending_compaction_land_and_exits_in_time(
    lone: Lone, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The fifth turn starts a model compaction that takes seconds; the replica is stopped
    right after that turn's answer: the compaction lands, and the replica exits in time."""
    token = new_token()
    client = get_client(url=lone.replica.base_url, api_key=token, timeout=TIMEOUT)
    for i in range(1, 6):
        await client.runs.wait(None, "chat", input=human(f"Question {i}?"))
    asked = len(lone.stub.requests)
    # as an orchestrator stops it: SIGTERM, then SIGKILL once the grace period is over
    await asyncio.to_thread(lone.replica.stop, SHUTDOWN_LIMIT_S)
    log = lone.replica.log_tail(200_000)
    # uvicorn re-raises the SIGTERM once it has shut down: exited by that signal, within the
    # grace, not killed
    assert lone.replica.process is not None
    assert lone.replica.process.returncode in (0, -signal.SIGTERM), log
    assert "Traceback" not in log
    assert any(r.get("response_format") for r in lone.stub.requests[:asked]), "no compaction"
    monkeypatch.setenv("AIMIND_SESSION_SECRET", SECRET)
    async with open_memory(lone.database_url) as mem:
        state = await mem.load(token)
    assert state.summary == SUMMARY, log
    assert [m.text for m in state.messages if m.role == "user"] == ["Question 4?", "Question 5?"]
