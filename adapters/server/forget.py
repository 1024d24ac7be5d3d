"""Forget a session everywhere: ``DELETE /api/chat/session`` (contract §9a).

What a session owns lives in two places: the server's threads, runs, checkpoints and
crons (``langgraph dev``'s in-memory runtime with our saver, or Aegra's tables and
its own saver), and its memory thread (``MemoryService``). The server's part is
removed through the server's own public API, as the caller: an HTTP client over an
ASGI loopback into the very app that serves both servers (``http.app`` is the
whole server on each: ``langgraph dev`` and Aegra both merge their routes into it),
carrying the caller's credentials (a cookie's token as ``X-AIMind-Session``: the
server calling itself is no page, see ``adapters.server.cross_site``). So the server's
auth does the owner scoping (``adapters.server.auth``: search and delete see only the
caller's own), each
server cascades as it does for any client (a thread's runs, checkpoints and the
crons on it), and nothing reaches into a server's internals.

Order: crons first (none fires mid-way), then each thread — its pending or running
runs cancelled first and waited for, so no run writes a checkpoint after its thread is
gone — then the assistants the session made (with their versions) and its store items
(everything under its own namespace, ``(<identity>, …)``), then memory, whose ``forget``
also empties SQLite's WAL, so the server saver's deletes before it leave no bytes behind
either. Searches repeat until they find nothing (another tab may start a run
meanwhile), a bounded number of times. Everything is idempotent: a failed forget is
finished by calling it again.

A run is cancelled without the server's own wait and then polled until it has ended,
for at most ``RUN_END_WAIT_S``: Aegra's ``POST …/cancel?wait=1`` polls the run's row for
10 s and then re-reads it, and the row of a stateless run (the chat page's kind) goes
with its thread the moment the cancelled run ends, so that re-read fails (SQLAlchemy's
``InvalidRequestError``, a 500) and forget used to answer 503 after 10 s. A run that is
no longer found has ended.

``langgraph dev`` keeps its runtime's threads, runs, assistants and store in memory and
writes them to ``.langgraph_api/`` every 10 s: a forgotten session is gone from those
files at the next flush. What is left elsewhere, and for how long: Aegra's Redis keeps
each run's stream events for replay (``aegra:run:cache:<run id>``) for 10 minutes after
the run's last event (``docs/guides/production.md``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient
from starlette.types import ASGIApp

from aimind_memory.adapters.errors import ForgetIncompleteError
from aimind_memory.adapters.server.session_token import header_credentials
from aimind_memory.adapters.server.store_scope import own_prefixes
from aimind_memory.memory import MemoryService
from aimind_memory.memory.session import SessionHash

__all__ = ["ForgetIncompleteError", "Forgotten", "forget_session"]

log = logging.getLogger("aimind.forget")

LOOPBACK_URL = "http://aimind.loopback"
"""Never resolved: requests go to the app in this process through ``httpx.ASGITransport``."""
LOOPBACK_TIMEOUT_S = 60.0
PAGE = 100
ROUNDS = 20
"""Searches per kind, each deleting up to ``PAGE``: 2,000 threads, and a stop for a
client that keeps making new ones while it is being forgotten."""
LIVE_RUNS = ("pending", "running")
OWNER_KEY = "owner"
SYSTEM_CREATOR = "system"
"""``metadata.created_by`` of the graphs' own assistants: never the session's."""
RUN_END_WAIT_S = 20.0
"""How long a cancelled run may take to end before forget gives up (a 503; calling it
again finishes the job). A cancelled run ends within a second on both servers."""
RUN_POLL_S = 0.2
CANCEL_AGAIN_S = 2.0
"""A run still live this long after its cancel is sent another (the first may have met
a run that was only being claimed)."""


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What one forget removed from the server (memory's thread goes too)."""

    threads: int
    crons: int
    assistants: int
    store_items: int


def _owned[T: Mapping[str, Any]](items: list[T], identity: SessionHash) -> list[T]:
    """A second check beside the server's owner scoping: never delete what is stamped as
    another's. (Aegra scopes crons by its own user column and keeps no ``owner`` on them.)"""
    return [i for i in items if (i.get("metadata") or {}).get(OWNER_KEY, identity) == identity]


async def _cancel(client: LangGraphClient, thread_id: str, run_id: str) -> None:
    """Ask the server to cancel a run, not waiting for it to end (``_stop_runs`` waits)."""
    try:
        await client.runs.cancel(thread_id, run_id)
    except httpx.HTTPStatusError as exc:
        # 404/409: it ended meanwhile; 5xx: Aegra failing to re-read a run whose row has
        # gone with its thread (it ended): either way the poll below decides.
        if exc.response.status_code < 500 and exc.response.status_code not in (404, 409):
            raise


async def _is_live(client: LangGraphClient, thread_id: str, run_id: str) -> bool:
    """Whether the run is still pending or running; a 5xx counts as live, so the poll asks
    again until the deadline: Aegra answers a 500 while it re-reads a run whose row is going
    with its thread (a stateless run ending as it is cancelled), and a 404 the next time."""
    try:
        run = await client.runs.get(thread_id, run_id)
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code == 404:  # gone: ended, and its thread with it
            return False
        if exc.response.status_code >= 500:
            return True
        raise
    return run.get("status") in LIVE_RUNS


