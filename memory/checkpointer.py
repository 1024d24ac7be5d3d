"""One checkpointer factory for the server (``langgraph.json``) and the library (SPEC §10).

``AIMIND_DATABASE_URL`` picks the backend:
``sqlite:///path`` (the embedded default), ``postgresql://…`` (a psycopg pool,
``setup()`` once) or ``memory``. Every saver returned here keeps memory threads
bounded at rest: the SQLite and Postgres savers prune a thread to its latest
checkpoint inside their compare-and-put, the in-memory one through ``aprune``.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import select
import sqlite3
import time
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    get_checkpoint_metadata,
    get_serializable_checkpoint_metadata,
)
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from psycopg import AsyncConnection
from psycopg.adapt import Transformer
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from memory.locks import lock_key

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


_LOCK_SQL = b"BEGIN; SELECT pg_advisory_xact_lock(%(key)b)"
_INSERT_BLOBS_SQL = (
    b"INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) "
    b"VALUES %b ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING"
)
_INSERT_CHECKPOINT_SQL = (
    b"INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, "
    b"checkpoint, metadata) SELECT * FROM (VALUES %(row)b) AS new "
    b"WHERE (" + _LATEST_ID_SQL.format(p="%b").encode() % (b"%(tid)b", b"%(ns)b") + b") "
    b"IS NOT DISTINCT FROM %(parent)b "
    b"ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) "
    b"DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata"
)
_WRITTEN = (
    b"EXISTS (SELECT 1 FROM checkpoints WHERE thread_id = %(tid)b AND checkpoint_ns = %(ns)b "
    b"AND checkpoint_id = %(cid)b)"
)
_WRITTEN_SQL = b"SELECT " + _WRITTEN + b" AS written"
PRUNE_SQL = (
    b"DELETE FROM checkpoints WHERE thread_id = %(tid)b AND checkpoint_ns = %(ns)b "
    b"AND checkpoint_id <> %(cid)b AND " + _WRITTEN + b"; "
    b"DELETE FROM checkpoint_writes WHERE thread_id = %(tid)b AND checkpoint_ns = %(ns)b "
    b"AND checkpoint_id <> %(cid)b AND " + _WRITTEN + b"; "
    b"DELETE FROM checkpoint_blobs WHERE thread_id = %(tid)b AND checkpoint_ns = %(ns)b "
    b"AND (channel, version) NOT IN (SELECT key, value FROM jsonb_each_text(%(versions)b)) "
    b"AND " + _WRITTEN
)
"""Keep only checkpoint ``cid`` of a thread namespace and the blobs its ``versions`` use,
if ``cid`` was written."""


def _inline(value: Any) -> bool:
    """Values ``AsyncPostgresSaver`` keeps in the checkpoint row rather than as blobs."""
    return value is None or isinstance(value, str | int | float | bool)


_SQLITE_INSERT_SQL = (
    "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, "
    "parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_SQLITE_PRUNE_SQL = (
    "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id <> ?",
    "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id <> ?",
)


class SqliteSaver(AsyncSqliteSaver):
    """AsyncSqliteSaver with fewer hops to its connection's thread and a compare-and-put
    that can prune the thread to the checkpoint it writes."""

    async def alatest_checkpoint_id(self, thread_id: str, checkpoint_ns: str = "") -> str | None:
        """The id of the thread's latest checkpoint: an index lookup, no blobs, no writes."""
        await self.setup()
        async with self.lock:  # one hop to the connection's thread: execute and fetch
            rows = await self.conn.execute_fetchall(
                _LATEST_ID_SQL.format(p="?"), (str(thread_id), checkpoint_ns)
            )
        return str(rows[0][0]) if rows else None

    def _row(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata
    ) -> tuple[Any, ...]:
        """``AsyncSqliteSaver.aput``'s checkpoints row."""
        configurable = config["configurable"]
        type_, blob = self.serde.dumps_typed(checkpoint)
        meta = json.dumps(get_checkpoint_metadata(config, metadata), ensure_ascii=False)
        return (
            str(configurable["thread_id"]),
            configurable["checkpoint_ns"],
            checkpoint["id"],
            configurable.get("checkpoint_id"),
            type_,
            blob,
            meta.encode("utf-8", "ignore"),
        )

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """``AsyncSqliteSaver.aput``, the same row, in two hops to the connection's thread
        instead of three (the insert and closing its cursor go in one)."""
        await self.setup()
        row = self._row(config, checkpoint, metadata)
        async with self.lock:
            await self.conn.execute_fetchall(_SQLITE_INSERT_SQL, row)
            await self.conn.commit()
        return {
            "configurable": {"thread_id": row[0], "checkpoint_ns": row[1], "checkpoint_id": row[2]}
        }

    async def aput_if_latest(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
        *,
        prune: bool = False,
    ) -> bool:
        """Compare-and-put, as ``PostgresSaver.aput_if_latest``: ``aput``'s row, only if
        the thread's latest checkpoint is still ``config``'s ``checkpoint_id``.

        One hop to the connection's thread runs the whole write transaction: BEGIN
        IMMEDIATE (SQLite's write lock, so the check and the insert see one state),
        check, insert, prune if asked, COMMIT. aiosqlite has no public call for
        "run this function on the connection", so this uses its ``_execute``.
        """
        await self.setup()
        row = self._row(config, checkpoint, metadata)
        tid, ns, cid, parent = row[:4]

        def put(conn: sqlite3.Connection) -> bool:
            conn.execute("BEGIN IMMEDIATE")
            try:
                latest = conn.execute(_LATEST_ID_SQL.format(p="?"), (tid, ns)).fetchone()
                if (latest[0] if latest else None) != parent:
                    conn.rollback()
                    return False
                conn.execute(_SQLITE_INSERT_SQL, row)
                if prune:
                    for statement in _SQLITE_PRUNE_SQL:
                        conn.execute(statement, (tid, ns, cid))
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
            return True

        async with self.lock:
            return await self.conn._execute(put, self.conn._conn)


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

    async def aput_if_latest(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
        *,
        prune: bool = False,
    ) -> bool:
        """Compare-and-put: ``aput``, but only if the thread's latest root checkpoint is
        still ``config``'s ``checkpoint_id`` (None: the thread is empty); False otherwise,
        with nothing but unreferenced blobs written.

        One round trip: a transaction that takes the thread's advisory lock (so two
        writers cannot both see the same latest), inserts, prunes if asked and commits.
        ``prune`` drops every other root checkpoint of the thread, its writes and the
        blobs the new checkpoint does not use. The rows are exactly ``aput``'s; the
        statements are bytes templates filled with escaped literals.
        """
        configurable = config["configurable"]
        thread_id, ns = str(configurable["thread_id"]), configurable["checkpoint_ns"]
        values = checkpoint["channel_values"]
        inline = {k: v for k, v in values.items() if _inline(v)}
        blobs = {k: v for k, v in values.items() if not _inline(v)}
        rows = self._dump_blobs(
            thread_id, ns, blobs, {k: v for k, v in new_versions.items() if k in blobs}
        )
        async with self.conn.connection() as conn:
            # One adapter for all literals: sql.Literal builds one per value.
            literal = Transformer.from_context(conn).as_literal

            def row(values: Sequence[Any]) -> bytes:
                return b"(" + b", ".join(map(literal, values)) + b")"

            keys = {
                b"key": literal(lock_key(thread_id)),
                b"tid": literal(thread_id),
                b"ns": literal(ns),
                b"parent": literal(configurable.get("checkpoint_id")),
                b"cid": literal(checkpoint["id"]),
            }
            checkpoint_row = (
                thread_id,
                ns,
                checkpoint["id"],
                configurable.get("checkpoint_id"),
                Jsonb({**checkpoint, "channel_values": inline}),
                Jsonb(get_serializable_checkpoint_metadata(config, metadata)),
            )
            statements = [_LOCK_SQL % keys]
            if rows:
                statements.append(_INSERT_BLOBS_SQL % b", ".join(map(row, rows)))
            statements.append(_INSERT_CHECKPOINT_SQL % {**keys, b"row": row(checkpoint_row)})
            if prune:
                versions = {k: str(v) for k, v in checkpoint["channel_versions"].items()}
                statements.append(PRUNE_SQL % {**keys, b"versions": literal(Jsonb(versions))})
            statements += [_WRITTEN_SQL % keys, b"COMMIT"]
            cur = await conn.execute(b"; ".join(statements), prepare=False)
            written = False
            while True:
                if cur.description and cur.description[0].name == "written":
                    written = bool((await cur.fetchone())["written"])
                if not cur.nextset():
                    return written

    async def alatest_checkpoint_id(self, thread_id: str, checkpoint_ns: str = "") -> str | None:
        """The id of the thread's latest checkpoint: an index lookup, no blobs, no writes."""
        async with self.conn.connection() as conn:
            cur = await conn.execute(_LATEST_ID_SQL.format(p="%s"), (str(thread_id), checkpoint_ns))
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


async def prune_thread(saver: BaseCheckpointSaver, thread_id: str) -> None:
    """Drop every checkpoint of ``thread_id`` but the latest (and their writes/blobs)."""
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
