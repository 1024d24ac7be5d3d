"""The HTTP edge on Aegra, PostgreSQL and Redis (contract §8, §8a, §15; issue 29).

Aegra accepts any thread id and hands some routes no auth call: a session's memory
thread (``chat:<hash>``, no secret) was readable, deletable and writable through the
thread API. A NUL or a lone surrogate reached PostgreSQL and came back as a 500 whose
log carried the SQL and the user's text; a client-set ``keep_latest`` TTL emptied a chat
thread's transcript on ``/threads/prune``; there was no body limit; agent-chat-ui's
thread list showed raw ids. Each is checked here on the real replicas.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import psycopg
import pytest

from aimind_memory.adapters.server.memory_threads import MEMORY_THREAD_REFUSED
from aimind_memory.adapters.server.request_guard import BAD_PATH, BAD_TEXT
from aimind_memory.adapters.server.request_limits import RequestLimits
from aimind_memory.memory import open_memory
from aimind_memory.memory.session import hash_token, memory_thread_id, new_token
from tests.production.conftest import SECRET, Cluster, human
from tests.server.agent_chat_ui import AgentChatUI
from tests.support.edge_requests import (
    CROSS_ORIGIN,
    FOREIGN_ORIGIN,
    MALFORMED_RUNS,
    MB,
    SERVER_ERROR_PATH,
    chunked_body,
    cors_headers,
    edge_refusals,
    memory_thread_requests,
    preflight,
)

pytestmark = pytest.mark.e2e

HEADER = "X-AIMind-Session"
LEAKS = re.compile(
    r"Traceback|File \"|site-packages|\bSELECT\b|\bINSERT\b|psycopg|asyncpg|sqlalchemy|"
    r"DBAPIError|UntranslatableCharacter|invalid byte sequence",
    re.IGNORECASE,
)


def log_sizes(cluster: Cluster) -> list[int]:
    return [len(r.log_tail(10**9)) for r in cluster.replicas]


def logged_since(cluster: Cluster, sizes: list[int]) -> str:
    """What the replicas logged since ``log_sizes``."""
    return "".join(
        r.log_tail(10**9)[size:] for r, size in zip(cluster.replicas, sizes, strict=True)
    )


def one_sentence(response: httpx.Response, status: int, sentence: str | None = None) -> str:
    assert response.status_code == status, (response.status_code, response.text[:300])
    body = response.json()
    assert set(body) == {"detail"}, body
    if sentence is not None:
        assert body["detail"] == sentence
    assert not LEAKS.search(response.text), response.text
    return str(body["detail"])


def checkpoint_rows(database_url: str, thread_id: str) -> int:
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread_id,)
        ).fetchone()
    return int(row[0]) if row else 0


def reserved_thread_rows(database_url: str) -> int:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM thread WHERE thread_id LIKE 'chat:%'").fetchone()
    return int(row[0]) if row else 0


async def test_no_thread_route_reaches_a_memory_thread(memory_env: Cluster) -> None:
    """Session B (and A itself) tries every thread route on A's memory thread, on both
    replicas: each is a 403 sentence; A's memory, its checkpoints and the thread table
    are as before."""
    owner, other = new_token(), new_token()
    async with memory_env.http(0) as client:
        answered = await client.post(
            "/runs/wait",
            json={"assistant_id": "chat", "input": human("The vault code is 7291.")},
            headers={HEADER: owner},
        )
        assert answered.status_code == 200, answered.text
    memory_thread = memory_thread_id(hash_token(owner, SECRET.encode()))
    async with open_memory() as mem:
        before = (await mem.load(owner)).model_dump(mode="json")
    assert "7291" in json.dumps(before)
    rows = checkpoint_rows(memory_env.database_url, memory_thread)
    assert rows > 0

    requests = memory_thread_requests(memory_thread, human("Overwrite it."))
    for index in (0, 1):
        async with memory_env.http(index) as client:
            for token in (other, owner):
                for method, path, body in requests:
                    response = await client.request(
                        method, path, json=body, headers={HEADER: token}
                    )
                    one_sentence(response, 403, MEMORY_THREAD_REFUSED)
                    assert "7291" not in response.text
            pruned = await client.post("/threads/prune", headers={HEADER: other})
            assert pruned.status_code == 200  # a prune without ids touches no memory thread

    async with open_memory() as mem:
        assert (await mem.load(owner)).model_dump(mode="json") == before
    assert checkpoint_rows(memory_env.database_url, memory_thread) == rows
    assert reserved_thread_rows(memory_env.database_url) == 0


UNSTORABLE = [
    ("GET", "/threads/ab%00cd", None, BAD_PATH),
    ("GET", "/threads/%ED%A0%80/state", None, BAD_PATH),
    ("POST", "/threads", b'{"thread_id": "a\\u0000b"}', BAD_TEXT),
    ("POST", "/threads", b'{"metadata": {"topic": "MARKER \\ud800"}}', BAD_TEXT),
    (
        "POST",
        "/runs/wait",
        b'{"assistant_id": "chat", "input": {"messages": [{"role": "user", '
        b'"content": "MARKER lone \\ud800 surrogate"}]}}',
        BAD_TEXT,
    ),
    (
        "POST",
        "/runs/wait",
        b'{"assistant_id": "chat", "input": {"messages": [{"role": "user", '
        b'"content": "MARKER", "id": "m\\u0000id"}]}}',
        BAD_TEXT,
    ),
    (
        "POST",
        "/runs/wait",
        b'{"assistant_id": "tasklist-agent", "input": {"messages": [{"role": "user", '
        b'"content": "Plan the MARKER migration of the databases \\u0000 to the new cluster"}]}}',
        BAD_TEXT,
    ),
    (
        "POST",
        "/runs/wait",
        b'{"assistant_id": "delivery-chain", "input": {"requirement": "MARKER \\u0000"}}',
        BAD_TEXT,
    ),
]


async def test_unstorable_text_is_refused_before_any_database_sees_it(
    memory_env: Cluster,
) -> None:
    """Before: a NUL in a path or a thread id, or a lone surrogate in content, was a 500
    whose log held the SQL and the user's text. Now: a 422 sentence, nothing stored, and
    nothing of it in either replica's log."""
    token = new_token()
    marker = f"unstorable-{new_token()[:12]}"
    sizes = log_sizes(memory_env)
    async with memory_env.http(0) as client:
        for method, path, raw, sentence in UNSTORABLE:
            content = raw.replace(b"MARKER", marker.encode()) if raw else None
            response = await client.request(
                method,
                path,
                content=content,
                headers={HEADER: token, "Content-Type": "application/json"},
            )
            one_sentence(response, 422, sentence)
        listed = await client.post("/threads/search", json={}, headers={HEADER: token})
        assert listed.json() == []
    async with open_memory() as mem:
        assert (await mem.load(token)).is_empty
    logged = logged_since(memory_env, sizes)
    assert marker not in logged
    assert not LEAKS.search(logged), LEAKS.search(logged)


