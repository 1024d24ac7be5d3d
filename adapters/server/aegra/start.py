"""Aegra only: replicas starting together set the shared database up one at a time (contract §15).

Why: Aegra's start-up is not safe to run twice at once on a fresh database. Its
migrations (alembic) take no lock, so two replicas collide creating the same
tables (``pg_type_typname_nsp_index``); its default assistants are inserted
after a lookup that finds none (``assistant_pkey``); the stock checkpointer's
and store's set-ups build indexes ``CONCURRENTLY``, which deadlocks with any
session blocked in ``pg_advisory_lock``. Started together on an empty database,
one replica of three came up.

What: Aegra loads the app (``http.app``) before it runs its lifespan, and runs
the app's lifespan inside its own, after its start-up. So when Aegra loads the
app, ``hold`` takes an advisory lock on Aegra's database — polling
``pg_try_advisory_xact_lock``, never blocking in a statement, so a concurrent index
build never waits on a replica that waits here — and the app's lifespan calls
``release`` once Aegra's start-up and memory's own are done. The first replica
prepares the schema and the assistants; the next finds them there. A replica
that dies while it holds the lock drops it with its connection. The lock belongs to
a transaction left open (idle, at READ COMMITTED: no snapshot for an index build to
wait on), not to the session: behind PgBouncer in transaction pooling a transaction
keeps its server connection, while a session lock would stay behind on whichever
server connection took it.

Elsewhere (``langgraph dev``, tests importing the app) nothing happens.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time

import psycopg

from aimind_memory.adapters.errors import StartLockTimeout

__all__ = ["AEGRA_MAIN", "START_LOCK_KEY", "StartLockTimeout", "hold", "release"]

log = logging.getLogger("aimind.aegra_start")

AEGRA_MAIN = "aegra_api.main"
"""Loaded (being executed) when Aegra loads the app: the sign this process is Aegra."""
START_LOCK_KEY = 0x41494D5354415254
""""AIMSTART": one replica's start-up at a time on one database."""
POLL_S = 0.2
CONNECT_TIMEOUT_S = 10
WAIT_LIMIT_S = 300.0
"""A first start runs every migration; a replica waits this long for another's."""

_held: list[psycopg.Connection] = []


def _database_url() -> str:
    from aegra_api.settings import settings  # loaded by Aegra before the app

    url: str = settings.db.database_url_sync
    return url


def hold() -> None:
    """Under Aegra, take the start lock on its database (blocking this process's start-up
    until no other replica is starting); elsewhere nothing."""
    if AEGRA_MAIN not in sys.modules or _held:
        return
    conn = psycopg.connect(
        _database_url(), prepare_threshold=None, connect_timeout=CONNECT_TIMEOUT_S
    )
    deadline = time.monotonic() + WAIT_LIMIT_S
    waited = False
    # A literal, no parameters: psycopg sends a simple query, whose snapshot ends with it
    # (a statement with parameters keeps its portal, and snapshot, to the transaction's end).
    take = f"SELECT pg_try_advisory_xact_lock({START_LOCK_KEY:d})"
    while True:
        row = conn.execute(take, prepare=False).fetchone()
        if row is not None and row[0]:
            break
        conn.rollback()  # no transaction (and no snapshot) held between tries
        if not waited:
            log.info("another replica is starting on this database: waiting for it")
            waited = True
        if time.monotonic() > deadline:
            conn.close()
            raise StartLockTimeout(
                f"another replica has been starting on this database for {WAIT_LIMIT_S:.0f} s"
            )
        time.sleep(POLL_S)
    _held.append(conn)


async def release() -> None:
    """Let the next replica start: closing the connection ends the lock's transaction."""
    while _held:
        await asyncio.to_thread(_held.pop().close)
