"""PostgreSQL: the stock ``AsyncPostgresSaver`` for the server, memory's own SQL beside it.

All SQL of this backend is in this module. The server's saver is
``AsyncPostgresSaver`` as released, plus the two capabilities it lacks
(``adelete_for_runs``, ``acopy_thread``), written over its tables. Memory
threads are read in one query and written in one round trip: a multi-statement
query, one explicit transaction, that takes the thread's advisory lock, inserts
the blobs and the checkpoint only if the thread's latest checkpoint is still the
parent, and prunes if asked; a write that folds messages out of the window archives
them in the same transaction (``memory.storage.archive.postgres``). A clear is the same
kind of transaction: the thread's lock, then its rows and its archive. Values are
inlined as literals by ``psycopg.sql``.

Isolation: memory's transactions run at READ COMMITTED, stated in their
``BEGIN``, whatever the database's ``default_transaction_isolation``. The
compare-and-put depends on it: each statement after the advisory lock takes a
new snapshot, so it sees what the lock's previous holder committed. Under
REPEATABLE READ the whole transaction would read the snapshot taken before the
lock was granted, and two writers would both find "the latest is my parent".
The pool is shared with the stock saver, so nothing is set on its connections:
the level is named per transaction.

Nothing outlives a transaction, so PgBouncer in transaction pooling works: no
prepared statements (``memory/storage/pg_pool.py``), no ``SET``, and only
transaction-scoped advisory locks. Memory's calls wait for a connection only while
the database is reachable (``MemoryPool.reachable_connection``).

Schema set-up (the stock migrations, then the archive's table) runs once across processes under an
advisory lock that waiters poll with ``pg_try_advisory_xact_lock``: a waiter blocked
in ``pg_advisory_lock`` holds a snapshot all along, and the migrations'
``CREATE INDEX CONCURRENTLY`` waits for every snapshot: replicas starting
together on a fresh database would deadlock. The lock is held by a transaction of its
own connection, left open while the migrations run on the pool: a transaction keeps
its server connection behind PgBouncer (a session lock would stay behind on whichever
server connection took it), and an idle READ COMMITTED transaction holds no snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import ChannelVersions, Checkpoint
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.serde.base import SerializerProtocol
from psycopg import AsyncConnection, AsyncCursor, sql
from psycopg.pq import TransactionStatus
from psycopg.types.json import Jsonb

from aimind_memory.memory.storage.archive import ArchiveEntry
from aimind_memory.memory.storage.archive import postgres as archive_sql
from aimind_memory.memory.storage.archive.postgres import PostgresArchive
from aimind_memory.memory.storage.base import UNCHANGED, Backend, Head, _Unchanged
from aimind_memory.memory.storage.locks import lock_key
from aimind_memory.memory.storage.pg_pool import (
    CONNECTION_KWARGS,
    DatabaseUnreachable,
    DictConnection,
    MemoryPool,
    open_pg_pool,
    opened,
    unreachable_error,
)

# --- memory threads ------------------------------------------------------------------------

LATEST_SQL = """
SELECT c.checkpoint_id,
  CASE WHEN c.checkpoint_id = %(known)s THEN NULL ELSE c.checkpoint END AS checkpoint,
  CASE WHEN c.checkpoint_id = %(known)s THEN NULL ELSE c.metadata END AS metadata,
  CASE WHEN c.checkpoint_id = %(known)s THEN NULL ELSE (
    SELECT array_agg(array[bl.channel::bytea, bl.type::bytea, bl.blob])
    FROM jsonb_each_text(c.checkpoint -> 'channel_versions') AS v
    JOIN checkpoint_blobs bl
      ON bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns
      AND bl.channel = v.key AND bl.version = v.value
  ) END AS blobs
