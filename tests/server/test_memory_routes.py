"""The memory routes of contract §9a on a real ``langgraph dev``, once on SQLite, once on
PostgreSQL: pin, edit, unpin, replace the summary, export and forget — through the
LangGraph SDK's HTTP client (the session as ``api_key``, i.e. ``X-Api-Key``) and raw
httpx — their one-sentence refusals, their isolation between sessions, their OpenAPI
entries, and forgetting a session everywhere, measured by scanning the database and
the dev server's own files for the session's marker.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import NotFoundError

from aimind_memory.memory.config.limits import PIN_CHARS, PINNED_MAX, SUMMARY_CHARS
from aimind_memory.memory.views.guard import assert_no_forbidden_fields
from tests.support.deployment import SESSION_COOKIE, SESSION_HEADER, Deployment
from tests.support.forget_scenario import fill, human, new_marker, owned
from tests.support.residue import folder_bytes, holds, pg_dump_bytes, sqlite_bytes

pytestmark = pytest.mark.e2e

TIMEOUT = httpx.Timeout(120.0)
PIN_KEYS = {"id", "text", "pinnedAt", "origin", "sources", "why", "editedAt"}
SOURCE_KEYS = {"messageId", "role", "excerpt", "createdAt"}
ROUTES = {
    "/api/chat/memory": {"get"},
    "/api/chat/memory/pins": {"post"},
    "/api/chat/memory/pins/{pin_id}": {"patch", "delete"},
    "/api/chat/memory/summary": {"put"},
    "/api/chat/memory/export": {"get"},
    "/api/chat/session": {"delete"},
}
DEV_FLUSH_WAIT_S = 30.0
"""``langgraph dev`` writes its in-memory runtime to ``.langgraph_api`` every 10 s."""


def sdk(deployment: Deployment, token: str) -> LangGraphClient:
    return get_client(url=deployment.url, api_key=token, timeout=TIMEOUT)


def http(deployment: Deployment) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=deployment.url, timeout=TIMEOUT)


def one_sentence(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert set(body) == {"detail"}, body
    detail = body["detail"]
    assert isinstance(detail, str) and detail[0].isupper() and detail.endswith("."), detail
    assert "Traceback" not in detail and "pydantic" not in detail.lower()
    return detail


async def panel(client: LangGraphClient) -> dict[str, Any]:
    shown = await client.http.get("/api/chat/memory")
    assert_no_forbidden_fields(shown)
    return shown


# --- pin, edit, unpin, summary, export ----------------------------------------------------------


async def test_a_session_corrects_its_memory_through_the_sdk(deployment: Deployment) -> None:
    client = sdk(deployment, deployment.token())
    await client.runs.wait(
        None, "chat", input=human("The venue is the old library on Elm Street.", "m-venue")
    )
    pinned = await client.http.post(
        "/api/chat/memory/pins",
        json={"text": "The venue is the old library on Elm Street.", "messageId": "m-venue"},
    )
    assert set(pinned) == PIN_KEYS and pinned["origin"] == "user"
    assert pinned["why"] == "pinned by you" and pinned["editedAt"] is None
    (source,) = pinned["sources"]
    assert set(source) == SOURCE_KEYS
    assert source["messageId"] == "m-venue" and source["role"] == "user"
    assert "old library" in source["excerpt"] and source["createdAt"].startswith("20")

    shown = await panel(client)
    assert shown["pins"] == [pinned]
    assert shown["pinnedDecisions"] == [pinned["text"]]  # the texts stay, for older clients

    edited = await client.http.patch(
        f"/api/chat/memory/pins/{pinned['id']}", json={"text": "The venue is the town hall."}
    )
    assert edited["id"] == pinned["id"] and edited["sources"] == pinned["sources"]
    assert edited["text"] == "The venue is the town hall." and edited["origin"] == "user"
    assert edited["why"] == "edited by you" and edited["editedAt"].startswith("20")

    summary = await client.http.put("/api/chat/memory/summary", json={"text": "A party plan."})
    assert summary["summary"] == "A party plan." and summary["pins"] == [edited]

    exported = await client.http.get("/api/chat/memory/export")
    assert_no_forbidden_fields(exported)
    assert exported["summary"] == "A party plan." and exported["pins"] == [edited]
    assert exported["replaced"] == []
    assert exported["messages"][0]["id"] == "m-venue"

    removed = await client.http.delete(f"/api/chat/memory/pins/{pinned['id']}")
    assert removed is None  # the SDK's delete returns nothing; the raw reply has the pin
    assert (await panel(client))["pins"] == []
    with pytest.raises(NotFoundError):
        await client.http.delete(f"/api/chat/memory/pins/{pinned['id']}")

    # The next turn's memory follows the edits: the summary the user wrote is its base.
    await client.runs.wait(None, "chat", input=human("What is the plan?"))
    after = await panel(client)
    assert after["summary"] == "A party plan." and after["pins"] == []


async def test_remember_on_a_message_older_than_the_window_names_that_message(
    deployment: Deployment,
) -> None:
    """The page shows the whole conversation; memory keeps 4 turns. "Remember" on the first
    message, 6 turns back, sends what the page knows of it, and the pin names it; a message
    still in the window is named from memory's own copy. Malformed descriptions are 422s."""
    client = sdk(deployment, deployment.token())
    thread = await client.threads.create()
    first = "My cousin Ada plays the cello on Sunday mornings."
    await client.runs.wait(thread["thread_id"], "chat", input=human(first, "m-first"))
    for n in range(5):
        await client.runs.wait(thread["thread_id"], "chat", input=human(f"Question {n}?", f"q{n}"))
    state = await client.threads.get_state(thread["thread_id"])
    shown = {m["id"]: m for m in state["values"]["messages"]}
    assert "m-first" in shown  # the page shows it (the chat thread's transcript) …
    window = (await client.http.get("/api/chat/thread"))["messages"]
    assert "m-first" not in {m["id"] for m in window}  # … memory's window no longer holds it

    old = await client.http.post(
        "/api/chat/memory/pins", json={"text": first, "messageId": "m-first", "role": "user"}
    )
    (source,) = old["sources"]
    assert source == {"messageId": "m-first", "role": "user", "excerpt": first, "createdAt": None}
    answer = next(m for m in state["values"]["messages"] if m["type"] == "ai")
    said_at = "2024-03-03T14:05:00+00:00"
    shortened = await client.http.post(
        "/api/chat/memory/pins",
        json={
            "text": "The assistant's first answer.",
            "messageId": answer["id"],
            "role": "assistant",
            "createdAt": said_at,
            "excerpt": str(answer["content"]),
        },
    )
    (source,) = shortened["sources"]
    assert source["role"] == "assistant" and source["createdAt"] == said_at
    assert source["excerpt"] and source["excerpt"] != shortened["text"]
    recent = await client.http.post(
        "/api/chat/memory/pins",
        json={"text": "Question 4?", "messageId": "q4", "role": "assistant"},
    )
    assert recent["sources"][0]["role"] == "user"  # memory's copy: the user said it
    assert recent["sources"][0]["createdAt"].startswith("20")
    assert (await panel(client))["pins"] == [old, shortened, recent]

    async with http(deployment) as raw:
        key = {"X-Api-Key": client.http.client.headers["x-api-key"]}
        for bad, says in (
            ({"messageId": "m", "role": "system"}, '"user" or "assistant"'),
            ({"messageId": "m", "role": "user", "createdAt": "2024-03-03T14:05"}, "time zone"),
            ({"messageId": "m", "role": "user", "createdAt": 1709474700}, "ISO 8601"),
            ({"role": "user"}, "id"),
        ):
            refused = await raw.post(
                "/api/chat/memory/pins", json={"text": "Keep this.", **bad}, headers=key
            )
            assert says in one_sentence(refused, 422), bad


