"""Two Aegra replicas on one PostgreSQL and one Redis serve one deployment (contract §15).

Any request may reach any replica: memory written through one is read through
the other, a review paused on one is resumed on the other, and one session never
reaches another's threads, crons or memory through either.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
import pytest

from aimind_memory.memory import open_memory
from aimind_memory.memory.session import hash_token, new_token
from harness.faults import assert_bounded
from tests.production.conftest import SECRET, Cluster, human

pytestmark = pytest.mark.e2e

LOG_ALARM = re.compile(r'Traceback|"level": "(error|critical)"|\bERROR\b')
STARTED = "Application startup complete"
SESSIONS = 30
TURNS = 3
IN_FLIGHT = 10


def texts(dto: dict[str, Any]) -> list[str]:
    return [m["text"] for m in dto["messages"]]


async def hydrate(cluster: Cluster, index: int, token: str) -> dict[str, Any]:
    async with cluster.http(index) as client:
        response = await client.get("/api/chat/thread", headers={"X-AIMind-Session": token})
    assert response.status_code == 200, response.text
    return response.json()


def test_both_replicas_started_together_on_a_fresh_database(cluster: Cluster) -> None:
    """The fixture started both at the same moment on an empty database: both answer, and
    neither start-up logged an error or a traceback (one set the schema up, the other
    waited for it)."""
    for replica in cluster.replicas:
        health = httpx.get(f"{replica.base_url}/health", timeout=30)
        assert health.status_code == 200 and health.json()["status"] == "healthy"
        log = replica.log_tail(2_000_000)
        start = log[: log.index(STARTED)]  # what later tests make replicas log is theirs
        assert not LOG_ALARM.search(start), LOG_ALARM.search(start)
        assert "Aegra run wait wake-up: active" in start


async def test_a_turn_on_one_replica_is_memory_on_the_other(memory_env: Cluster) -> None:
    token = new_token()
    a, b = memory_env.client(0, token), memory_env.client(1, token)
    await a.runs.wait(None, "chat", input=human("My cat is called Pixel and I live in Lyon."))
    assert texts(await hydrate(memory_env, 1, token))[0].startswith("My cat is called Pixel")
    answer = await b.runs.wait(None, "chat", input=human("What is my cat called?"))
    assert answer["memory_context"]["recentTurns"] == 1  # B's model got A's turn as context
    thread = (await b.threads.create())["thread_id"]
    await b.runs.wait(thread, "chat", input=human("And where do I live?"))
    state = await a.threads.get_state(thread)  # B's thread, read through A
    assert [m["content"] for m in state["values"]["messages"] if m["type"] == "human"][-1] == (
        "And where do I live?"
    )
    async with open_memory() as mem:
        stored = await mem.load(token)
    assert [m.text for m in stored.messages if m.role == "user"] == [
        "My cat is called Pixel and I live in Lyon.",
        "What is my cat called?",
        "And where do I live?",
    ]


async def test_a_review_paused_on_one_replica_is_resumed_on_the_other(
    memory_env: Cluster,
) -> None:
    token = new_token()
    a, b = memory_env.client(0, token), memory_env.client(1, token)
    thread = (await a.threads.create())["thread_id"]
    goal = "Plan the move of the office to the new building"
    paused = await a.runs.wait(thread, "tasklist-agent", input=human(goal, "goal-prod-1"))
    assert paused["__interrupt__"], paused
    found = await b.threads.search(metadata={"graph_id": "tasklist-agent"}, status="interrupted")
    assert [t["thread_id"] for t in found] == [thread]
    pending = await b.threads.get_state(thread)
    assert pending["next"] and pending["tasks"][0]["interrupts"]
    final = await b.runs.wait(
        thread, "tasklist-agent", command={"resume": {"decisions": [{"type": "approve"}]}}
    )
    assert final["status"] == "final", final
    assert (await a.threads.get(thread))["status"] == "idle"
    dto = await hydrate(memory_env, 0, token)
    assert texts(dto)[0] == goal and len(dto["messages"]) == 2  # the goal and the summary


async def test_one_session_reaches_nothing_of_another_through_either_replica(
    memory_env: Cluster,
) -> None:
    owner, other = new_token(), new_token()
    mine = memory_env.client(0, owner)
    thread = (await mine.threads.create(metadata={"topic": "private"}))["thread_id"]
    await mine.runs.wait(thread, "chat", input=human("The vault code is 7291."))
    await mine.crons.create("chat", schedule="0 0 1 1 *", input=human("yearly"))
    [cron] = await mine.crons.search()  # Aegra answers a create with the cron's first run
    for index in (0, 1):
        theirs = memory_env.client(index, other)
        assert await theirs.threads.search() == []
        assert await theirs.crons.search() == []
        for call in (theirs.threads.get(thread), theirs.threads.get_state(thread)):
            with pytest.raises(httpx.HTTPStatusError) as refused:
                await call
            assert refused.value.response.status_code == 404
        seen = await theirs.runs.wait(None, "chat", input=human("What is the vault code?"))
        assert "7291" not in json.dumps(seen)
        assert "7291" not in json.dumps(await hydrate(memory_env, index, other))
    assert [c["cron_id"] for c in await mine.crons.search()] == [cron["cron_id"]]


async def test_a_cron_cannot_be_handed_to_another_session(memory_env: Cluster) -> None:
    owner, other = new_token(), new_token()
    mine = memory_env.client(0, owner)
    await mine.crons.create("chat", schedule="0 0 1 1 *", input=human("yearly"))
    [cron] = await mine.crons.search()
    other_hash = hash_token(other, SECRET.encode())
    async with memory_env.http(1) as client:
        patched = await client.patch(
            f"/runs/crons/{cron['cron_id']}",
            json={"metadata": {"owner": other_hash}, "schedule": "0 0 2 1 *"},
            headers={"X-AIMind-Session": owner},
        )
    assert patched.status_code == 200, patched.text
    assert await memory_env.client(1, other).crons.search() == []
    assert [c["cron_id"] for c in await memory_env.client(1, owner).crons.search()] == [
        cron["cron_id"]
    ]


@pytest.mark.parametrize("index", [0, 1])
async def test_two_tokens_in_one_request_are_refused_on_both_replicas(
    memory_env: Cluster, index: int
) -> None:
    first, second = new_token(), new_token()
    repeated = [("X-AIMind-Session", first), ("X-AIMind-Session", second)]
    disagree = {"X-AIMind-Session": first, "Authorization": f"Bearer {second}"}
    async with memory_env.http(index) as client:
        for headers in (repeated, disagree):
            for method, path in (("POST", "/threads/search"), ("GET", "/api/chat/thread")):
                response = await client.request(method, path, headers=headers, json={})
                assert response.status_code == 401, response.text
                assert "two different session tokens" in response.text or "twice" in response.text
    for token in (first, second):
        assert texts(await hydrate(memory_env, index, token)) == []  # neither was touched


async def test_thirty_sessions_alternating_replicas_lose_no_turn(memory_env: Cluster) -> None:
    """30 sessions × 3 turns, each turn on the other replica than the last, 10 in flight."""
    tokens = [new_token() for _ in range(SESSIONS)]
    gate = asyncio.Semaphore(IN_FLIGHT)
    reported: dict[str, list[str]] = {token: [] for token in tokens}

    async def converse(number: int, token: str) -> None:
        for turn in range(TURNS):
            text = f"Session {number:02d} turn {turn}: the parcel is number {number * 10 + turn}."
            async with gate:
                client = memory_env.client((number + turn) % 2, token)
                result = await client.runs.wait(None, "chat", input=human(text))
            assert "__error__" not in result, result
            reported[token].append(text)

    await asyncio.gather(*(converse(i, t) for i, t in enumerate(tokens)))
    async with open_memory() as mem:
        for token in tokens:
            state = await mem.load(token)
            assert_bounded(state)
            assert [m.text for m in state.messages if m.role == "user"] == reported[token]


@pytest.mark.parametrize("index", [0, 1])
async def test_run_input_is_checked_before_a_run_is_queued(memory_env: Cluster, index: int) -> None:
    """Aegra hands auth the request body (``input``, ``command``, a bare graph id): a turn
    without text is a 422 sentence on either replica; agent-chat-ui's resume passes."""
    token = new_token()
    headers = {"X-AIMind-Session": token}
    no_text = {"messages": [{"role": "user", "content": "   "}]}
    async with memory_env.http(index) as client:
        thread = (await client.post("/threads", json={}, headers=headers)).json()["thread_id"]
        refused = [
            await client.post(path, json={"assistant_id": graph, "input": no_text}, headers=headers)
            for path in ("/runs/wait", f"/threads/{thread}/runs/wait")
            for graph in ("chat", "tasklist-agent")
        ]
        paused = await client.post(
            f"/threads/{thread}/runs/wait",
            json={"assistant_id": "tasklist-agent", "input": human("Plan the team offsite")},
            headers=headers,
        )
        resumed = await client.post(
            f"/threads/{thread}/runs/wait",
            json={
                "assistant_id": "tasklist-agent",
                "input": {},
                "command": {"resume": {"decisions": [{"type": "approve"}]}},
            },
            headers=headers,
        )
    for response in refused:
        assert response.status_code == 422, response.text
        assert "Traceback" not in response.text and "user message" in response.text.lower()
    assert "__interrupt__" in paused.json()
    assert resumed.status_code == 200 and resumed.json()["status"] == "final", resumed.text
    assert texts(await hydrate(memory_env, index, token))[0] == "Plan the team offsite"
