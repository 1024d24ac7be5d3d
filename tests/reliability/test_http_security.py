"""Security at the HTTP level, on real ``langgraph dev`` servers over PostgreSQL.

Session B tries every way in to session A's threads, runs, crons, store and
memory; each attempt is refused and A is unchanged afterwards. No thread route
reaches a memory thread. Error bodies never carry SQL, file paths, stack frames
or secrets; what a client sends never reaches the server log; bodies are bounded.
No raw token at rest. (The same edge on Aegra: ``tests/production/test_edge.py``.)
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from aimind_memory.adapters.server.memory_threads import MEMORY_THREAD_REFUSED
from aimind_memory.adapters.server.request_guard import BAD_TEXT
from aimind_memory.memory import MemoryLimits, open_memory
from aimind_memory.memory.config.limits import TRUNCATION_MARKER
from aimind_memory.memory.session import hash_token, memory_thread_id, new_token
from harness.faults import database_bytes, files_containing, stored_row_count
from tests.reliability.conftest import SECRET, Cluster
from tests.support.edge_requests import (
    MALFORMED_RUNS,
    MB,
    chunked_body,
    memory_thread_requests,
)

pytestmark = pytest.mark.e2e

HEADER = "X-AIMind-Session"
TIMEOUT = httpx.Timeout(120.0)
LEAKS = re.compile(
    r"Traceback|File \"|\.py\b|site-packages|/work/|/tmp/|/root/|postgres(ql)?://|psycopg|"
    r"sqlite3?\b|\bSELECT\b|\bINSERT\b|\bUPDATE\s+\w+\s+SET\b|\bFROM\s+checkpoint|"
    r"pg_advisory|session-secret",
    re.IGNORECASE,
)
TOKENS: list[str] = []
"""Every raw token this module sends, for the at-rest scan at the end."""
MARKERS: list[str] = []
"""Text this module sends in requests that are refused or fail: never in a server log."""
LOG_LEAKS = re.compile(r"UntranslatableCharacter|psycopg\.errors|CONTEXT:\s+JSON|invalid byte seq")
"""What a database error quoting a row looks like in a log."""


def marker(kind: str) -> str:
    value = f"{kind}-{new_token()[:12]}"
    MARKERS.append(value)
    return value


def server_logs(cluster: Cluster) -> str:
    return "".join(server.log_tail(10**9) for server in cluster.servers)


def token() -> str:
    value = new_token()
    TOKENS.append(value)
    return value


def sdk(url: str, session: str | None = None, **headers: str) -> LangGraphClient:
    if session is not None:
        headers[HEADER] = session
    return get_client(url=url, headers=headers, timeout=TIMEOUT)


def human(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def refused(call: Any) -> int:
    """The HTTP status of a refused SDK call; fails if the call went through."""
    try:
        result = await call
    except httpx.HTTPStatusError as exc:
        assert 400 <= exc.response.status_code < 500, exc.response.text
        assert not LEAKS.search(exc.response.text), exc.response.text
        return exc.response.status_code
    raise AssertionError(f"not refused: {result!r}"[:500])


async def refused_stream(stream: Any) -> None:
    """A refused stream: an HTTP 4xx, or an SSE error event before any data."""
    try:
        async for part in stream:
            assert part.event == "error", f"stream went through: {part.event}"
            assert not LEAKS.search(str(part.data)), part.data
            return
    except httpx.HTTPStatusError as exc:
        assert 400 <= exc.response.status_code < 500
        return
    raise AssertionError("stream ended without a refusal")


async def snapshot(url: str, session: str, threads: list[str]) -> dict[str, Any]:
    """Everything of A's that B must not change: threads, state, history, runs, crons, memory."""
    a = sdk(url, session)
    out: dict[str, Any] = {}
    for tid in threads:
        out[tid] = {
            "thread": await a.threads.get(tid),
            "state": await a.threads.get_state(tid),
            "history": len(await a.threads.get_history(tid, limit=100)),
            "runs": sorted((r["run_id"], r["status"]) for r in await a.runs.list(tid)),
        }
    out["crons"] = sorted(c["cron_id"] for c in await a.crons.search())
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as client:
        out["dto"] = (await client.get("/api/chat/thread", headers={HEADER: session})).json()
    async with open_memory() as mem:
        out["memory"] = (await mem.load(session)).model_dump()
    return out


