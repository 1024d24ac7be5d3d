"""The memory routes of contract §9a on Aegra (two replicas, PostgreSQL + Redis): a pin made on
one replica is edited and unpinned on the other, refusals are one sentence, another
session gets 404 for my pin ids, Aegra's ``/openapi.json`` lists every route, and
forgetting a session removes its threads, runs, checkpoints, crons, assistants (with
their versions), store items and memory, measured by a ``pg_dump`` of the database: the
forgotten session's marker is in no row, another session's is in all of its places. What
forget does not reach — Redis's replay copies of the session's runs' events — expires
within the 10 minutes ``docs/guides/production.md`` states.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from langgraph_sdk.errors import NotFoundError
from redis.asyncio import Redis

from aimind_memory.memory.config.limits import PIN_CHARS, PINNED_MAX
from aimind_memory.memory.views.guard import assert_no_forbidden_fields
from tests.production.conftest import Cluster
from tests.support.forget_scenario import fill, new_marker, owned
from tests.support.residue import holds, pg_dump_bytes

pytestmark = pytest.mark.e2e

ROUTES = {
    "/api/chat/memory": {"get"},
    "/api/chat/memory/pins": {"post"},
    "/api/chat/memory/pins/{pin_id}": {"patch", "delete"},
    "/api/chat/memory/summary": {"put"},
    "/api/chat/memory/export": {"get"},
    "/api/chat/session": {"delete"},
}


REPLAY_RETENTION_S = 600
"""Aegra keeps a run's stream events in Redis this long after its last one
(``docs/guides/production.md``, "What the replicas share")."""
RUN_CACHES = "aegra:run:cache:*"


async def run_cache_lifetimes(cluster: Cluster, marker: str) -> list[int]:
    """The seconds to live of every Redis run cache whose events hold ``marker``."""
    client = Redis.from_url(cluster.redis.url())
    try:
        lifetimes = []
        async for key in client.scan_iter(match=RUN_CACHES):
            events = await client.lrange(key, 0, -1)
            if any(marker.encode() in event for event in events):
                lifetimes.append(await client.ttl(key))
        return lifetimes
    finally:
        await client.aclose()


def one_sentence(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"detail"}, body
    detail = body["detail"]
    assert isinstance(detail, str) and detail[0].isupper() and detail.endswith("."), detail
    return detail


async def test_pins_are_edited_on_either_replica(cluster: Cluster) -> None:
    token = new_marker("prod-session-")
    a, b = cluster.client(0, token), cluster.client(1, token)
    pin = await a.http.post("/api/chat/memory/pins", json={"text": "Ship on Friday."})
    assert pin["origin"] == "user" and pin["sources"] == []
    edited = await b.http.patch(
        f"/api/chat/memory/pins/{pin['id']}", json={"text": "Ship on Monday."}
    )
    assert edited["id"] == pin["id"] and edited["text"] == "Ship on Monday."
    shown = await a.http.get("/api/chat/memory")
    assert_no_forbidden_fields(shown)
    assert shown["pins"] == [edited] and shown["pinnedDecisions"] == ["Ship on Monday."]
    panel = await b.http.put("/api/chat/memory/summary", json={"text": "Release plan."})
    assert panel["summary"] == "Release plan."
    exported = await a.http.get("/api/chat/memory/export")
    assert exported["pins"] == [edited] and exported["summary"] == "Release plan."
    await b.http.delete(f"/api/chat/memory/pins/{pin['id']}")
    assert (await a.http.get("/api/chat/memory"))["pins"] == []


async def test_a_replica_with_a_stale_copy_refuses_nothing_it_should_not(
    cluster: Cluster,
) -> None:
    """Replica 1 read the panel; replica 0 changed the pins since. Replica 1 edits and unpins
    a pin it has not seen and pins under a cap that is no longer full: no false 404 or 409
    (contract §8, "A stale copy is never the truth")."""
    token = new_marker("prod-stale-")
    a, b = cluster.client(0, token), cluster.client(1, token)
    pins = "/api/chat/memory/pins"
    await a.http.post(pins, json={"text": "Ship on Friday."})
    await b.http.get("/api/chat/memory")  # replica 1 keeps this copy
    made = await a.http.post(pins, json={"text": "The budget is 40k."})
    edited = await b.http.patch(f"{pins}/{made['id']}", json={"text": "The budget is 45k."})
    assert edited["id"] == made["id"] and edited["text"] == "The budget is 45k."

    await b.http.get("/api/chat/memory")
    later = await a.http.post(pins, json={"text": "Deploy on Tuesday."})
    await b.http.delete(f"{pins}/{later['id']}")  # the SDK raises on a 404
    assert later["id"] not in [p["id"] for p in (await a.http.get("/api/chat/memory"))["pins"]]

    for i in range(PINNED_MAX - 2):
        await a.http.post(pins, json={"text": f"Room {100 + i} is booked."})
    full = await b.http.get("/api/chat/memory")
    assert len(full["pins"]) == PINNED_MAX
    await a.http.delete(f"{pins}/{made['id']}")
    again = await b.http.post(pins, json={"text": "The lab closes at 6 pm."})
    assert again["origin"] == "user"
    texts = [p["text"] for p in (await a.http.get("/api/chat/memory"))["pins"]]
    assert "The lab closes at 6 pm." in texts and "The budget is 45k." not in texts
    assert len(texts) == PINNED_MAX


async def test_refusals_and_isolation_on_aegra(cluster: Cluster) -> None:
    me, other = new_marker("prod-me-"), new_marker("prod-other-")
    mine = await cluster.client(0, me).http.post(
        "/api/chat/memory/pins", json={"text": f"Secret {me}."}
    )
    async with cluster.http(1) as raw:

        async def call(method: str, path: str, token: str | None, **kwargs: Any) -> httpx.Response:
            headers = {"X-Api-Key": token} if token else {}
            return await raw.request(method, path, headers=headers, **kwargs)

        pin_path = f"/api/chat/memory/pins/{mine['id']}"
        one_sentence(await call("PATCH", pin_path, other, json={"text": "hijacked"}), 404)
        one_sentence(await call("DELETE", pin_path, other), 404)
        seen = await call("GET", "/api/chat/memory/export", other)
        assert seen.status_code == 200 and me not in seen.text
        pins = "/api/chat/memory/pins"
        one_sentence(await call("POST", pins, me, json={"text": "x" * (PIN_CHARS + 1)}), 422)
        one_sentence(await call("POST", pins, me, json={"text": "ok", "extra": 1}), 422)
        one_sentence(await call("POST", pins, me, content=b"{oops"), 422)
        one_sentence(await call("POST", pins, None, json={"text": "ok"}), 401)
        spec = (await raw.get("/openapi.json")).json()
    for path, methods in ROUTES.items():
        assert methods <= set(spec["paths"][path]), path
    assert (await cluster.client(0, me).http.get("/api/chat/memory"))["pins"] == [mine]


async def test_forget_removes_the_session_from_every_row(cluster: Cluster) -> None:
    gone_token, kept_token = new_marker("prod-gone-"), new_marker("prod-kept-")
    gone, kept = cluster.client(0, gone_token), cluster.client(1, kept_token)
    a = await fill(gone, new_marker("forget-me-"))
    b = await fill(kept, new_marker("keep-me-"))
    assert holds(pg_dump_bytes(cluster.database_url), a.marker)  # the scan sees it

    async with cluster.http(1) as raw:  # the other replica forgets what the first wrote
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
    emptied = await gone.http.get("/api/chat/memory")
    assert emptied["pins"] == [] and emptied["summary"] == "" and emptied["turnsInWindow"] == 0
    assert {t["thread_id"] for t in await kept.threads.search(limit=50)} >= set(b.threads)
    assert {c["cron_id"] for c in await kept.crons.search()} == set(b.crons)
    assert [p["id"] for p in (await kept.http.get("/api/chat/memory"))["pins"]] == [b.pin_id]

    dump = pg_dump_bytes(cluster.database_url)
    assert not holds(dump, a.marker)
    assert holds(dump, b.marker)
    lifetimes = await run_cache_lifetimes(cluster, a.marker)
    assert lifetimes, "the scan sees the run caches"
    assert all(0 < ttl <= REPLAY_RETENTION_S for ttl in lifetimes), lifetimes
    for replica in cluster.replicas:
        log = replica.log_tail(2_000_000)
        assert a.marker not in log
