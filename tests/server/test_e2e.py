"""End-to-end through a real ``langgraph dev``: the SDK, custom auth, the hydration route.

Runs once on SQLite and once on PostgreSQL (module-scoped ``deployment``). Each
test uses its own session tokens, so tests do not see each other's memory.
The restart and raw-token tests come last: they look back on everything above.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import psycopg
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from aimind_memory.memory.config.limits import MESSAGE_CHAR_CAP, SUMMARY_PREVIEW_CHARS
from aimind_memory.memory.session import new_token
from aimind_memory.memory.views.guard import assert_no_forbidden_fields
from tests.support.deployment import SESSION_COOKIE, SESSION_HEADER, Deployment

pytestmark = pytest.mark.e2e

DTO_KEYS = {"threadId", "messages", "summaryPreview", "pinnedDecisions", "restored"}
MESSAGE_KEYS = {"id", "role", "text", "createdAt"}
MEMORY_THREAD_RE = re.compile(r"chat:[0-9a-f]{64}")
GRAPHS = ("chat", "tasklist-agent", "delivery-chain")
EARLY_DECISIONS = (
    "We decided to use PostgreSQL for production.",
    "We will never store raw session tokens.",
    # the design article's own (§3), in its users' phrasing: issue 23 found it unpinned
    "我们确认：这篇博客不按版本分段写，而是融合成一篇短期记忆设计文章。",
)
TIMEOUT = httpx.Timeout(120.0)


def sdk(deployment: Deployment, token: str | None = None, **headers: str) -> LangGraphClient:
    if token is not None:
        headers[SESSION_HEADER] = token
    return get_client(url=deployment.url, headers=headers, timeout=TIMEOUT)


def http(deployment: Deployment) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=deployment.url, timeout=TIMEOUT)


def human(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def hydrate(deployment: Deployment, token: str) -> dict[str, Any]:
    """``GET /api/chat/thread`` the way the browser calls it: with the session cookie."""
    async with http(deployment) as client:
        response = await client.get(
            "/api/chat/thread", headers={"Cookie": f"{SESSION_COOKIE}={token}"}
        )
    assert response.status_code == 200, response.text
    return response.json()


def texts(dto: dict[str, Any]) -> list[str]:
    return [m["text"] for m in dto["messages"]]


async def outcome(call: Any) -> tuple[int, Any]:
    """``(HTTP status, None)`` for a refused SDK call, ``(0, result)`` otherwise."""
    try:
        return 0, await call
    except httpx.HTTPStatusError as exc:
        return exc.response.status_code, None


async def status_of(call: Any) -> int:
    """The HTTP status a refused SDK call ends with (0 if it was not refused)."""
    return (await outcome(call))[0]


async def drain_status(stream: Any) -> int:
    """The status a refused stream ends with: an HTTP error, or an SSE ``error`` event
    (a joined stream has already sent 200 when the server refuses). 0 if data arrived."""
    try:
        async for part in stream:
            if part.event == "error":
                code = re.match(r"(\d{3}):", str(part.data.get("message", "")))
                return int(code.group(1)) if code else 500
            return 0
    except httpx.HTTPStatusError as exc:
        return exc.response.status_code
    return 0


async def start_review(client: LangGraphClient, goal: str) -> str:
    """A tasklist-agent run that stops at its human review; returns the thread id."""
    thread = await client.threads.create()
    await client.runs.wait(thread["thread_id"], "tasklist-agent", input=human(goal))
    return thread["thread_id"]


# --- chat memory through the server -----------------------------------------------------------


async def test_twelve_turns_threaded_and_stateless_hydrate_bounded(deployment: Deployment) -> None:
    token = deployment.token()
    client = sdk(deployment, token)
    thread = await client.threads.create()
    turns = [*EARLY_DECISIONS] + [
        f"Turn {n}: tell me something about item {n}." for n in range(len(EARLY_DECISIONS) + 1, 13)
    ]
    for n, text in enumerate(turns, start=1):
        thread_id = thread["thread_id"] if n % 2 else None  # odd: threaded, even: stateless
        result = await client.runs.wait(thread_id, "chat", input=human(text))
        assert result["messages"][-1]["type"] == "ai"

    dto = await hydrate(deployment, token)
    assert set(dto) == DTO_KEYS
    assert MEMORY_THREAD_RE.fullmatch(dto["threadId"])
    assert dto["restored"] is True
    assert 0 < len(dto["messages"]) <= 8
    assert all(set(m) == MESSAGE_KEYS for m in dto["messages"])
    user_texts = [m["text"] for m in dto["messages"] if m["role"] == "user"]
    assert user_texts[-2:] == [turns[10], turns[11]]  # a threaded and a stateless run
    assert 0 < len(dto["summaryPreview"]) <= SUMMARY_PREVIEW_CHARS
    for decision in EARLY_DECISIONS:
        assert any(decision.rstrip(".") in pin for pin in dto["pinnedDecisions"]), dto
    assert_no_forbidden_fields(dto)


async def test_server_and_memory_threads_share_one_database(deployment: Deployment) -> None:
    token = deployment.token()
    client = sdk(deployment, token)
    thread = await client.threads.create()
    await client.runs.wait(thread["thread_id"], "chat", input=human("Where is all this stored?"))
    memory_thread = (await hydrate(deployment, token))["threadId"]

    query = "SELECT DISTINCT thread_id FROM checkpoints"
    if deployment.sqlite_file is not None:
        import sqlite3

        with sqlite3.connect(deployment.sqlite_file) as conn:
            stored = {row[0] for row in conn.execute(query)}
    else:
        with psycopg.connect(deployment.database_url) as conn:
            stored = {row[0] for row in conn.execute(query)}
    assert thread["thread_id"] in stored
    assert memory_thread in stored


# --- the tasklist agent's human review ----------------------------------------------------------


async def test_tasklist_review_interrupts_then_writes_goal_and_summary_once(
    deployment: Deployment,
) -> None:
    token = deployment.token()
    client = sdk(deployment, token)
    goal = "Plan the launch of the team wiki with a migration and a training session"
    thread_id = await start_review(client, goal)

    thread = await client.threads.get(thread_id)
    assert thread["status"] == "interrupted"
    state = await client.threads.get_state(thread_id)
    assert state["next"] == ["review"]
    kinds = [i["value"]["kind"] for task in state["tasks"] for i in task["interrupts"]]
    assert kinds == ["tasklist-review"]
    assert (await hydrate(deployment, token))["restored"] is False  # nothing while paused

    result = await client.runs.wait(
        thread_id, "tasklist-agent", command={"resume": {"action": "approve"}}
    )
    assert result["status"] == "final"

    dto = await hydrate(deployment, token)
    assert [(m["role"], m["text"]) for m in dto["messages"]] == [
        ("user", goal),
        ("assistant", result["summary"]),
    ]
    assert "|" not in result["summary"] and "T1" not in result["summary"]  # no artifact markdown


# --- the delivery chain's progress stream -------------------------------------------------------


async def test_delivery_chain_streams_progress_and_stores_the_report(
    deployment: Deployment,
) -> None:
    token = deployment.token()
    client = sdk(deployment, token)
    requirement = "Add a JSON export of a session's chat memory"
    progress: list[dict[str, Any]] = []
    values: list[dict[str, Any]] = []
    async for part in client.runs.stream(
        None, "delivery-chain", input={"requirement": requirement}, stream_mode=["custom", "values"]
    ):
        if part.event == "custom" and part.data.get("type") == "workflow-progress":
            progress.append(part.data)
        elif part.event == "values":
            values.append(part.data)

    stages = {p["stage"] for p in progress if p["status"] == "succeeded"}
    assert {"load", "plan", "task", "review", "risk", "boundary", "synthesize"} <= stages
    assert progress[0]["stage"] == "load" and progress[0]["status"] == "started"
    final = values[-1]
    assert final["status"] == "completed"
    report = final["report"]

    dto = await hydrate(deployment, token)
    assert [(m["role"], m["text"]) for m in dto["messages"]] == [
        ("user", requirement),
        ("assistant", report.strip()[:MESSAGE_CHAR_CAP]),
    ]
    assert len(dto["messages"][1]["text"]) <= MESSAGE_CHAR_CAP
    assert "workflow-progress" not in dto["messages"][1]["text"]


# --- isolation between sessions ------------------------------------------------------------------


async def _snapshot(
    client: LangGraphClient, deployment: Deployment, token: str, ids: list[str]
) -> Any:
    threads = [await client.threads.get(t) for t in ids]
    states = [(await client.threads.get_state(t))["values"] for t in ids]
    found = sorted(t["thread_id"] for t in await client.threads.search(limit=100))
    return (
        [(t["thread_id"], t["status"], t["metadata"]) for t in threads],
        states,
        found,
        await hydrate(deployment, token),
    )


async def test_session_b_cannot_touch_session_a(deployment: Deployment) -> None:
    token_a, token_b = deployment.token(), deployment.token()
    a, b = sdk(deployment, token_a), sdk(deployment, token_b)
    chat_thread = (await a.threads.create())["thread_id"]
    await a.runs.wait(chat_thread, "chat", input=human("A's private note: the code is 4242."))
    review_thread = await start_review(a, "Plan A's confidential migration")
    ids = [chat_thread, review_thread]
    before = await _snapshot(a, deployment, token_a, ids)

    for tid in ids:
        assert await status_of(b.threads.get(tid)) == 404
        assert await status_of(b.threads.get_state(tid)) == 404
        assert await status_of(b.threads.get_history(tid)) == 404
        assert await status_of(b.threads.update(tid, metadata={"owner": "b"})) == 404
        assert await status_of(b.threads.update_state(tid, {"messages": []})) == 404
        assert await status_of(b.threads.delete(tid)) == 404
        assert await drain_status(b.runs.stream(tid, "chat", input=human("let me in"))) == 404
        assert await status_of(b.threads.create(thread_id=tid, if_exists="do_nothing")) == 409
        listed = await outcome(b.runs.list(tid))
        assert listed == (404, None) or listed == (0, []), listed
    [run] = await a.runs.list(chat_thread)
    assert await status_of(b.runs.get(chat_thread, run["run_id"])) == 404
    assert await drain_status(b.runs.join_stream(chat_thread, run["run_id"])) == 404
    resumed = b.runs.wait(
        review_thread, "tasklist-agent", command={"resume": {"action": "approve"}}
    )
    assert await status_of(resumed) == 404
    assert not {t["thread_id"] for t in await b.threads.search(limit=100)} & set(ids)

    await b.runs.wait(None, "chat", input=human("B's own question."))
    # Posing as A in the run's context or config never writes to A's memory.
    a_hash = before[3]["threadId"].removeprefix("chat:")
    await b.runs.wait(
        None, "chat", input=human("B posing via context."), context={"session_id": token_a}
    )
    spoof = b.runs.wait(
        None,
        "chat",
        input=human("B posing via config."),
        config={"configurable": {"langgraph_auth_user_id": a_hash}},
    )
    assert await status_of(spoof) in (0, 400, 403, 422)
    dto_b = await hydrate(deployment, token_b)
    assert texts(dto_b)[0] == "B's own question."
    assert "B posing via context." in texts(dto_b)
    assert not any("4242" in t or "confidential" in t for t in texts(dto_b))
    assert dto_b["threadId"] != before[3]["threadId"]

    assert await _snapshot(a, deployment, token_a, ids) == before


async def test_crons_assistants_and_store_are_owner_scoped(deployment: Deployment) -> None:
    a, b = sdk(deployment, deployment.token()), sdk(deployment, deployment.token())
    thread_id = (await a.threads.create())["thread_id"]
    cron = await a.crons.create_for_thread(
        thread_id, "chat", schedule="0 0 1 1 *", input=human("yearly reminder")
    )
    assert [c["cron_id"] for c in await a.crons.search()] == [cron["cron_id"]]
    assert await b.crons.search() == []
    assert (
        await status_of(b.crons.create_for_thread(thread_id, "chat", schedule="0 0 1 1 *")) == 404
    )
    assert await status_of(b.crons.delete(cron["cron_id"])) == 404
    assert [c["cron_id"] for c in await a.crons.search()] == [cron["cron_id"]]
    await a.crons.delete(cron["cron_id"])

    mine = await a.assistants.create("chat", name="a-private", metadata={"created_by": "system"})
    assert mine["metadata"].get("created_by") != "system"  # nobody can pose as a graph's own
    assert mine["assistant_id"] in {x["assistant_id"] for x in await a.assistants.search()}
    assert mine["assistant_id"] not in {x["assistant_id"] for x in await b.assistants.search()}
    assert await status_of(b.assistants.get(mine["assistant_id"])) == 404
    assert await status_of(b.runs.wait(None, mine["assistant_id"], input=human("hi"))) == 404
    assert await status_of(b.assistants.delete(mine["assistant_id"])) == 404

    assert await status_of(b.store.put_item(("shared",), "k", {"v": 1})) == 403
    assert await status_of(b.store.search_items(("shared",))) == 403


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {SESSION_HEADER: "short"},
        {SESSION_HEADER: "has spaces and ! marks in it"},
        {"Cookie": f"{SESSION_COOKIE}=bad;token"},
        {"Cookie": f"{SESSION_COOKIE}={'x' * 200}"},
    ],
    ids=["none", "short", "bad-chars", "bad-cookie", "too-long"],
)
async def test_missing_or_malformed_session_is_401_and_changes_nothing(
    deployment: Deployment, headers: dict[str, str]
) -> None:
    token = deployment.token()
    owner = sdk(deployment, token)
    thread_id = (await owner.threads.create())["thread_id"]
    await owner.runs.wait(thread_id, "chat", input=human("Owner's turn."))
    before = await _snapshot(owner, deployment, token, [thread_id])

    stranger = sdk(deployment, **headers)
    calls = [
        stranger.threads.search(),
        stranger.threads.create(),
        stranger.threads.get(thread_id),
        stranger.threads.delete(thread_id),
        stranger.runs.wait(thread_id, "chat", input=human("hi")),
        stranger.runs.wait(None, "chat", input=human("hi")),
        stranger.assistants.search(),
    ]
    for call in calls:
        assert await status_of(call) == 401
    async with http(deployment) as client:
        response = await client.post("/threads/search", json={}, headers=headers)
    assert response.status_code == 401
    assert "session" in response.json()["detail"].lower()
    assert "Traceback" not in response.text

    assert await _snapshot(owner, deployment, token, [thread_id]) == before


# --- the hydration route and the page ----------------------------------------------------------


async def test_first_visit_mints_an_httponly_session_cookie(deployment: Deployment) -> None:
    async with http(deployment) as client:
        response = await client.get("/api/chat/thread")
        assert response.status_code == 200
        cookie = response.headers["set-cookie"]
        token = response.cookies[SESSION_COOKIE]
        deployment.tokens.append(token)
        dto = response.json()
    async with http(deployment) as client:  # a second browser, behind an https proxy
        secure = await client.get("/api/chat/thread", headers={"X-Forwarded-Proto": "https"})

    assert dto == {
        "threadId": dto["threadId"],
        "messages": [],
        "pinnedDecisions": [],
        "restored": False,
    }
    assert MEMORY_THREAD_RE.fullmatch(dto["threadId"])
    assert token not in dto["threadId"]
    assert re.match(rf"{SESSION_COOKIE}=[A-Za-z0-9_-]{{16,128}};", cookie)
    for attribute in ("HttpOnly", "Path=/", "SameSite=lax"):
        assert attribute.lower() in cookie.lower()
    assert "secure" not in cookie.lower()
    assert "secure" in secure.headers["set-cookie"].lower()
    deployment.tokens.append(secure.cookies[SESSION_COOKIE])

    # The minted cookie is a working session for the LangGraph API too (from the page's
    # own origin, as the page sends it: contract §8, no cross-site writes).
    browser = sdk(deployment, Cookie=f"{SESSION_COOKIE}={token}", Origin=deployment.url)
    await browser.runs.wait(None, "chat", input=human("First message from the browser."))
    assert texts(await hydrate(deployment, token))[0] == "First message from the browser."


async def test_delete_clears_only_the_callers_memory(deployment: Deployment) -> None:
    mine, other = deployment.token(), deployment.token()
    for token in (mine, other):
        await sdk(deployment, token).runs.wait(None, "chat", input=human("Remember this."))
    async with http(deployment) as client:
        refused = await client.delete("/api/chat/thread")
        malformed = await client.request(
            "DELETE", "/api/chat/thread", headers={SESSION_HEADER: "nope"}
        )
        cleared = await client.delete("/api/chat/thread", headers={SESSION_HEADER: mine})
    assert refused.status_code == 401 and "session" in refused.json()["detail"].lower()
    assert malformed.status_code == 401
    assert cleared.status_code == 200 and cleared.json()["restored"] is False
    assert (await hydrate(deployment, mine))["messages"] == []
    assert texts(await hydrate(deployment, other)) != []


async def test_a_header_and_a_cookie_that_disagree_are_refused(deployment: Deployment) -> None:
    """One request, one identity (contract §8): two sources with different tokens are a 401
    before any handler runs, in LangGraph's routes and ours alike; the same token in both
    is one session."""
    header_token, cookie_token = deployment.token(), deployment.token()
    both = {SESSION_HEADER: header_token, "Cookie": f"{SESSION_COOKIE}={cookie_token}"}
    async with http(deployment) as client:
        ours = await client.get("/api/chat/thread", headers=both)
        theirs = await client.post(
            "/runs/wait",
            json={"assistant_id": "chat", "input": human("Sent with both.")},
            headers=both,
        )
        same = {SESSION_HEADER: header_token, "Cookie": f"{SESSION_COOKIE}={header_token}"}
        agreed = await client.get("/api/chat/thread", headers=same)
    for refused in (ours, theirs):
        assert refused.status_code == 401, refused.text
        assert "two different session tokens" in refused.json()["detail"]
        assert "set-cookie" not in refused.headers
    assert agreed.status_code == 200
    for token in (header_token, cookie_token):
        assert (await hydrate(deployment, token))["restored"] is False  # no run ran


async def test_a_repeated_session_header_is_refused(deployment: Deployment) -> None:
    """Two ``X-AIMind-Session`` headers: LangGraph's auth would take the last, our routes the
    first; the request is refused before either."""
    first, second = deployment.token(), deployment.token()
    repeated = [(SESSION_HEADER, first), (SESSION_HEADER, second)]
    async with http(deployment) as client:
        responses = [
            await client.post("/threads/search", json={}, headers=repeated),
            await client.post(
                "/runs/wait",
                json={"assistant_id": "chat", "input": human("Who am I?")},
                headers=repeated,
            ),
            await client.get("/api/chat/thread", headers=repeated),
            await client.delete("/api/chat/thread", headers=repeated),
        ]
        twice = [(SESSION_HEADER, first), (SESSION_HEADER, first)]
        same = await client.post("/threads/search", json={}, headers=twice)
    for response in responses:
        assert response.status_code == 401, response.text
        assert "twice" in response.json()["detail"]
    assert same.status_code == 200
    for token in (first, second):
        assert (await hydrate(deployment, token))["restored"] is False


async def test_a_cron_cannot_be_handed_to_another_session(deployment: Deployment) -> None:
    """An update never changes ``owner``: a cron patched with another session's identity stays
    listed under (and running as) its creator."""
    owner, other = deployment.token(), deployment.token()
    a = sdk(deployment, owner)
    thread_id = (await a.threads.create())["thread_id"]
    cron = await a.crons.create_for_thread(
        thread_id, "chat", schedule="0 0 1 1 *", input=human("x")
    )
    other_hash = (await sdk(deployment, other).threads.create())["metadata"]["owner"]
    async with http(deployment) as client:
        patched = await client.patch(
            f"/runs/crons/{cron['cron_id']}",
            json={"metadata": {"owner": other_hash, "note": "mine now"}},
            headers={SESSION_HEADER: owner},
        )
    assert patched.status_code == 200, patched.text
    assert await sdk(deployment, other).crons.search() == []
    [kept] = await a.crons.search()
    assert kept["cron_id"] == cron["cron_id"] and kept["metadata"]["note"] == "mine now"
    assert kept["metadata"]["owner"] != other_hash
    await a.crons.delete(cron["cron_id"])


async def test_malformed_session_on_hydration(deployment: Deployment) -> None:
    async with http(deployment) as client:
        header = await client.get("/api/chat/thread", headers={SESSION_HEADER: "not*a*token"})
    async with http(deployment) as client:
        cookie = await client.get(
            "/api/chat/thread", headers={"Cookie": f"{SESSION_COOKIE}=not*a*token"}
        )
    # An API client sent a bad header: a clear 401 and nothing else.
    assert header.status_code == 401
    assert set(header.json()) == {"detail"} and header.json()["detail"].endswith(".")
    assert "set-cookie" not in header.headers
    # A browser's cookie went bad: page script cannot clear it, so it gets a fresh session.
    assert cookie.status_code == 200 and cookie.json()["restored"] is False
    fresh = cookie.cookies[SESSION_COOKIE]
    deployment.tokens.append(fresh)
    assert fresh != "not*a*token"
    assert (await hydrate(deployment, fresh))["threadId"] == cookie.json()["threadId"]


async def test_chat_page_is_served_without_a_session(deployment: Deployment) -> None:
    async with http(deployment) as client:
        page = await client.get("/")
        assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text)
        fetched = [await client.get(path) for path in assets]
        missing = await client.get("/static/no-such-file.js")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "<html" in page.text.lower()
    assert assets and all(r.status_code == 200 and r.content for r in fetched)
    assert missing.status_code == 404


# --- Studio readiness ---------------------------------------------------------------------------


@pytest.mark.parametrize("graph_id", GRAPHS)
async def test_studio_sees_schemas_and_a_drawable_graph(
    deployment: Deployment, graph_id: str
) -> None:
    client = sdk(deployment, deployment.token())
    [assistant] = await client.assistants.search(graph_id=graph_id)
    schemas = await client.assistants.get_schemas(assistant["assistant_id"])
    for key in ("input_schema", "output_schema", "context_schema"):
        assert schemas[key] and schemas[key].get("properties"), key
    assert "messages" in schemas["input_schema"]["properties"]
    assert "session_id" in schemas["context_schema"]["properties"]
    drawn = await client.assistants.get_graph(assistant["assistant_id"])
    node_ids = {n["id"] for n in drawn["nodes"]}
    assert {"__start__", "__end__", "final_turn"} <= node_ids
    assert drawn["edges"]


async def test_studio_requests_work_but_see_no_session_threads(deployment: Deployment) -> None:
    owner = sdk(deployment, deployment.token())
    private = (await owner.threads.create())["thread_id"]
    studio = sdk(deployment, **{"x-auth-scheme": "langsmith"})
    assert {a["graph_id"] for a in await studio.assistants.search()} >= set(GRAPHS)
    thread = await studio.threads.create()
    result = await studio.runs.wait(thread["thread_id"], "chat", input=human("hello from Studio"))
    assert result["messages"][-1]["type"] == "ai"
    seen = {t["thread_id"] for t in await studio.threads.search(limit=100)}
    assert thread["thread_id"] in seen and private not in seen
    assert await status_of(studio.threads.get(private)) == 404


# --- restart and storage (keep these last) ------------------------------------------------------


async def test_restart_on_the_same_database_keeps_memory_and_threads(
    deployment: Deployment,
) -> None:
    token = deployment.token()
    client = sdk(deployment, token)
    thread_id = (await client.threads.create())["thread_id"]
    for n in range(1, 6):
        await client.runs.wait(
            thread_id, "chat", input=human(f"Before restart, message {n}. We decided to keep it.")
        )
    before = await hydrate(deployment, token)
    values_before = (await client.threads.get_state(thread_id))["values"]

    deployment.restart()

    assert await hydrate(deployment, token) == before
    client = sdk(deployment, token)
    assert (await client.threads.get_state(thread_id))["values"] == values_before
    await client.runs.wait(thread_id, "chat", input=human("After restart."))
    assert texts(await hydrate(deployment, token))[-2] == "After restart."


def _stored_bytes(deployment: Deployment) -> list[tuple[str, bytes]]:
    """Every stored byte: server files and log, data folder, SQLite files or every PG row."""
    blobs = [
        (str(p), p.read_bytes())
        for root in (deployment.server.workdir, deployment.data_dir)
        for p in root.rglob("*")
        if p.is_file()
    ]
    if deployment.sqlite_file is not None:
        db = deployment.sqlite_file
        blobs += [(str(p), p.read_bytes()) for p in db.parent.iterdir() if p.is_file()]
        return blobs
    with psycopg.connect(deployment.database_url) as conn:
        tables = [
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        ]
        for table in tables:
            for (row,) in conn.execute(f'SELECT t::text FROM "{table}" t'):
                blobs.append((table, row.encode()))
    return blobs


async def test_no_raw_session_token_is_stored(deployment: Deployment) -> None:
    # Control: text a user sends does land in these bytes, so the scan below can see it.
    decoy = f"decoy-{new_token()}"
    client = sdk(deployment, deployment.token())
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "chat", input=human(decoy))
    blobs = _stored_bytes(deployment)
    assert any(decoy.encode() in data or decoy.encode().hex().encode() in data for _, data in blobs)

    assert len(deployment.tokens) >= 10
    for token in deployment.tokens:
        needles = (token.encode(), token.encode().hex().encode())
        for where, data in blobs:
            assert not any(n in data for n in needles), f"raw session token found in {where}"


# --- one error shape, and /docs -------------------------------------------------------------


async def test_every_error_body_is_one_detail_sentence(deployment: Deployment) -> None:
    """Our routes answer errors the way LangGraph's do: ``{"detail": "<sentence>"}``."""
    token = deployment.token()
    async with http(deployment) as client:
        errors = {
            "langgraph, no session": await client.post("/threads/search", json={}),
            "langgraph, unknown thread": await client.get(
                f"/threads/{'0' * 8}-0000-0000-0000-{'0' * 12}", headers={SESSION_HEADER: token}
            ),
            "langgraph, bad run input": await client.post(
                "/runs/wait",
                json={"assistant_id": "chat", "input": {"messages": [{"role": "user"}]}},
                headers={SESSION_HEADER: token},
            ),
            "ours, no session": await client.delete("/api/chat/thread"),
            "ours, bad session": await client.get(
                "/api/chat/thread", headers={SESSION_HEADER: "not*a*token"}
            ),
            "ours, no such file": await client.get("/static/no-such-file.js"),
        }
    for name, response in errors.items():
        assert response.status_code >= 400, name
        body = response.json()
        assert set(body) == {"detail"}, (name, body)
        assert isinstance(body["detail"], str) and body["detail"].strip(), (name, body)


async def test_openapi_lets_docs_send_the_session_header(deployment: Deployment) -> None:
    async with http(deployment) as client:
        spec = (await client.get("/openapi.json")).json()
        docs = await client.get("/docs")
    schemes = spec["components"]["securitySchemes"]
    (name,) = [n for n, s in schemes.items() if s.get("name") == "X-AIMind-Session"]
    assert schemes[name]["type"] == "apiKey" and schemes[name]["in"] == "header"
    assert {name: []} in spec["security"]
    assert docs.status_code == 200