@pytest.mark.parametrize(("run", "words"), MALFORMED_RUNS)
async def test_a_malformed_run_is_a_422_before_it_is_queued(
    memory_env: Cluster, run: dict[str, Any], words: str
) -> None:
    """Before: these passed the check and failed inside the run with a ``TypeError`` or a
    pydantic ``ValidationError`` quoting the value."""
    token = new_token()
    headers = {HEADER: token}
    async with memory_env.http(1) as client:
        thread = (await client.post("/threads", json={}, headers=headers)).json()["thread_id"]
        for path in ("/runs/wait", f"/threads/{thread}/runs/wait", f"/threads/{thread}/runs"):
            response = await client.post(
                path, json={"assistant_id": "chat", **run}, headers=headers
            )
            assert response.status_code == 422, response.text
            assert words in response.json()["message"]  # Aegra's shape for auth's refusals
            assert "input_value" not in response.text and "Traceback" not in response.text
        assert (await client.get(f"/threads/{thread}/runs", headers=headers)).json() == []
    async with open_memory() as mem:
        assert (await mem.load(token)).is_empty


async def test_a_client_ttl_cannot_empty_a_chat_transcript(memory_env: Cluster) -> None:
    """Before: a thread created with ``{"ttl": {"strategy": "keep_latest", …}}`` lost its
    whole transcript (6 messages → 0) at the next ``POST /threads/prune``, and a ttl of
    5e-324 made each prune re-claim it thousands of times. Now such a ttl is refused; a
    ``delete`` ttl of a minute or more stands; a chat thread's prune keeps every turn."""
    token = new_token()
    headers = {HEADER: token}
    refused = [
        ({"strategy": "keep_latest", "ttl": 60}, {}, "keep_latest"),
        ({"strategy": "keep_latest", "ttl": 5e-324}, {}, "keep_latest"),
        ({"strategy": "delete", "ttl": 5e-324}, {}, "at least 1 minute"),
        ({"ttl": 600}, {"graph_id": "chat"}, "chat thread takes no ttl"),
    ]
    async with memory_env.http(0) as client:
        for ttl, metadata, words in refused:
            response = await client.post(
                "/threads", json={"metadata": metadata, "ttl": ttl}, headers=headers
            )
            assert words in one_sentence(response, 422)
        kept = await client.post(
            "/threads",
            json={"metadata": {}, "ttl": {"strategy": "delete", "ttl": 60}},
            headers=headers,
        )
        assert kept.status_code == 200, kept.text
        ui = AgentChatUI(memory_env.replicas[0].base_url, "chat", token)
        thread = await ui.new_thread()
        for n in range(3):
            await ui.send(thread, f"turn {n}: the parcel weighs {n + 2} kg")
        pruned = await client.post("/threads/prune", headers=headers)
        assert pruned.status_code == 200 and pruned.json() == {"deleted": 0, "pruned": 0}
    assert len((await ui.state(thread))["values"]["messages"]) == 6