async def test_session_b_cannot_reach_session_a(cluster_env: Cluster) -> None:
    url = cluster_env.url
    token_a, token_b = token(), token()
    a, b = sdk(url, token_a), sdk(url, token_b)
    hash_a = hash_token(token_a, SECRET.encode())

    chat = (await a.threads.create(metadata={"topic": "A private"}))["thread_id"]
    await a.runs.wait(chat, "chat", input=human("A's secret number is 4242."))
    review = (await a.threads.create())["thread_id"]
    await a.runs.wait(review, "tasklist-agent", input=human("Plan A's confidential migration"))
    assert (await a.threads.get_state(review))["next"], "A's review thread waits for A"
    [run] = await a.runs.list(chat)
    cron = await a.crons.create("chat", schedule="0 0 1 1 *", input=human("yearly"))
    await a.store.put_item((hash_a, "notes"), "k", {"v": "A's note"})
    ids = [chat, review]
    before = await snapshot(url, token_a, ids)

    for tid in ids:
        await refused(b.threads.get(tid))
        await refused(b.threads.get_state(tid))
        await refused(b.threads.get_history(tid))
        await refused(b.threads.update(tid, metadata={"owner": hash_a, "topic": "mine"}))
        await refused(b.threads.update_state(tid, {"messages": []}))
        await refused(b.threads.copy(tid))
        await refused(b.threads.delete(tid))
        await refused(b.threads.create(thread_id=tid, if_exists="do_nothing"))
        await refused_stream(b.runs.stream(tid, "chat", input=human("let me in")))
        await refused(b.runs.create(tid, "chat", input=human("let me in")))
        listed: list[Any] = []
        try:
            listed = await b.runs.list(tid)
        except httpx.HTTPStatusError as exc:
            assert exc.response.status_code == 404
        assert not listed
    await refused(b.runs.get(chat, run["run_id"]))
    await refused(b.runs.cancel(chat, run["run_id"]))
    await refused(b.runs.delete(chat, run["run_id"]))
    await refused_stream(b.runs.join_stream(chat, run["run_id"]))
    await refused(b.runs.join(chat, run["run_id"]))
    await refused(b.runs.wait(review, "tasklist-agent", command={"resume": {"action": "approve"}}))
    await refused(b.crons.delete(cron["cron_id"]))
    await refused(b.store.get_item((hash_a, "notes"), "k"))
    await refused(b.store.put_item((hash_a, "notes"), "k", {"v": "B was here"}))
    await refused(b.store.search_items((hash_a,)))
    await refused(b.store.delete_item((hash_a, "notes"), "k"))

    # nothing of A's shows up in B's searches, whatever B filters on
    assert not {t["thread_id"] for t in await b.threads.search(limit=100)} & set(ids)
    assert await b.threads.search(metadata={"owner": hash_a}) == []
    assert await b.threads.search(metadata={"topic": "A private"}) == []
    assert cron["cron_id"] not in {c["cron_id"] for c in await b.crons.search()}
    assert await b.threads.count() == 0

    # memory: A's memory thread id and hash are no key to A's memory
    await refused(b.threads.get(memory_thread_id(hash_a)))
    await refused(b.threads.get_state(memory_thread_id(hash_a)))
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as client:
        as_hash = await client.get("/api/chat/thread", headers={HEADER: hash_a})
        assert as_hash.status_code == 200
        assert as_hash.json()["threadId"] != before["dto"]["threadId"]
        assert as_hash.json()["messages"] == []
        cleared = await client.delete("/api/chat/thread", headers={HEADER: token_b})
        assert cleared.status_code == 200

    # runs of B's that claim A's identity in config or context still write B's memory
    claims = [
        {"config": {"configurable": {"langgraph_auth_user_id": hash_a, "user_id": hash_a}}},
        {"context": {"session_id": token_a}},
        {"context": {"session_id": hash_a}},
    ]
    for i, claim in enumerate(claims):
        await b.runs.wait(None, "chat", input=human(f"B's own question {i}."), **claim)
    async with open_memory() as mem:
        mine = [m.text for m in (await mem.load(token_b)).messages if m.role == "user"]
    assert mine == [f"B's own question {i}." for i in range(len(claims))]

    assert await snapshot(url, token_a, ids) == before
    assert (await a.store.get_item((hash_a, "notes"), "k"))["value"] == {"v": "A's note"}


