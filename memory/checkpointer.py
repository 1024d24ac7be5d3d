"""One checkpointer factory for the server (``langgraph.json``) and the library (SPEC §10).

``AIMIND_DATABASE_URL`` picks the backend:
``sqlite:///path`` (the embedded default), ``postgresql://…`` (a psycopg pool,
``setup()`` once) or ``memory``. Every saver returned here can prune a thread
down to its latest checkpoint, which keeps memory threads bounded at rest.
"""

from __future__ import annotations

import asyncio
import copy
import math
import os
import select
import time
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

DATABASE_URL_ENV = "AIMIND_DATABASE_URL"
DEFAULT_DATABASE_URL = "sqlite:///.aimind/aimind.sqlite"
POOL_MAX_ENV = "AIMIND_PG_POOL_MAX"
DEFAULT_POOL_MAX = 16
POOL_TIMEOUT_ENV = "AIMIND_PG_POOL_TIMEOUT_S"
"""How long a call waits for a pooled connection (e.g. while the server is down)."""
DEFAULT_POOL_TIMEOUT_S = 30.0
SQLITE_BUSY_ENV = "AIMIND_SQLITE_BUSY_TIMEOUT_S"
"""How long a SQLite write waits on another writer's lock before memory reports failure."""
SQLITE_BUSY_TIMEOUT_S = 30.0
POOL_RECHECK_AFTER_S = 1.0
"""A pooled connection idle longer than this is tested before use; a server restart takes longer."""
_SETUP_LOCK_KEY = 0x41494D494E44  # "AIMIND": one migration at a time across processes


class _Freshness:
    """Pool checkout test that skips connections used within ``POOL_RECHECK_AFTER_S``.

    Testing every checkout costs a round trip per saver call (four per turn); a
    connection that worked a moment ago is trusted, one idle longer (long enough
    for a server restart) is tested first.
    """

    def __init__(self) -> None:
        self._used: weakref.WeakKeyDictionary[AsyncConnection, float] = weakref.WeakKeyDictionary()

    async def check(self, conn: AsyncConnection) -> None:
        idle = time.monotonic() - self._used.get(conn, -math.inf)
        if idle > POOL_RECHECK_AFTER_S or _has_pending_input(conn):
            await AsyncConnectionPool.check_connection(conn)

    async def mark_used(self, conn: AsyncConnection) -> None:
        """Pool ``reset`` hook: runs when a healthy connection comes back."""
        self._used[conn] = time.monotonic()