async def test_the_raw_routes_answer_and_refuse_in_one_sentence(deployment: Deployment) -> None:
    token = deployment.token()
    mine = {SESSION_HEADER: token}
    async with http(deployment) as raw:
        made = await raw.post("/api/chat/memory/pins", json={"text": "Budget: 40k."}, headers=mine)
        assert made.status_code == 201 and made.headers["cache-control"] == "no-store"
        pin = made.json()
        unpinned = await raw.delete(f"/api/chat/memory/pins/{pin['id']}", headers=mine)
        assert unpinned.status_code == 200 and unpinned.json()["id"] == pin["id"]
        exported = await raw.get(
            "/api/chat/memory/export", headers={"Cookie": f"{SESSION_COOKIE}={token}"}
        )
        assert exported.status_code == 200
        assert "attachment" in exported.headers["content-disposition"]
        assert exported.json()["unpinned"] == ["budget: 40k"]

        async def post(**kwargs: Any) -> httpx.Response:
            return await raw.post("/api/chat/memory/pins", **{"headers": mine, **kwargs})

        blank = one_sentence(await post(json={"text": "  \n "}), 422)
        long = one_sentence(await post(json={"text": "x" * (PIN_CHARS + 1)}), 422)
        assert "text" in blank.lower() and str(PIN_CHARS) in long
        for bad in (
            {"content": b"{not json", "headers": {**mine, "Content-Type": "application/json"}},
            {"json": ["a list"]},
            {"json": {"text": 42}},
            {"json": {"text": "ok", "colour": "red"}},
            {"json": {"text": "ok", "messageId": 7}},
            {"json": {}},
            {"content": b'{"text": "no content type"}'},
        ):
            detail = one_sentence(await post(**bad), 422)
            assert '"text"' in detail  # says what to send
        too_long = "s" * (SUMMARY_CHARS + 1)
        summary = await raw.put("/api/chat/memory/summary", json={"text": too_long}, headers=mine)
        assert "2500" in one_sentence(summary, 422)
        for method in ("PATCH", "DELETE"):
            unknown = await raw.request(
                method, "/api/chat/memory/pins/pin-0000", json={"text": "x"}, headers=mine
            )
            one_sentence(unknown, 404)
        # The page forgets with its cookie: the loopback carries it as the caller's.
        await raw.post("/api/chat/memory/pins", json={"text": "Keep me?"}, headers=mine)
        page = {
            "Cookie": f"other=1; {SESSION_COOKIE}={token}",
            "Origin": deployment.url,
            "Content-Type": "application/json",
        }
        forgot = await raw.delete("/api/chat/session", headers=page)
        assert forgot.status_code == 200, forgot.text
        assert forgot.json()["forgotten"] is True
        left = await raw.get("/api/chat/memory/export", headers=mine)
        assert left.json()["pins"] == [] and left.json()["unpinned"] == []
        one_sentence(await raw.post("/api/chat/memory/pins", json={"text": "x"}), 401)
        one_sentence(await raw.delete("/api/chat/session"), 401)
        one_sentence(await raw.get("/api/chat/memory/export", headers={SESSION_HEADER: "bad"}), 401)