async def test_no_thread_route_reaches_a_memory_thread(cluster_env: Cluster) -> None:
    """Every thread route, on both servers, aimed at A's memory thread by B and by A: a 403
    sentence each time (``langgraph dev`` alone would 422 the non-UUID ids by luck, and
    take a ``chat:`` id inside a body's checkpoint), and A's memory is as before."""
    owner, other = token(), token()
    await sdk(cluster_env.url, owner).runs.wait(None, "chat", input=human("A's PIN is 5150."))
    memory_thread = memory_thread_id(hash_token(owner, SECRET.encode()))
    async with open_memory() as mem:
        before = (await mem.load(owner)).model_dump(mode="json")
    requests = memory_thread_requests(memory_thread, human("Overwrite it."))
    for server in cluster_env.servers:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=TIMEOUT) as client:
            for session in (other, owner):
                for method, path, body in requests:
                    response = await client.request(
                        method, path, json=body, headers={HEADER: session}
                    )
                    assert response.status_code == 403, (method, path, response.text)
                    assert response.json() == {"detail": MEMORY_THREAD_REFUSED}
    async with open_memory() as mem:
        assert (await mem.load(owner)).model_dump(mode="json") == before


async def test_text_a_database_cannot_store_is_refused_before_any_graph(
    cluster_env: Cluster,
) -> None:
    """Before: a NUL in a tasklist goal failed the run on PostgreSQL with
    ``UntranslatableCharacter`` and the log quoted the goal around it; a NUL in a message
    id or the delivery requirement reached the graph too. Now each is a 422 sentence and
    the text is nowhere in the servers' logs."""
    session = token()
    goal, requirement, content = marker("goal"), marker("requirement"), marker("content")
    runs = [
        (
            "tasklist-agent",
            {"messages": [{"role": "user", "content": f"Plan the {goal} \x00 now"}]},
        ),
        ("chat", {"messages": [{"role": "user", "content": content, "id": "m\x00id"}]}),
        ("delivery-chain", {"requirement": f"Build {requirement} \x00"}),
    ]
    async with httpx.AsyncClient(base_url=cluster_env.url, timeout=TIMEOUT) as client:
        thread = (await client.post("/threads", json={}, headers={HEADER: session})).json()
        for graph, payload in runs:
            for path in ("/runs/wait", f"/threads/{thread['thread_id']}/runs/wait"):
                response = await client.post(
                    path, json={"assistant_id": graph, "input": payload}, headers={HEADER: session}
                )
                assert response.status_code == 422, response.text
                assert response.json() == {"detail": BAD_TEXT}
        lone = b'{"assistant_id": "chat", "input": {"messages": ["lone \\ud800"]}}'
        response = await client.post(
            "/runs/wait",
            content=lone,
            headers={HEADER: session, "Content-Type": "application/json"},
        )
        assert response.json() == {"detail": BAD_TEXT}
        assert (
            await client.get(f"/threads/{thread['thread_id']}/runs", headers={HEADER: session})
        ).json() == []
    async with open_memory() as mem:
        assert (await mem.load(session)).is_empty


