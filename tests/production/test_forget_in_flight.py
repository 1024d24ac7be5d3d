"""Forget with a run in flight, on two Aegra replicas (contract §9a, "A forget with a run in
flight succeeds the first time").

The replicas answer from a stub model (``harness/openai_stub.py``) that holds a
"slow" question until the test lets it go: the run is still running on whichever
replica's worker took it when the session is forgotten through the other replica. The
first ``DELETE /api/chat/session`` answers 200 (how soon is the bench's to say); the run is
cancelled, its thread and everything else the session owned are gone, and when the
model answers at last nothing of the session is written back.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from aimind_memory.memory.session import new_token
from harness.aegra_server import Replica, aegra_replicas, replica_env
from harness.openai_stub import OpenAIStub, Reply, running_stub, text
from harness.redis_server import RedisServer
from tests.conftest import fresh_database
from tests.production.conftest import SECRET, TIMEOUT, human
from tests.support.forget_scenario import new_marker
from tests.support.residue import holds, pg_dump_bytes

pytestmark = pytest.mark.e2e

SLOW = "SLOW"
"""A question holding this is answered only once the test sets ``Slow.release``."""
REDIS_DB = 2
"""Its own Redis database: its own job queue, apart from the other modules' replicas."""
STARTED_WITHIN_S = 60.0
LATE_WRITE_S = 3.0
"""How long a run that was not stopped would take to write its answer once released."""


@dataclass
class Slow:
    replicas: list[Replica]
    database_url: str
    stub: OpenAIStub
    release: threading.Event


def asked(body: dict[str, Any]) -> str:
    return " ".join(str(m.get("content")) for m in body.get("messages", []))


@pytest.fixture(scope="module")
def slow(
    pg_server_url: str, redis: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Slow]:
    root = tmp_path_factory.mktemp("in-flight")
    release = threading.Event()

    def responder(body: dict[str, Any]) -> Reply:
        question = asked(body)
        if SLOW in question:
            return Reply(content=f"At last: {question[-80:]}", after=release)
        return text("A quick answer.")

    with running_stub(responder) as stub, fresh_database(pg_server_url, "prod") as url:
        model = {"OPENAI_API_KEY": "sk-test-not-a-real-key", "OPENAI_BASE_URL": stub.base_url}
        envs = [
            replica_env(url, redis.url(REDIS_DB), SECRET, root / f"data{i}", model)
            for i in range(2)
        ]
        with aegra_replicas(envs, root) as replicas:
            try:
                yield Slow(replicas, url, stub, release)
            finally:
                release.set()


async def until_asked(stub: OpenAIStub, marker: str) -> None:
    """Until the model has the slow question: its run is running on a replica's worker."""
    deadline = time.monotonic() + STARTED_WITHIN_S
    while not any(marker in asked(body) for body in stub.requests):
        assert time.monotonic() < deadline, "the slow run never reached the model"
        await asyncio.sleep(0.1)


def running_on(replicas: list[Replica], run_id: str) -> int:
    """The replica whose worker runs ``run_id`` (its log names the run beside a worker)."""
    for index, replica in enumerate(replicas):
        for line in replica.log_tail(2_000_000).splitlines():
            if run_id in line and '"worker"' in line:
                return index
    raise AssertionError("no replica's worker took the run")


async def test_forget_with_runs_in_flight_succeeds_the_first_time(slow: Slow) -> None:
    """A run on a thread and a stateless one (the chat page's kind: Aegra deletes its
    thread, and the run's row with it, when it ends) are both in flight."""
    token, marker = new_token(), new_marker("in-flight-")
    first, second = (
        get_client(url=r.base_url, api_key=token, timeout=TIMEOUT) for r in slow.replicas
    )
    done = (await first.threads.create())["thread_id"]
    await first.runs.wait(done, "chat", input=human(f"A finished turn about {marker}."))
    thread = (await first.threads.create())["thread_id"]
    threaded = await first.runs.create(
        thread, "chat", input=human(f"{SLOW}: a long one about {marker}.")
    )
    stateless = await first.runs.create(
        None, "chat", input=human(f"{SLOW}: a stateless one about {marker}.")
    )
    await until_asked(slow.stub, f"a long one about {marker}")
    await until_asked(slow.stub, f"a stateless one about {marker}")
    assert (await first.runs.get(thread, threaded["run_id"]))["status"] == "running"
    assert len(await first.threads.search()) == 3  # the stateless run's thread too

    # forgotten through the replica whose worker does not hold the stateless run
    other = slow.replicas[1 - running_on(slow.replicas, stateless["run_id"])]
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=other.base_url, timeout=TIMEOUT) as raw:
        forgot = await raw.delete("/api/chat/session", headers={"X-Api-Key": token})
    took = time.monotonic() - started
    print(f"forget with 2 runs in flight: {forgot.status_code} in {took:.1f} s")
    assert forgot.status_code == 200, (forgot.status_code, forgot.text, f"{took:.1f} s")
    assert forgot.json()["forgotten"] is True and forgot.json()["threads"] >= 2

    assert await second.threads.search() == []
    slow.release.set()  # the model answers now: a run still going would write it back
    await asyncio.sleep(LATE_WRITE_S)
    assert await first.threads.search() == []
    memory = await second.http.get("/api/chat/memory/export")
    assert memory["messages"] == [] and memory["pins"] == [] and memory["summary"] == ""
    assert not holds(pg_dump_bytes(slow.database_url), marker)
    for replica in slow.replicas:
        log = replica.log_tail(2_000_000)
        assert marker not in log and "Traceback" not in log