async def _stop_runs(client: LangGraphClient, thread_id: str) -> None:
    """Cancel the thread's pending and running runs and wait until each has ended, for at
    most ``RUN_END_WAIT_S`` (then ForgetIncompleteError)."""
    live = [
        str(run["run_id"])
        for run in await client.runs.list(thread_id, limit=PAGE)
        if run.get("status") in LIVE_RUNS
    ]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RUN_END_WAIT_S
    for run_id in live:
        await _cancel(client, thread_id, run_id)
    for run_id in live:
        cancelled_at = loop.time()
        while await _is_live(client, thread_id, run_id):
            if loop.time() > deadline:
                log.warning("a run of a session being forgotten did not end in time")
                raise ForgetIncompleteError()
            if loop.time() - cancelled_at > CANCEL_AGAIN_S:
                await _cancel(client, thread_id, run_id)
                cancelled_at = loop.time()
            await asyncio.sleep(RUN_POLL_S)


async def _delete_threads(client: LangGraphClient, identity: SessionHash) -> int:
    deleted = 0
    for _ in range(ROUNDS):
        found = _owned(await client.threads.search(limit=PAGE), identity)
        if not found:
            return deleted
        for thread in found:
            thread_id = str(thread["thread_id"])
            if thread.get("status") == "busy":
                await _stop_runs(client, thread_id)
            try:
                await client.threads.delete(thread_id)
            except httpx.HTTPStatusError as exc:
                if exc.response.status_code != 404:  # 404: deleted meanwhile
                    raise
            deleted += 1
    raise ForgetIncompleteError()


async def _delete_crons(client: LangGraphClient, identity: SessionHash) -> int:
    deleted = 0
    for _ in range(ROUNDS):
        found = _owned(await client.crons.search(limit=PAGE), identity)
        if not found:
            return deleted
        for cron in found:
            try:
                await client.crons.delete(str(cron["cron_id"]))
            except httpx.HTTPStatusError as exc:
                if exc.response.status_code != 404:
                    raise
            deleted += 1
    raise ForgetIncompleteError()


async def _delete_assistants(client: LangGraphClient, identity: SessionHash) -> int:
    """The assistants the session made (stamped with its ``owner``), with their versions;
    never the graphs' own (``created_by: system``), which every session sees."""
    deleted = 0
    for _ in range(ROUNDS):
        found = [
            a
            for a in await client.assistants.search(metadata={OWNER_KEY: identity}, limit=PAGE)
            if (a.get("metadata") or {}).get(OWNER_KEY) == identity
            and (a.get("metadata") or {}).get("created_by") != SYSTEM_CREATOR
        ]
        if not found:
            return deleted
        for assistant in found:
            try:
                await client.assistants.delete(str(assistant["assistant_id"]))
            except httpx.HTTPStatusError as exc:
                if exc.response.status_code != 404:
                    raise
            deleted += 1
    raise ForgetIncompleteError()


async def _delete_store_items(client: LangGraphClient, identity: SessionHash) -> int:
    """Every store item under the session's own namespace (the only ones it may have:
    ``adapters.server.store_scope``)."""
    deleted = 0
    for _ in range(ROUNDS):
        found = {  # on Aegra the second prefix finds the first's items too: once each
            (tuple(item["namespace"]), str(item["key"]))
            for prefix in own_prefixes(identity)
            for item in (await client.store.search_items(prefix, limit=PAGE))["items"]
        }
        if not found:
            return deleted
        for namespace, key in sorted(found):
            try:
                await client.store.delete_item(list(namespace), key)
            except httpx.HTTPStatusError as exc:
                if exc.response.status_code != 404:
                    raise
            deleted += 1
    raise ForgetIncompleteError()


async def forget_session(
    app: ASGIApp,
    headers: Mapping[str, str],
    identity: SessionHash,
    memory: MemoryService,
) -> Forgotten:
    """Remove every cron, thread (with its runs and checkpoints), assistant and store item,
    and the memory, of the session that sent ``headers``. Raises ForgetIncompleteError or
    MemoryUnavailableError."""
    transport = httpx.ASGITransport(app=app)
    http = httpx.AsyncClient(
        transport=transport,
        base_url=LOOPBACK_URL,
        headers=header_credentials(headers),
        timeout=LOOPBACK_TIMEOUT_S,
    )
    async with LangGraphClient(http) as client:
        try:
            forgotten = Forgotten(
                crons=await _delete_crons(client, identity),
                threads=await _delete_threads(client, identity),
                assistants=await _delete_assistants(client, identity),
                store_items=await _delete_store_items(client, identity),
            )
        except (httpx.HTTPError, KeyError, TypeError) as exc:
            status = exc.response.status_code if isinstance(exc, httpx.HTTPStatusError) else ""
            log.warning("forgetting a session's threads failed (%s %s)", type(exc).__name__, status)
            raise ForgetIncompleteError() from exc
    await memory.forget(identity)
    log.info(
        "a session was forgotten (%d threads, %d crons, %d assistants, %d store items)",
        forgotten.threads,
        forgotten.crons,
        forgotten.assistants,
        forgotten.store_items,
    )
    return forgotten