async def test_twenty_user_pins_refuse_a_twenty_first(deployment: Deployment) -> None:
    client = sdk(deployment, deployment.token())
    for n in range(PINNED_MAX):
        await client.http.post("/api/chat/memory/pins", json={"text": f"Rule {n}: desk {n}."})
    async with http(deployment) as raw:
        refused = await raw.post(
            "/api/chat/memory/pins",
            json={"text": "One more rule."},
            headers={"X-Api-Key": client.http.client.headers["x-api-key"]},
        )
    assert str(PINNED_MAX) in one_sentence(refused, 409)
    assert len((await panel(client))["pins"]) == PINNED_MAX


async def test_another_session_never_reaches_my_pins(deployment: Deployment) -> None:
    me, other = sdk(deployment, deployment.token()), sdk(deployment, deployment.token())
    secret = f"My locker code is {new_marker('code')}."
    pin = await me.http.post("/api/chat/memory/pins", json={"text": secret})
    await me.http.put("/api/chat/memory/summary", json={"text": secret})
    for attempt in (
        other.http.patch(f"/api/chat/memory/pins/{pin['id']}", json={"text": "hijacked"}),
        other.http.delete(f"/api/chat/memory/pins/{pin['id']}"),
    ):
        with pytest.raises(NotFoundError):
            await attempt
    seen = [await other.http.get(p) for p in ("/api/chat/memory", "/api/chat/memory/export")]
    assert secret not in str(seen)
    await other.http.delete("/api/chat/session")  # forgetting itself touches only its own
    assert (await panel(me))["pins"] == [pin]