FROM checkpoints c
WHERE c.thread_id = %(tid)s AND c.checkpoint_ns = ''
ORDER BY c.checkpoint_id DESC LIMIT 1
"""
"""The head in one query; only its id when it is the one the caller already holds."""

_LATEST_ID = sql.SQL(
    "(SELECT checkpoint_id FROM checkpoints WHERE thread_id = {tid} AND checkpoint_ns = '' "
    "ORDER BY checkpoint_id DESC LIMIT 1)"
)
BEGIN_SQL = sql.SQL("BEGIN ISOLATION LEVEL READ COMMITTED")
COMMIT_SQL = sql.SQL("COMMIT")
THREAD_LOCK_SQL = sql.SQL("SELECT pg_advisory_xact_lock({key})")
"""Writers (and the clear) of one thread queue here, so "latest is the parent" holds
until commit."""
PUT_BLOBS_SQL = sql.SQL(
    "INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) "
    "VALUES {rows} ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING"
)
PUT_CHECKPOINT_SQL = sql.SQL(
    "INSERT INTO checkpoints "
    "(thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata) "
    "SELECT {tid}, '', {cid}, {parent}, {checkpoint}, {metadata} "
    "WHERE {latest} IS NOT DISTINCT FROM {parent} "
    "RETURNING checkpoint_id AS written_id"
)
_WRITTEN = sql.SQL(
    "EXISTS (SELECT 1 FROM checkpoints WHERE thread_id = {tid} AND checkpoint_ns = '' "
    "AND checkpoint_id = {cid})"
)
PRUNE_SQL = (
    sql.SQL(
        "DELETE FROM checkpoints WHERE thread_id = {tid} AND checkpoint_ns = '' "
        "AND checkpoint_id < {cid} AND {written}"
    ),
    sql.SQL(
        "DELETE FROM checkpoint_blobs WHERE thread_id = {tid} AND checkpoint_ns = '' "
        "AND (channel, version) NOT IN (SELECT key, value FROM jsonb_each_text({versions})) "
        "AND {written}"
    ),
)
"""After a put, in its transaction: only the new checkpoint and the blobs it uses remain
(ids grow from parent to child, so every other checkpoint of the thread is older)."""
DELETE_THREAD_SQL = tuple(
    sql.SQL(f"DELETE FROM {table} WHERE thread_id = {{tid}}")
    for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
)

# --- schema set-up ---------------------------------------------------------------------------

SETUP_LOCK_KEY = 0x41494D494E44
""""AIMIND": one process runs the migrations at a time."""
MIGRATIONS_TABLE_SQL = "SELECT to_regclass('checkpoint_migrations') IS NOT NULL AS present"
MIGRATED_SQL = "SELECT coalesce(max(v), -1) AS v FROM checkpoint_migrations"
"""The stock migrations' latest applied version (-1: none)."""
TRY_SETUP_LOCK_SQL = sql.SQL("SELECT pg_try_advisory_xact_lock({key}) AS taken").format(
    key=sql.Literal(SETUP_LOCK_KEY)
)
"""No parameters, so psycopg sends it as a simple query: a statement with parameters
leaves its portal open to the end of the transaction, with its snapshot, and the
migrations' ``CREATE INDEX CONCURRENTLY`` would wait for it forever."""
SETUP_POLL_S = 0.02
SETUP_POLL_MAX_S = 0.5

# --- capabilities the stock saver lacks -------------------------------------------------------

RUN_CHECKPOINTS_SQL = """
SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints
WHERE metadata ->> 'run_id' = ANY(%(runs)s)
"""
DELETE_CHECKPOINTS_SQL = """
DELETE FROM checkpoints WHERE thread_id = %(tid)s AND checkpoint_ns = %(ns)s
AND checkpoint_id = ANY(%(ids)s)
"""
DELETE_WRITES_SQL = """
DELETE FROM checkpoint_writes WHERE thread_id = %(tid)s AND checkpoint_ns = %(ns)s
AND checkpoint_id = ANY(%(ids)s)
"""
DELETE_UNUSED_BLOBS_SQL = """
DELETE FROM checkpoint_blobs b WHERE b.thread_id = ANY(%(tids)s) AND NOT EXISTS (
  SELECT 1 FROM checkpoints c
  WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
  AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version
)
"""
COPY_THREAD_SQL = (
    """
    INSERT INTO checkpoints
      (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
    SELECT %(dst)s, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata
    FROM checkpoints WHERE thread_id = %(src)s
    ON CONFLICT DO NOTHING
    """,
    """
    INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
    SELECT %(dst)s, checkpoint_ns, channel, version, type, blob
    FROM checkpoint_blobs WHERE thread_id = %(src)s
    ON CONFLICT DO NOTHING
    """,
    """
    INSERT INTO checkpoint_writes
      (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob)
    SELECT %(dst)s, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob
    FROM checkpoint_writes WHERE thread_id = %(src)s
    ON CONFLICT DO NOTHING
    """,
)


def _inline(value: Any) -> bool:
    """Values ``AsyncPostgresSaver`` keeps in the checkpoint row rather than as blobs."""
    return value is None or isinstance(value, str | int | float | bool)


