"""The dev run queue wake-up (``adapters/server/langgraph_dev/run_queue.py``) under a real
``langgraph dev``.

Every run-semantics test runs twice: on a server with the wake-up and on one with
``AIMIND_DEV_QUEUE_WAKEUP=0`` (the stock in-memory queue), and must pass on both:
the wake-up changes when a run starts, never which run starts or what it does.
How much sooner is measured in ``bench/dev_queue.py`` (no timing asserts here).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import ConflictError

from aimind_memory.adapters.engine import unreviewed_versions
from aimind_memory.adapters.server.langgraph_dev import run_queue as dev_run_queue
from aimind_memory.adapters.server.langgraph_dev.run_queue import (
    SUPPORTED_VERSIONS,
    SWITCH_ENV,
    inactive_reason,
)
from harness.langgraph_server import REPO_ROOT, LangGraphServer, langgraph_server

GRAPH = "queue-probe"
GRAPH_SPEC = f"{REPO_ROOT / 'tests' / 'support' / 'queue_graph.py'}:graph"
TOKEN = "dev-run-queue-session-0001"
DEV_ENV = {"LANGGRAPH_RUNTIME_EDITION": "inmem", "LANGSMITH_LANGGRAPH_API_VARIANT": "local_dev"}
BUSY_S = 3.0
"""How long the first run of a multitask test works: long enough to act while it runs."""
PATIENCE_S = 60.0
"""Longest wait for a run: a jammed queue fails the test instead of hanging the suite."""


@pytest.fixture(scope="module", params=["wakeup", "stock"])
def queue_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LangGraphServer]:
    root = tmp_path_factory.mktemp(f"queue-{request.param}")
    env = {SWITCH_ENV: "0"} if request.param == "stock" else {}
    with langgraph_server(
        f"sqlite:///{root / 'db' / 'aimind.sqlite'}",
        root / "data",
        workdir=root / "work",
        env=env,
        graphs={GRAPH: GRAPH_SPEC},
    ) as server:
        yield server


def client_of(server: LangGraphServer) -> Any:
    return get_client(url=server.base_url, headers={"X-AIMind-Session": TOKEN})


def work(label: str, sleep: float = 0.0, ask: bool = False) -> dict[str, Any]:
    return {"label": label, "sleep": sleep, "ask": ask}


async def within(awaitable: Any) -> Any:
    async with asyncio.timeout(PATIENCE_S):
        return await awaitable


async def until_running(client: Any, thread_id: str, run_id: str) -> None:
    for _ in range(int(PATIENCE_S / 0.05)):
        if (await client.runs.get(thread_id, run_id))["status"] != "pending":
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the run never started")


async def busy_thread(client: Any) -> tuple[str, str]:
    """A thread whose first run is working (``BUSY_S``): (thread id, run id)."""
    thread_id = (await client.threads.create())["thread_id"]
    run = await client.runs.create(thread_id, GRAPH, input=work("A", BUSY_S))
    await until_running(client, thread_id, run["run_id"])
    return thread_id, run["run_id"]


async def log_of(client: Any, thread_id: str) -> list[str]:
    return (await client.threads.get_state(thread_id))["values"].get("log", [])


# --- which server is which ----------------------------------------------------------------


def test_the_log_says_whether_the_wake_up_is_on(queue_server: LangGraphServer) -> None:
    log = queue_server.log_tail(10**7)
    lines = [line for line in log.splitlines() if "dev run queue wake-up" in line]
    assert len(lines) == 1, lines
    if queue_server.env.get(SWITCH_ENV) == "0":
        assert f"inactive ({SWITCH_ENV}=0)" in lines[0]
    else:
        assert "dev run queue wake-up: active" in lines[0]


# --- run semantics: the same with and without the wake-up ---------------------------------


async def test_reject_refuses_a_second_run_while_the_first_works(
    queue_server: LangGraphServer,
) -> None:
    client = client_of(queue_server)
    thread_id, first = await busy_thread(client)
    with pytest.raises(ConflictError):
        await client.runs.create(thread_id, GRAPH, input=work("B"), multitask_strategy="reject")
    await within(client.runs.join(thread_id, first))
    assert (await client.runs.get(thread_id, first))["status"] == "success"
    assert await log_of(client, thread_id) == ["A"]


async def test_enqueue_runs_the_second_run_after_the_first(queue_server: LangGraphServer) -> None:
    client = client_of(queue_server)
    thread_id, first = await busy_thread(client)
    second = await client.runs.create(
        thread_id, GRAPH, input=work("B"), multitask_strategy="enqueue"
    )
    assert (await client.runs.get(thread_id, second["run_id"]))["status"] == "pending"
    await within(client.runs.join(thread_id, second["run_id"]))
    for run_id in (first, second["run_id"]):
        assert (await client.runs.get(thread_id, run_id))["status"] == "success"
    state = (await client.threads.get_state(thread_id))["values"]
    assert state["log"] == ["A", "B"]
    assert state["started"][1] >= state["started"][0] + BUSY_S  # B waited for A to finish


async def test_interrupt_stops_the_working_run_for_the_new_one(
    queue_server: LangGraphServer,
) -> None:
    client = client_of(queue_server)
    thread_id, first = await busy_thread(client)
    second = await client.runs.create(
        thread_id, GRAPH, input=work("B"), multitask_strategy="interrupt"
    )
    await within(client.runs.join(thread_id, second["run_id"]))
    assert (await client.runs.get(thread_id, second["run_id"]))["status"] == "success"
    assert (await client.runs.get(thread_id, first))["status"] == "interrupted"
    assert await log_of(client, thread_id) == ["B"]  # A never finished its work


async def test_cancel_stops_a_working_run_and_the_thread_takes_the_next(
    queue_server: LangGraphServer,
) -> None:
    client = client_of(queue_server)
    thread_id, first = await busy_thread(client)
    await within(client.runs.cancel(thread_id, first, wait=True))
    assert (await client.runs.get(thread_id, first))["status"] == "interrupted"
    after = await within(client.runs.wait(thread_id, GRAPH, input=work("C")))
    assert after["log"] == ["C"]


async def test_a_human_interrupt_pauses_the_run_and_a_resume_finishes_it(
    queue_server: LangGraphServer,
) -> None:
    client = client_of(queue_server)
    thread_id = (await client.threads.create())["thread_id"]
    paused = await within(client.runs.wait(thread_id, GRAPH, input=work("Q", ask=True)))
    assert [i["value"] for i in paused["__interrupt__"]] == ["continue Q?"]
    assert (await client.threads.get(thread_id))["status"] == "interrupted"
    done = await within(client.runs.wait(thread_id, GRAPH, command={"resume": "yes"}))
    assert done["log"] == ["Q", "Q:yes"]
    assert (await client.threads.get(thread_id))["status"] == "idle"


async def test_after_seconds_holds_the_run_back(queue_server: LangGraphServer) -> None:
    client = client_of(queue_server)
    thread_id = (await client.threads.create())["thread_id"]
    asked_at = time.time()
    run = await client.runs.create(thread_id, GRAPH, input=work("L"), after_seconds=2)
    assert (await client.runs.get(thread_id, run["run_id"]))["status"] == "pending"
    await within(client.runs.join(thread_id, run["run_id"]))
    state = (await client.threads.get_state(thread_id))["values"]
    assert state["log"] == ["L"]
    assert state["started"][0] >= asked_at + 2  # not a moment before its time


async def test_concurrent_runs_on_many_threads_all_finish(queue_server: LangGraphServer) -> None:
    client = client_of(queue_server)
    threads = [(await client.threads.create())["thread_id"] for _ in range(4)]
    labels = [f"T{i}" for i in range(len(threads))]
    results = await within(
        asyncio.gather(
            *(
                client.runs.wait(t, GRAPH, input=work(label, 0.2))
                for t, label in zip(threads, labels, strict=True)
            ),
            *(client.runs.wait(None, GRAPH, input=work(f"S{i}", 0.2)) for i in range(2)),
        )
    )
    assert [r["log"] for r in results] == [[label] for label in labels] + [["S0"], ["S1"]]
    for thread_id, label in zip(threads, labels, strict=True):
        assert await log_of(client, thread_id) == [label]


# --- when the wake-up applies (no server) ---------------------------------------------------


def test_it_applies_only_to_langgraph_devs_in_memory_runtime() -> None:
    assert inactive_reason(DEV_ENV) is None
    assert inactive_reason({**DEV_ENV, SWITCH_ENV: "0"}) == f"{SWITCH_ENV}=0"
    assert inactive_reason({**DEV_ENV, "AIMIND_ENV": "production"}) == "AIMIND_ENV=production"
    not_dev = "not langgraph dev's in-memory runtime"
    assert inactive_reason({}) == not_dev
    assert inactive_reason({**DEV_ENV, "LANGGRAPH_RUNTIME_EDITION": "postgres"}) == not_dev
    assert inactive_reason({**DEV_ENV, "LANGSMITH_LANGGRAPH_API_VARIANT": "cloud"}) == not_dev


def test_another_runtime_version_leaves_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(dev_run_queue.SUPPORTED_VERSIONS, "langgraph-runtime-inmem", "9.9.9")  # type: ignore[index]
    reason = inactive_reason(DEV_ENV)
    assert reason is not None and "reviewed for" in reason
    assert "langgraph-runtime-inmem 9.9.9" in reason


def test_the_installed_runtime_is_the_reviewed_one() -> None:
    """Fails on an upgrade of langgraph-api or langgraph-runtime-inmem: the wake-up is then
    off. Re-read ``Runs.next``/``Runs.put`` in langgraph_runtime_inmem/ops.py and the
    scheduler in its queue.py, then update ``SUPPORTED_VERSIONS`` (and the lock file)."""
    assert unreviewed_versions(SUPPORTED_VERSIONS) is None