async def test_bodies_over_the_limit_are_a_413_and_the_replica_serves_on(
    memory_env: Cluster,
) -> None:
    """Before: a 30 MB message and a 200,000-message list were taken and stored as the
    run's input. Now: a 413 (announced or chunked) or a 422 sentence, nothing stored."""
    token = new_token()
    headers = {HEADER: token}
    huge = human("x" * (30 * MB))

    many = {"messages": ["hello"] * 200_000}
    async with memory_env.http(0) as client:
        sentence = one_sentence(
            await client.post(
                "/runs/wait", json={"assistant_id": "chat", "input": huge}, headers=headers
            ),
            413,
        )
        assert "AIMIND_MAX_BODY_MB" in sentence
        response = await client.post(
            "/runs/wait",
            content=chunked_body(30),
            headers={**headers, "Content-Type": "application/json"},
        )
        one_sentence(response, 413)
        response = await client.post(
            "/runs/wait", json={"assistant_id": "chat", "input": many}, headers=headers
        )
        assert response.status_code == 422 and "200,000 messages" in response.text
        served = await client.post(
            "/runs/wait",
            json={"assistant_id": "chat", "input": human("Still there?")},
            headers=headers,
        )
        assert served.status_code == 200 and "__error__" not in served.json()
    async with open_memory() as mem:
        assert [m.text for m in (await mem.load(token)).messages if m.role == "user"] == [
            "Still there?"
        ]


async def test_a_store_search_without_a_prefix_list_is_one_sentence(memory_env: Cluster) -> None:
    """The rule ``langgraph dev`` needs (it crashed on ``tuple(None)``) answers the same
    way here, instead of Aegra's list of pydantic errors echoing the input."""
    async with memory_env.http(1) as client:
        response = await client.post(
            "/store/items/search", json={"namespace_prefix": None}, headers={HEADER: new_token()}
        )
    assert "namespace_prefix" in one_sentence(response, 422)


async def test_agent_chat_ui_lists_each_conversation_by_its_first_message(
    memory_env: Cluster,
) -> None:
    """agent-chat-ui labels a thread with ``values.messages[0]``; Aegra's search returns no
    values, so every entry read as a raw thread id. Now it reads as on ``langgraph dev``."""
    ui = AgentChatUI(memory_env.replicas[1].base_url, "chat", new_token())
    first, second, empty = await ui.new_thread(), await ui.new_thread(), await ui.new_thread()
    await ui.send(first, "Plan a weekend in Kyoto")
    await ui.send(first, "And a day trip to Nara?")
    await ui.send(second, "What is 17 times 23?")
    listed = dict(await ui.thread_list())
    assert listed[first] == "Plan a weekend in Kyoto"
    assert listed[second] == "What is 17 times 23?"
    assert empty not in listed  # no run yet: no graph_id, as on langgraph dev
    other = AgentChatUI(memory_env.replicas[0].base_url, "chat", new_token())
    assert await other.thread_list() == []


async def test_a_browser_on_another_origin_reads_each_refusal(memory_env: Cluster) -> None:
    """Aegra's CORS layer wraps our middleware, so each refusal of ours carries exactly the
    CORS headers of Aegra's own 404, once; preflights never reach us (the same on
    ``langgraph dev``, whose CORS layer is inside ours: ``tests/server/test_cross_origin.py``)."""
    token, other = new_token(), new_token()
    memory_thread = memory_thread_id(hash_token(token, SECRET.encode()))
    limit = RequestLimits.from_env({}).max_body_bytes
    async with memory_env.http(0) as client:
        for origin in (CROSS_ORIGIN, FOREIGN_ORIGIN):
            own = await client.get(SERVER_ERROR_PATH, headers={"Origin": origin, HEADER: token})
            assert own.status_code == 404
            expected = cors_headers(own)
            assert own.headers.get_list("access-control-allow-origin") == ["*"]
            for refusal in edge_refusals(token, other, memory_thread, limit):
                answer = await client.request(
                    refusal.method,
                    refusal.path,
                    headers={**refusal.headers, "Origin": origin},
                    content=refusal.content,
                )
                one_sentence(answer, refusal.status)
                assert cors_headers(answer) == expected, refusal.name
            ours = await client.get("/api/chat/memory", headers={"Origin": origin, HEADER: token})
            assert ours.status_code == 200 and cors_headers(ours) == expected
            usual = await client.options(f"{SERVER_ERROR_PATH}/state", headers=preflight(origin))
            refused = await client.options(
                f"/threads/{memory_thread}/state", headers=preflight(origin)
            )
            assert refused.status_code == usual.status_code == 200
            assert cors_headers(refused) == cors_headers(usual)