class PostgresServerSaver(AsyncPostgresSaver):
    """``AsyncPostgresSaver`` as released, plus ``adelete_for_runs`` and ``acopy_thread``.

    Both follow the stock saver's discipline: its instance lock, a pooled
    connection (``self.conn`` is the pool), one transaction.
    """

    conn: MemoryPool  # the stock saver also takes a single connection; ours is always the pool

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Drop the checkpoints a run wrote (and their writes and now-unused blobs)."""
        runs = [str(r) for r in run_ids]
        if not runs:
            return
        async with self.lock, self.conn.connection() as conn, conn.transaction():
            cur = await conn.execute(RUN_CHECKPOINTS_SQL, {"runs": runs})
            doomed: dict[tuple[str, str], list[str]] = {}
            for row in await cur.fetchall():
                key = (row["thread_id"], row["checkpoint_ns"])
                doomed.setdefault(key, []).append(row["checkpoint_id"])
            for (tid, ns), ids in doomed.items():
                for statement in (DELETE_CHECKPOINTS_SQL, DELETE_WRITES_SQL):
                    await conn.execute(statement, {"tid": tid, "ns": ns, "ids": ids})
            if doomed:
                tids = sorted({tid for tid, _ in doomed})
                await conn.execute(DELETE_UNUSED_BLOBS_SQL, {"tids": tids})

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint, blob and write of a thread, ids and metadata as they are."""
        params = {"src": str(source_thread_id), "dst": str(target_thread_id)}
        async with self.lock, self.conn.connection() as conn, conn.transaction():
            for statement in COPY_THREAD_SQL:
                await conn.execute(statement, params)


class PostgresMemoryThreads:
    """Memory threads over the pool, without the stock saver's instance-wide lock:
    sessions never queue behind each other, and one session's writers queue on
    its advisory lock only for the instant of their own transaction."""

    def __init__(self, pool: MemoryPool, serde: SerializerProtocol) -> None:
        self.pool = pool
        self.serde = serde

    async def latest(self, thread_id: str, known_id: str | None) -> Head | _Unchanged | None:
        async with self.pool.reachable_connection() as conn:
            cur = await conn.execute(LATEST_SQL, {"tid": thread_id, "known": known_id})
            row = await cur.fetchone()
        if row is None:
            return None
        if row["checkpoint"] is None:
            return UNCHANGED
        checkpoint: Checkpoint = row["checkpoint"]  # decoded for this call alone
        values = dict(checkpoint.get("channel_values") or {})
        for channel, type_, blob in row["blobs"] or ():
            if type_.decode() != "empty":
                values[channel.decode()] = self.serde.loads_typed((type_.decode(), blob))
        checkpoint["channel_values"] = values
        return Head(checkpoint, row["metadata"])

    async def put(
        self,
        thread_id: str,
        head: Head,
        parent_id: str | None,
        new_versions: ChannelVersions,
        *,
        prune: bool,
        archive: Sequence[ArchiveEntry] = (),
        archive_keep: int | None = None,
    ) -> bool:
        checkpoint = head.checkpoint
        values = checkpoint["channel_values"]
        blob_rows = [
            sql.SQL("({})").format(
                sql.SQL(", ").join(
                    map(
                        sql.Literal,
                        (thread_id, "", channel, version, *self.serde.dumps_typed(values[channel])),
                    )
                )
            )
            for channel, version in new_versions.items()
            if channel in values and not _inline(values[channel])
        ]
        inline = {k: v for k, v in values.items() if _inline(v)}
        names = {
            "tid": sql.Literal(thread_id),
            "cid": sql.Literal(head.id),
            "parent": sql.Literal(parent_id),
        }
        statements = [_thread_lock(thread_id)]
        if blob_rows:
            statements.append(PUT_BLOBS_SQL.format(rows=sql.SQL(", ").join(blob_rows)))
        statements.append(
            PUT_CHECKPOINT_SQL.format(
                **names,
                checkpoint=sql.Literal(Jsonb({**checkpoint, "channel_values": inline})),
                metadata=sql.Literal(Jsonb(head.metadata)),
                latest=_LATEST_ID.format(tid=names["tid"]),
            )
        )
        written_ids = _WRITTEN.format(tid=names["tid"], cid=names["cid"])
        statements += archive_sql.insert_statements(thread_id, archive, archive_keep, written_ids)
        if prune:
            versions = {k: str(v) for k, v in checkpoint["channel_versions"].items()}
            statements += [
                s.format(**names, written=written_ids, versions=sql.Literal(Jsonb(versions)))
                for s in PRUNE_SQL
            ]
        async with _transaction(self.pool, statements) as cur:
            written = False
            while True:
                if cur.description and cur.description[0].name == "written_id":
                    written = await cur.fetchone() is not None
                if not cur.nextset():
                    return written

    async def delete(self, thread_id: str) -> None:
        """The thread's rows, in one transaction under its lock: a put racing the clear
        commits wholly before it (and is cleared) or after it (on the empty thread)."""
        tid = sql.Literal(thread_id)
        statements = [
            _thread_lock(thread_id),
            *(s.format(tid=tid) for s in DELETE_THREAD_SQL),
            *archive_sql.delete_statements(thread_id),
        ]
        async with _transaction(self.pool, statements):
            pass

    async def scrub(self) -> None:
        """Nothing: a deleted row is in no row a query or ``pg_dump`` reads; its dead tuple
        stays in the table's pages until VACUUM reuses them."""


