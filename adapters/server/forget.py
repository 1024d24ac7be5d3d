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
runs cancelled first, so no run writes a checkpoint after its thread is gone —
then memory, whose ``forget`` also empties SQLite's WAL, so the server saver's
deletes before it leave no bytes behind either. Searches repeat until they find
nothing (another tab may start a run meanwhile), a bounded number of times.
Everything is idempotent: a failed forget is finished by calling it again.

``langgraph dev`` keeps its runtime's threads and runs in memory and writes them
to ``.langgraph_api/`` every 10 s: a forgotten session is gone from those files at
the next flush.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient
from starlette.types import ASGIApp

from aimind_memory.adapters.server.session_token import header_credentials
from aimind_memory.memory import MemoryService
from aimind_memory.memory.errors import AIMindError
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


class ForgetIncompleteError(AIMindError):
    """The server refused or failed a delete; what is gone stays gone, and calling
    forget again finishes the job."""

    def __init__(self) -> None:
        super().__init__("Forgetting this session did not finish: please try again.")


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What one forget removed from the server (memory's thread goes too)."""

    threads: int
    crons: int


def _owned[T: Mapping[str, Any]](items: list[T], identity: SessionHash) -> list[T]:
    """A second check beside the server's owner scoping: never delete what is stamped as
    another's. (Aegra scopes crons by its own user column and keeps no ``owner`` on them.)"""
    return [i for i in items if (i.get("metadata") or {}).get(OWNER_KEY, identity) == identity]


async def _stop_runs(client: LangGraphClient, thread_id: str) -> None:
    for run in await client.runs.list(thread_id, limit=PAGE):
        if run.get("status") in LIVE_RUNS:
            try:
                await client.runs.cancel(thread_id, run["run_id"], wait=True)
            except httpx.HTTPStatusError as exc:
                if exc.response.status_code not in (404, 409):  # ended meanwhile
                    raise


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


async def forget_session(
    app: ASGIApp,
    headers: Mapping[str, str],
    identity: SessionHash,
    memory: MemoryService,
) -> Forgotten:
    """Remove every cron, thread (with its runs and checkpoints) and the memory of the
    session that sent ``headers``. Raises ForgetIncompleteError or MemoryUnavailableError."""
    transport = httpx.ASGITransport(app=app)
    http = httpx.AsyncClient(
        transport=transport,
        base_url=LOOPBACK_URL,
        headers=header_credentials(headers),
        timeout=LOOPBACK_TIMEOUT_S,
    )
    async with LangGraphClient(http) as client:
        try:
            crons = await _delete_crons(client, identity)
            threads = await _delete_threads(client, identity)
        except (httpx.HTTPError, KeyError, TypeError) as exc:
            status = exc.response.status_code if isinstance(exc, httpx.HTTPStatusError) else ""
            log.warning("forgetting a session's threads failed (%s %s)", type(exc).__name__, status)
            raise ForgetIncompleteError() from exc
    await memory.forget(identity)
    log.info("a session was forgotten (%d threads, %d crons)", threads, crons)
    return Forgotten(threads=threads, crons=crons)