def _has_pending_input(conn: AsyncConnection) -> bool:
    """An idle connection has nothing to read; one whose server went away has its FATAL
    notice or EOF waiting. A restart can take well under a second, so idleness alone
    would hand out dead connections right after one."""
    try:
        readable, _, _ = select.select([conn.pgconn.socket], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class DatabaseURLError(ValueError):
    """AIMIND_DATABASE_URL names no backend we support."""


def database_url(url: str | None = None) -> str:
    return url or os.environ.get(DATABASE_URL_ENV) or DEFAULT_DATABASE_URL


def backend_of(url: str) -> str:
    if url == "memory":
        return "memory"
    if url.startswith("sqlite:///"):
        return "sqlite"
    if url.startswith(("postgresql://", "postgres://")):
        return "postgres"
    raise DatabaseURLError("AIMIND_DATABASE_URL must be sqlite:///path, postgresql://… or memory")


def sqlite_path(url: str) -> Path:
    return Path(url.removeprefix("sqlite:///"))


_LATEST_ID_SQL = (
    "SELECT checkpoint_id FROM checkpoints WHERE thread_id = {p} AND checkpoint_ns = {p} "
    "ORDER BY checkpoint_id DESC LIMIT 1"
)


class SqliteSaver(AsyncSqliteSaver):
    """AsyncSqliteSaver that can also prune a thread to its latest checkpoint."""

    async def alatest_checkpoint_id(self, thread_id: str, checkpoint_ns: str = "") -> str | None:
        """The id of the thread's latest checkpoint: an index lookup, no blobs, no writes."""
        await self.setup()
        async with (
            self.lock,
            self.conn.execute(_LATEST_ID_SQL.format(p="?"), (str(thread_id), checkpoint_ns)) as cur,
        ):
            row = await cur.fetchone()
        return str(row[0]) if row else None

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await self.setup()
        ids = [str(t) for t in thread_ids]
        async with self.lock, self.conn.cursor() as cur:
            for tid in ids:
                if strategy == "delete":
                    await cur.execute("DELETE FROM checkpoints WHERE thread_id = ?", (tid,))
                else:
                    await cur.execute(
                        "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id NOT IN "
                        "(SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? "
                        "GROUP BY checkpoint_ns)",
                        (tid, tid),
                    )
                await cur.execute(
                    "DELETE FROM writes WHERE thread_id = ? AND checkpoint_id NOT IN "
                    "(SELECT checkpoint_id FROM checkpoints WHERE thread_id = ?)",
                    (tid, tid),
                )
            await self.conn.commit()


class _NoLock:
    """Stands in for AsyncPostgresSaver's instance lock when it owns a pool."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


class PostgresSaver(AsyncPostgresSaver):
    """AsyncPostgresSaver over a pool, without the instance-wide lock.

    The stock saver serializes every call on one ``asyncio.Lock`` even when it
    is handed a pool; each call here takes its own pooled connection instead,
    so sessions do not queue behind each other.
    """

    def __init__(self, conn: AsyncConnectionPool, **kwargs: Any) -> None:
        super().__init__(conn, **kwargs)
        self.lock = _NoLock()  # type: ignore[assignment]

    def on_connection(self, conn: AsyncConnection) -> PostgresSaver:
        """This saver working on ``conn`` alone: e.g. inside the transaction that holds a
        thread's write lock, so the write commits (or rolls back) with it."""
        bound = copy.copy(self)
        bound.conn = conn
        return bound

    async def aprune_to(self, thread_id: str, checkpoint_id: str, versions: dict[str, Any]) -> None:
        """Keep only checkpoint ``checkpoint_id`` (root namespace) and the blobs it uses.

        For threads whose only writer is the caller, who just wrote that
        checkpoint under the thread's lock (memory threads): three deletes in one
        pipelined round trip, where ``aprune`` takes several round trips and a
        serializable transaction to work the same out from the database.
        """
        tid = str(thread_id)
        async with self._cursor(pipeline=True) as cur:
            await cur.execute(
                "DELETE FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = '' "
                "AND checkpoint_id <> %s",
                (tid, checkpoint_id),
            )
            await cur.execute(
                "DELETE FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = '' "
                "AND checkpoint_id <> %s",
                (tid, checkpoint_id),
            )
            await cur.execute(
                "DELETE FROM checkpoint_blobs WHERE thread_id = %s AND checkpoint_ns = '' "
                "AND (channel, version) NOT IN (SELECT key, value FROM jsonb_each_text(%s))",
                (tid, Jsonb({k: str(v) for k, v in versions.items()})),
            )

    async def alatest_checkpoint_id(self, thread_id: str, checkpoint_ns: str = "") -> str | None:
        """The id of the thread's latest checkpoint: an index lookup, no blobs, no writes."""
        async with self._cursor() as cur:
            await cur.execute(_LATEST_ID_SQL.format(p="%s"), (str(thread_id), checkpoint_ns))
            row = await cur.fetchone()
        return str(row["checkpoint_id"]) if row else None


class MemorySaver(InMemorySaver):
    """InMemorySaver that can prune a thread to its latest checkpoint."""

    async def alatest_checkpoint_id(self, thread_id: str, checkpoint_ns: str = "") -> str | None:
        saved = self.storage.get(str(thread_id), {}).get(checkpoint_ns)
        return max(saved) if saved else None

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        for tid in map(str, thread_ids):
            if strategy == "delete":
                self.delete_thread(tid)
                continue
            live: set[tuple[str, str, str]] = set()
            live_blobs: set[tuple[str, str, str, Any]] = set()
            for ns, saved in self.storage.get(tid, {}).items():
                if not saved:
                    continue
                latest = max(saved)
                for cid in [c for c in saved if c != latest]:
                    del saved[cid]
                live.add((tid, ns, latest))
                checkpoint = self.serde.loads_typed(saved[latest][0])
                live_blobs.update(
                    (tid, ns, ch, v) for ch, v in checkpoint["channel_versions"].items()
                )
            for key in [k for k in self.writes if k[0] == tid and k not in live]:
                del self.writes[key]
            for key in [k for k in self.blobs if k[0] == tid and k not in live_blobs]:
                del self.blobs[key]


@asynccontextmanager
async def _sqlite(url: str) -> AsyncIterator[SqliteSaver]:
    path = sqlite_path(url)
    # Off the event loop: `langgraph dev` rejects blocking file-system calls in async code.
    await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
    busy_s = float(os.environ.get(SQLITE_BUSY_ENV) or SQLITE_BUSY_TIMEOUT_S)
    async with aiosqlite.connect(str(path), timeout=busy_s) as conn:
        saver = SqliteSaver(conn)
        await saver.setup()
        yield saver


@asynccontextmanager
async def open_pg_pool(url: str, max_size: int | None = None) -> AsyncIterator[AsyncConnectionPool]:
    """A psycopg pool configured the way the Postgres saver expects."""
    size = max_size or int(os.environ.get(POOL_MAX_ENV) or DEFAULT_POOL_MAX)
    freshness = _Freshness()
    pool = AsyncConnectionPool(
        url,
        min_size=1,
        max_size=size,
        open=False,
        timeout=float(os.environ.get(POOL_TIMEOUT_ENV) or DEFAULT_POOL_TIMEOUT_S),
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        # A restarted server leaves dead connections in the pool: test each idle one on
        # checkout, so the first turn after an outage does not fail on a stale one.
        check=freshness.check,
        reset=freshness.mark_used,
    )
    await pool.open(wait=True, timeout=30)
    try:
        yield pool
    finally:
        await pool.close()


@asynccontextmanager
async def _postgres(url: str) -> AsyncIterator[PostgresSaver]:
    async with open_pg_pool(url) as pool:
        saver = PostgresSaver(pool)
        async with pool.connection() as conn:
            await conn.execute("SELECT pg_advisory_lock(%s)", (_SETUP_LOCK_KEY,))
            try:
                await saver.setup()
            finally:
                await conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK_KEY,))
        yield saver