@pytest.mark.parametrize(("run", "words"), MALFORMED_RUNS)
async def test_a_malformed_run_is_a_422_before_it_is_queued(
    cluster_env: Cluster, run: dict[str, Any], words: str
) -> None:
    """Before: a ``TypeError`` or a pydantic ``ValidationError`` (quoting the value) inside
    the run, reported as a finished run with ``__error__``."""
    session = token()
    async with httpx.AsyncClient(base_url=cluster_env.url, timeout=TIMEOUT) as client:
        response = await client.post(
            "/runs/wait", json={"assistant_id": "chat", **run}, headers={HEADER: session}
        )
    assert response.status_code == 422, response.text
    assert words in response.json()["detail"] and "input_value" not in response.text


async def test_bodies_over_the_limit_are_refused_and_the_server_serves_on(
    cluster_env: Cluster,
) -> None:
    """A 30 MB message (announced or chunked) is a 413, a 200,000-message list a 422;
    the same connection then serves a turn."""
    session = token()

    huge = {"assistant_id": "chat", "input": human("x" * (30 * MB))}
    many = {"assistant_id": "chat", "input": {"messages": ["hello"] * 200_000}}
    async with httpx.AsyncClient(base_url=cluster_env.url, timeout=TIMEOUT) as client:
        response = await client.post("/runs/wait", json=huge, headers={HEADER: session})
        assert response.status_code == 413 and "AIMIND_MAX_BODY_MB" in response.json()["detail"]
        response = await client.post(
            "/runs/wait",
            content=chunked_body(30),
            headers={HEADER: session, "Content-Type": "application/json"},
        )
        assert response.status_code == 413
        response = await client.post("/runs/wait", json=many, headers={HEADER: session})
        assert response.status_code == 422 and "200,000 messages" in response.json()["detail"]
        served = await client.post(
            "/runs/wait",
            json={"assistant_id": "chat", "input": human("Still there?")},
            headers={HEADER: session},
        )
        assert served.status_code == 200 and "__error__" not in served.json()


async def test_the_filters_langgraph_dev_crashed_on_are_a_422(cluster_env: Cluster) -> None:
    """Before: a 500 (a ``TypeError`` as soon as the caller owns a thread without state, or
    ``tuple(None)``), and the dropped connection failed the client's next request. A values
    filter still works for a caller whose threads all have state."""
    session, settled = token(), token()
    async with httpx.AsyncClient(base_url=cluster_env.url, timeout=TIMEOUT) as client:
        await client.post("/threads", json={}, headers={HEADER: session})  # no state yet
        for path, body in (
            ("/threads/count", {"values": {"a": 1}}),
            ("/threads/search", {"values": {"messages": []}}),
            ("/store/items/search", {"namespace_prefix": None}),
        ):
            response = await client.post(path, json=body, headers={HEADER: session})
            assert response.status_code == 422, (path, response.text)
            assert set(response.json()) == {"detail"}
            again = await client.post("/threads/count", json={}, headers={HEADER: session})
            assert again.status_code == 200 and again.json() == 1
    mine = sdk(cluster_env.url, settled)
    thread = (await mine.threads.create())["thread_id"]
    await mine.runs.wait(thread, "chat", input=human("Hi"))
    source = (await mine.threads.get_state(thread))["values"]["source"]
    found = await mine.threads.search(values={"source": source})
    assert [t["thread_id"] for t in found] == [thread]  # answered, not refused
    assert await mine.threads.count(values={"source": source}) == 1


BAD_TOKENS = {
    "empty": b"",
    "one-char": b"a",
    "ten-thousand": b"t" * 10_000,
    "non-ascii": "séssion-tökén-ñññññ-会话".encode(),
    "dot-dot": b"../../../../etc/passwd",
    "sql": b"x' OR '1'='1'; DROP TABLE checkpoints; --",
    "chat-id": b"chat:" + b"0" * 64,
}