def _thread_lock(thread_id: str) -> sql.Composable:
    return THREAD_LOCK_SQL.format(key=sql.Literal(lock_key(thread_id)))


@asynccontextmanager
async def _transaction(
    pool: MemoryPool, statements: Sequence[sql.Composable]
) -> AsyncIterator[AsyncCursor[Any]]:
    """Run ``statements`` as one READ COMMITTED transaction in one Query message (one
    round trip); yields the cursor over their results."""
    async with pool.reachable_connection() as conn:
        query = sql.SQL("; ").join([BEGIN_SQL, *statements, COMMIT_SQL]).as_bytes(conn)
        try:
            cur = await conn.execute(query, prepare=False)
        except BaseException:
            # A failed statement leaves the explicit transaction open and aborted.
            if conn.info.transaction_status == TransactionStatus.INERROR:
                with contextlib.suppress(Exception):
                    await conn.rollback()
            raise
        yield cur


# --- schema set-up ---------------------------------------------------------------------------


async def _migrated(conn: DictConnection) -> bool:
    """Every stock migration is applied already (the usual start: no lock needed)."""
    row = await (await conn.execute(MIGRATIONS_TABLE_SQL)).fetchone()
    if row is None or not row["present"]:
        return False
    row = await (await conn.execute(MIGRATED_SQL)).fetchone()
    return row is not None and row["v"] >= len(AsyncPostgresSaver.MIGRATIONS) - 1


@asynccontextmanager
async def _setup_lock(url: str) -> AsyncIterator[None]:
    """Hold the setup lock: polled (between two tries this process holds no snapshot, so
    the holder's ``CREATE INDEX CONCURRENTLY`` never waits on it), then held by an open
    transaction of a connection of its own until the block ends."""
    kwargs = {**CONNECTION_KWARGS, "autocommit": False}
    async with await AsyncConnection.connect(url, **kwargs) as conn:
        delay = SETUP_POLL_S
        while True:
            row = await (await conn.execute(TRY_SETUP_LOCK_SQL, prepare=False)).fetchone()
            if row is not None and row["taken"]:
                break
            await conn.rollback()
            await asyncio.sleep(delay)
            delay = min(delay * 2, SETUP_POLL_MAX_S)
        try:
            yield
        finally:
            await conn.rollback()


async def _archived(conn: DictConnection) -> bool:
    """The archive's table exists."""
    row = await (await conn.execute(archive_sql.PRESENT_SQL)).fetchone()
    return row is not None and bool(row["present"])


async def _setup(pool: MemoryPool, url: str) -> None:
    """Run the stock migrations and make the archive's table once across processes (none
    of it when it is all there)."""
    async with pool.reachable_connection() as conn:
        if await _migrated(conn) and await _archived(conn):
            return
    async with _setup_lock(url), pool.reachable_connection() as conn:
        if not await _migrated(conn):
            await AsyncPostgresSaver(conn).setup()
        if not await _archived(conn):
            async with conn.transaction():
                for statement in archive_sql.SCHEMA_SQL:
                    await conn.execute(statement, prepare=False)


@asynccontextmanager
async def open_postgres(url: str) -> AsyncIterator[Backend]:
    async with open_pg_pool(url) as pool:
        try:
            await _setup(pool, url)
        except DatabaseUnreachable:
            # The pool only knows that it could not connect; one connection says why (a
            # wrong host, user or database name), or the database was back meanwhile.
            raise await unreachable_error(url) from None
        opened(pool)
        saver = PostgresServerSaver(pool)
        threads = PostgresMemoryThreads(pool, saver.serde)
        yield Backend("postgres", saver, threads, PostgresArchive(pool))