@asynccontextmanager
async def open_checkpointer(url: str | None = None) -> AsyncIterator[BaseCheckpointSaver]:
    """Open the saver named by ``url`` (default: ``AIMIND_DATABASE_URL``), set up and ready."""
    url = database_url(url)
    backend = backend_of(url)
    if backend == "memory":
        yield MemorySaver()
    elif backend == "sqlite":
        async with _sqlite(url) as saver:
            yield saver
    else:
        async with _postgres(url) as saver:
            yield saver


@asynccontextmanager
async def server_checkpointer() -> AsyncIterator[BaseCheckpointSaver]:
    """``langgraph.json`` ``checkpointer.path`` target: the same saver the memory uses."""
    async with open_checkpointer() as saver:
        yield saver


async def prune_thread(
    saver: BaseCheckpointSaver,
    thread_id: str,
    keep: tuple[str, dict[str, Any]] | None = None,
) -> None:
    """Drop every checkpoint of ``thread_id`` but the latest (and their writes/blobs).

    ``keep`` = (id, channel versions) of that latest checkpoint, when the caller
    just wrote it under the thread's lock: savers that can use it prune cheaper.
    """
    prune_to = getattr(saver, "aprune_to", None)
    if keep is not None and prune_to is not None:
        await prune_to(thread_id, *keep)
        return
    aprune = getattr(saver, "aprune", None)
    if aprune is None:
        return
    await aprune([thread_id], strategy="keep_latest")


__all__ = [
    "DATABASE_URL_ENV",
    "DEFAULT_DATABASE_URL",
    "DatabaseURLError",
    "MemorySaver",
    "PostgresSaver",
    "SqliteSaver",
    "backend_of",
    "database_url",
    "open_checkpointer",
    "open_pg_pool",
    "prune_thread",
    "server_checkpointer",
]