async def test_both_openapi_documents_list_the_routes(deployment: Deployment) -> None:
    async with http(deployment) as raw:
        spec = (await raw.get("/openapi.json")).json()
    for path, methods in ROUTES.items():
        assert methods <= set(spec["paths"][path]), path
        for method in methods:
            entry = spec["paths"][path][method]
            assert entry["summary"] and {"401", "503"} <= set(entry["responses"]), (path, method)
    post = spec["paths"]["/api/chat/memory/pins"]["post"]
    assert "201" in post["responses"] and {"409", "422"} <= set(post["responses"])
    body = post["requestBody"]["content"]["application/json"]["schema"]
    fields = spec["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]["properties"]
    assert {"text", "messageId", "role", "createdAt", "excerpt"} <= set(fields)


# --- forget the session everywhere ---------------------------------------------------------------


def database_bytes(deployment: Deployment) -> bytes:
    if deployment.sqlite_file is not None:
        return sqlite_bytes(deployment.sqlite_file)
    return pg_dump_bytes(deployment.database_url)


async def dev_files_show(deployment: Deployment, marker: str, *, present: bool) -> bytes:
    """``.langgraph_api`` once a flush has (or no longer has) ``marker``."""
    folder = deployment.server.workdir / ".langgraph_api"
    deadline = time.monotonic() + DEV_FLUSH_WAIT_S
    while True:
        blob = folder_bytes(folder)
        if holds(blob, marker) == present or time.monotonic() > deadline:
            return blob
        await asyncio.sleep(0.5)


async def test_forget_removes_the_session_everywhere_and_keeps_the_others(
    deployment: Deployment,
) -> None:
    gone_token, kept_token = deployment.token(), deployment.token()
    gone, kept = sdk(deployment, gone_token), sdk(deployment, kept_token)
    a = await fill(gone, new_marker("forget-me-"))
    b = await fill(kept, new_marker("keep-me-"))
    assert holds(database_bytes(deployment), a.marker)  # the scans see what is there
    assert holds(await dev_files_show(deployment, a.marker, present=True), a.marker)
    if deployment.sqlite_file is not None:
        # What SQLite's automatic checkpoint does every 1,000 pages: the rows into the file,
        # where only secure_delete keeps their bytes out of the free pages.
        with sqlite3.connect(deployment.sqlite_file) as conn:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    async with http(deployment) as raw:
        forgot = await raw.delete("/api/chat/session", headers={"X-Api-Key": gone_token})
    assert forgot.status_code == 200, forgot.text
    assert forgot.json()["forgotten"] is True and forgot.json()["crons"] == 2
    assert forgot.json()["threads"] >= len(a.threads)  # and those a cron's first run made
    assert await owned(gone, a) == {"assistants": [], "store": []}
    assert await owned(kept, b) == {"assistants": [b.assistant_id], "store": ["note"]}
    assert forgot.json()["assistants"] == 1 and forgot.json()["storeItems"] == 1

    assert await gone.threads.search() == [] and await gone.crons.search() == []
    for thread_id in a.threads:
        with pytest.raises(NotFoundError):
            await gone.threads.get(thread_id)
    emptied = await panel(gone)
    assert emptied["pins"] == [] and emptied["summary"] == "" and emptied["turnsInWindow"] == 0

    assert {t["thread_id"] for t in await kept.threads.search()} >= set(b.threads)
    assert {c["cron_id"] for c in await kept.crons.search()} == set(b.crons)
    assert [p["id"] for p in (await panel(kept))["pins"]] == [b.pin_id]

    stored = database_bytes(deployment)
    assert not holds(stored, a.marker)
    assert holds(stored, b.marker)
    dev_files = await dev_files_show(deployment, a.marker, present=False)
    assert not holds(dev_files, a.marker)
    assert holds(dev_files, b.marker)

    async with http(deployment) as raw:  # again: nothing left, still fine
        again = await raw.delete("/api/chat/session", headers={SESSION_HEADER: gone_token})
    assert again.json() == {
        "forgotten": True,
        "threads": 0,
        "crons": 0,
        "assistants": 0,
        "storeItems": 0,
    }
    log = deployment.module_log()
    assert a.marker not in log and "Traceback" not in log