@pytest.mark.parametrize("kind", sorted(BAD_TOKENS))
@pytest.mark.parametrize("via", ["header", "cookie"])
async def test_bad_session_tokens_are_401_and_create_nothing(
    cluster: Cluster, kind: str, via: str
) -> None:
    raw = BAD_TOKENS[kind]
    headers = (
        {b"x-aimind-session": raw} if via == "header" else {b"cookie": b"aimind_session=" + raw}
    )
    before = stored_row_count(cluster.database_url)
    requests = [
        ("GET", "/api/chat/thread", None),
        ("DELETE", "/api/chat/thread", None),
        ("POST", "/threads", {}),
        ("POST", "/threads/search", {}),
        ("POST", "/runs/wait", {"assistant_id": "chat", "input": human("hello")}),
    ]
    async with httpx.AsyncClient(base_url=cluster.url, timeout=TIMEOUT) as client:
        for method, path, body in requests:
            response = await client.request(method, path, json=body, headers=headers)
            if via == "cookie" and (method, path) == ("GET", "/api/chat/thread"):
                # a cookie that does not parse is no cookie: the page gets a fresh session
                assert response.status_code in (200, 401), response.text
                if response.status_code == 200:
                    assert response.json()["messages"] == []
                    assert response.cookies["aimind_session"] != raw.decode(errors="replace")
                continue
            assert response.status_code in (400, 401), (method, path, response.text)
            assert not LEAKS.search(response.text), response.text
            if len(raw) >= 4:
                assert raw.decode(errors="replace") not in response.text
    assert stored_row_count(cluster.database_url) == before


BAD_BODIES = [
    ("POST", "/threads", b"{not json"),
    ("POST", "/threads", b"[1, 2]"),
    ("POST", "/threads/search", b'{"limit": "many"}'),
    ("POST", "/threads/search", b'{"metadata": 5}'),
    ("POST", "/runs/wait", b'{"assistant_id": 5}'),
    ("POST", "/runs/wait", b'{"assistant_id": "no-such-graph", "input": {}}'),
    ("POST", "/runs/stream", b'{"assistant_id": "chat", "stream_mode": 7}'),
    ("POST", "/assistants/search", b"\xff\xfe\x00garbage"),
    ("PATCH", "/threads/not-a-uuid", b'{"metadata": {}}'),
    ("GET", "/threads/not-a-uuid", b""),
    ("GET", "/threads/00000000-0000-0000-0000-000000000000/state", b""),
    ("POST", "/api/chat/thread", b"{bad"),
    ("DELETE", "/api/chat/thread", b"\xff\xfe"),
    ("GET", "/api/chat/thread?session=%00%ff", b"{}"),
    ("GET", "/static/../../../etc/passwd", b""),
    ("GET", "/static/%2e%2e/%2e%2e/pyproject.toml", b""),
]


@pytest.mark.parametrize(("method", "path", "body"), BAD_BODIES)
async def test_malformed_requests_get_a_sentence_not_a_stack(
    cluster: Cluster, method: str, path: str, body: bytes
) -> None:
    session = token()
    async with httpx.AsyncClient(base_url=cluster.url, timeout=TIMEOUT) as client:
        response = await client.request(
            method,
            path,
            content=body,
            headers={HEADER: session, "Content-Type": "application/json"},
        )
    assert 400 <= response.status_code < 500 or (
        path.startswith("/api/chat/thread") and response.status_code == 200
    ), (response.status_code, response.text)
    assert not LEAKS.search(response.text), response.text
    assert SECRET not in response.text and session not in response.text
    assert len(response.text) < 2_000


REFUSED_GRAPH_INPUTS = [
    "just a string",
    {"messages": 5},
    {"messages": [{"role": "user", "content": 5}]},
    {"messages": [{"role": "wizard", "content": "hi"}]},
    {"messages": [{"role": "user", "content": "hi", "tool_calls": "nope"}]},
]
BAD_GRAPH_INPUTS = [
    *REFUSED_GRAPH_INPUTS,
    {"messages": [{"role": "user", "content": "hi"}], "unknown": {"deep": [1, 2]}},
]


async def run_chat(cluster: Cluster, session: str, payload: Any) -> httpx.Response:
    """A stateless ``chat`` run with ``payload`` as its input, waited for."""
    async with httpx.AsyncClient(base_url=cluster.url, timeout=TIMEOUT) as client:
        return await client.post(
            "/runs/wait", json={"assistant_id": "chat", "input": payload}, headers={HEADER: session}
        )


@pytest.mark.parametrize("payload", REFUSED_GRAPH_INPUTS, ids=range(len(REFUSED_GRAPH_INPUTS)))
async def test_wrongly_typed_graph_input_gets_a_422_sentence(
    cluster_env: Cluster, payload: Any
) -> None:
    session = token()
    response = await run_chat(cluster_env, session, payload)
    assert response.status_code == 422, response.text
    assert "run input" in response.text
    assert not LEAKS.search(response.text), response.text


@pytest.mark.parametrize("payload", BAD_GRAPH_INPUTS, ids=range(len(BAD_GRAPH_INPUTS)))
async def test_bad_graph_input_fails_cleanly_and_writes_nothing(
    cluster_env: Cluster, payload: Any
) -> None:
    session = token()
    response = await run_chat(cluster_env, session, payload)
    assert response.status_code < 500, response.text
    assert not LEAKS.search(response.text), response.text
    assert SECRET not in response.text and session not in response.text
    body = response.json()
    if "__error__" in body:
        assert set(body["__error__"]) == {"error", "message"}
    async with open_memory() as mem:
        state = await mem.load(session)
    if "__error__" in body or response.status_code >= 400:
        assert state.is_empty, "a failed run writes nothing to memory"
    else:
        assert [m.text for m in state.messages][:1] == ["hi"]


@pytest.mark.slow
@pytest.mark.parametrize("megabytes", [1, 10])
async def test_huge_user_message_over_http_is_capped_in_memory(
    cluster_env: Cluster, megabytes: int
) -> None:
    session = token()
    text = "All work and no play makes Jack a dull boy. " * (megabytes * 1024 * 1024 // 44)
    async with httpx.AsyncClient(base_url=cluster_env.url, timeout=TIMEOUT) as client:
        response = await client.post(
            "/runs/wait",
            json={"assistant_id": "chat", "input": human(text)},
            headers={HEADER: session},
        )
        assert response.status_code < 500, response.text[:500]
        hydrated = (await client.get("/api/chat/thread", headers={HEADER: session})).json()
    if response.status_code >= 400:  # refused with a sentence, nothing stored
        assert len(response.text) < 2_000 and not LEAKS.search(response.text)
        assert hydrated["messages"] == []
        return
    cap = MemoryLimits().message_char_cap
    assert [m["role"] for m in hydrated["messages"]] == ["user", "assistant"]
    assert all(len(m["text"]) <= cap for m in hydrated["messages"])
    assert hydrated["messages"][0]["text"].endswith(TRUNCATION_MARKER)


async def test_no_raw_token_at_rest_on_either_server(cluster_env: Cluster) -> None:
    """Runs last in this module: it scans everything the tests above sent, with the
    servers stopped so their ``.langgraph_api/`` folders are flushed to disk; and the
    servers' logs for the text of every refused request."""
    logs = server_logs(cluster_env)
    assert len(MARKERS) >= 3
    assert not [m for m in MARKERS if m in logs]
    assert not LOG_LEAKS.search(logs), LOG_LEAKS.search(logs)
    decoy = f"decoy-{new_token()}"
    session = token()
    client = sdk(cluster_env.servers[1].base_url, session)
    thread = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread, "chat", input=human(decoy))
    for server in cluster_env.servers:
        server.stop()  # a later test would start them again (``cluster_env``)
    stored = database_bytes(cluster_env.database_url)
    assert decoy.encode() in stored, "the database scan sees what users send"
    saved = files_containing(cluster_env.root, decoy.encode())
    assert any(".langgraph_api" in path for path in saved), saved
    assert len(TOKENS) >= 10
    for raw in TOKENS:
        assert raw.encode() not in stored
        assert files_containing(cluster_env.root, raw.encode()) == [], "server folders"
