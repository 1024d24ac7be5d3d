"""SQLite, the embedded default: the stock ``AsyncSqliteSaver`` for the server, memory's own
connection beside it.

All SQL of this backend is in this module. The server's saver is
``AsyncSqliteSaver`` as released, plus what it lacks (``aprune``,
``adelete_for_runs``, ``acopy_thread``), on its own connection under its own
lock. Memory threads use two more connections in autocommit mode, shared by every
session: one reads, one writes. A turn is one ``INSERT … SELECT … WHERE latest IS
parent`` statement, which SQLite runs atomically under its write lock. The one
exception is a write that folds messages out of the window: it and their archive rows
(``memory.storage.archive.sqlite``) are one ``BEGIN IMMEDIATE`` transaction, during
which the writer runs nothing else (its statements queue on ``_writer_lock``), so no
other session's statement joins it or shares its fate.

Writers of one file wait for each other without SQLite's busy handler where they can:
an agent's turn writes memory while its saver — on another connection, often another
saver instance than memory's — commits the model step's checkpoint in the background,
and the busy handler sleeps 1, then 2, then 5 ms however soon that commit is done (8 ms
for a commit of one), on either side. In one process, every saver and memory writer of
the file take their turn in its ``write_queue`` (an asyncio lock per event loop and
file, waited for at most ``SQLITE_QUEUE_WAIT_S``); across processes, memory's writer has
no busy timeout: a write refused as busy (nothing done) is sent again after
``SQLITE_WRITE_POLL_S``, doubling up to ``SQLITE_WRITE_POLL_MAX_S``, for
``sqlite_busy_timeout_s`` in all. Across
processes, a record lock per thread (``memory.storage.locks``) keeps writers of one
session in line and the shared stamps (``memory.storage.stamps``) let a reader skip the
query when its copy is still the latest. The database file is created 0600 (SQLite
gives its ``-wal`` and ``-shm`` the same mode) and otherwise never opened but through
SQLite: closing any other descriptor of it would drop the locks this process's
connections hold (POSIX locks are per process), and the next process to close the
database would delete the live WAL under them (contract §10).

Forgetting leaves nothing behind (contract §9a): both connections delete with
``secure_delete`` on, so a deleted row's bytes are zeroed in its page and in the
free pages it leaves; ``scrub`` then merges the archive index's segments (a deleted
row's words stay in them until then), checkpoints the WAL into the file and empties
it, since the WAL's older frames still hold the pages as they were.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite
from langgraph.checkpoint.base import ChannelVersions
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from aimind_memory.memory.config.limits import (
    SCRUB_ATTEMPTS,
    SCRUB_RETRY_S,
    SQLITE_QUEUE_WAIT_S,
    SQLITE_SETUP_ATTEMPTS,
    SQLITE_SETUP_RETRY_S,
    SQLITE_WRITE_POLL_MAX_S,
    SQLITE_WRITE_POLL_S,
)
from aimind_memory.memory.config.settings import memory_settings
from aimind_memory.memory.errors import ScrubBusyError
from aimind_memory.memory.storage import sqlite_path
from aimind_memory.memory.storage.archive import ArchiveEntry
from aimind_memory.memory.storage.archive import sqlite as archive_sql
from aimind_memory.memory.storage.archive.sqlite import SqliteArchive
from aimind_memory.memory.storage.base import UNCHANGED, Backend, Head, _Unchanged
from aimind_memory.memory.storage.locks import FileLocks
from aimind_memory.memory.storage.paths import create_private
from aimind_memory.memory.storage.stamps import SharedStamps

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

# --- memory threads ------------------------------------------------------------------------

LATEST_SQL = """
SELECT checkpoint_id,
  CASE WHEN checkpoint_id IS :known THEN NULL ELSE type END,
  CASE WHEN checkpoint_id IS :known THEN NULL ELSE checkpoint END,
  CASE WHEN checkpoint_id IS :known THEN NULL ELSE metadata END
FROM checkpoints WHERE thread_id = :tid AND checkpoint_ns = ''
ORDER BY checkpoint_id DESC LIMIT 1
"""
PUT_SQL = """
INSERT INTO checkpoints
  (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
SELECT :tid, '', :cid, :parent, :type, :checkpoint, :metadata
WHERE (
  SELECT checkpoint_id FROM checkpoints WHERE thread_id = :tid AND checkpoint_ns = ''
  ORDER BY checkpoint_id DESC LIMIT 1
) IS :parent
RETURNING checkpoint_id
"""
"""One statement, so one atomic step under SQLite's write lock: the check and the insert
see the same thread."""
PRUNE_SQL = """
DELETE FROM checkpoints WHERE thread_id = :tid AND checkpoint_ns = '' AND checkpoint_id < :cid
"""
"""Ids grow from parent to child: every checkpoint older than the one just written goes."""
DELETE_THREAD_SQL = (
    "DELETE FROM checkpoints WHERE thread_id = :tid",
    "DELETE FROM writes WHERE thread_id = :tid",
    *archive_sql.DELETE_SQL,
)
BEGIN_SQL = "BEGIN IMMEDIATE"
COMMIT_SQL = "COMMIT"
ROLLBACK_SQL = "ROLLBACK"

SECURE_DELETE_SQL = "PRAGMA secure_delete = ON"
"""Per connection: what it deletes is overwritten with zeros, free pages included."""
WAL_TRUNCATE_SQL = "PRAGMA wal_checkpoint(TRUNCATE)"
"""Copy every WAL frame into the database file and cut the WAL to zero bytes; its first
column is 1 when a reader elsewhere kept it from finishing."""


# --- capabilities the stock saver lacks -------------------------------------------------------

PRUNE_STRATEGIES = ("keep_latest", "delete")
_THREADS = "SELECT value FROM json_each(:tids)"
DELTA_THREADS_SQL = f"""
SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id IN ({_THREADS}) AND (
  json_type(CAST(metadata AS TEXT), '$.counters_since_delta_snapshot') IS NOT NULL
  OR json_type(CAST(metadata AS TEXT), '$.delta_writes_versioned') IS NOT NULL
)
"""
"""Threads of a ``DeltaChannel`` graph: their history lives in older rows (as upstream's
Postgres saver, ``keep_latest`` refuses them)."""
KEEP_LATEST_SQL = (
    f"""
    DELETE FROM checkpoints WHERE thread_id IN ({_THREADS}) AND checkpoint_id < (
      SELECT max(c.checkpoint_id) FROM checkpoints c
      WHERE c.thread_id = checkpoints.thread_id AND c.checkpoint_ns = checkpoints.checkpoint_ns
    )
    """,
    f"""
    DELETE FROM writes WHERE thread_id IN ({_THREADS}) AND NOT EXISTS (
      SELECT 1 FROM checkpoints c WHERE c.thread_id = writes.thread_id
      AND c.checkpoint_ns = writes.checkpoint_ns AND c.checkpoint_id = writes.checkpoint_id
    )
    """,
)
DELETE_THREADS_SQL = (
    f"DELETE FROM checkpoints WHERE thread_id IN ({_THREADS})",
    f"DELETE FROM writes WHERE thread_id IN ({_THREADS})",
)
_RUN_CHECKPOINTS = """
SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints
WHERE json_extract(CAST(metadata AS TEXT), '$.run_id') IN (SELECT value FROM json_each(:runs))
"""
DELETE_FOR_RUNS_SQL = (
    f"""
    DELETE FROM writes WHERE (thread_id, checkpoint_ns, checkpoint_id) IN ({_RUN_CHECKPOINTS})
    """,
    f"""
    DELETE FROM checkpoints
    WHERE (thread_id, checkpoint_ns, checkpoint_id) IN ({_RUN_CHECKPOINTS})
    """,
)
COPY_THREAD_SQL = (
    """
    INSERT OR IGNORE INTO checkpoints
      (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
    SELECT :dst, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata
    FROM checkpoints WHERE thread_id = :src
    """,
    """
    INSERT OR IGNORE INTO writes
      (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value)
    SELECT :dst, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value
    FROM writes WHERE thread_id = :src
    """,
)


_QUEUES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]] = (
    weakref.WeakKeyDictionary()
)


def write_queue(path: Path) -> asyncio.Lock:
    """This event loop's queue of the writers of the database file at ``path``: every saver
    and memory writer this process opens on it (a server's saver and memory's service are
    opened apart, each with its connections)."""
    queues = _QUEUES.setdefault(asyncio.get_running_loop(), {})
    return queues.setdefault(str(path), asyncio.Lock())


@asynccontextmanager
async def _queued(queue: asyncio.Lock | None) -> AsyncIterator[None]:
    """The block, holding ``queue`` if it comes within ``SQLITE_QUEUE_WAIT_S`` (else
    without it: a writer whose turn is held up by a holder waiting on something of its
    own, the saver's lock behind an ``alist`` whose caller writes, must not deadlock)."""
    if queue is None:
        yield
        return
    try:
        async with asyncio.timeout(SQLITE_QUEUE_WAIT_S):
            await queue.acquire()
    except TimeoutError:
        yield
        return
    try:
        yield
    finally:
        queue.release()


class SqliteServerSaver(AsyncSqliteSaver):
    """``AsyncSqliteSaver`` as released, plus ``aprune``, ``adelete_for_runs`` and
    ``acopy_thread``, each one transaction on the saver's connection under its lock.

    Its writes take their turn in the file's ``write_queue`` (``SqliteMemoryThreads``
    says why)."""

    queue: asyncio.Lock | None = None

    async def aput(self, *args: Any, **kwargs: Any) -> RunnableConfig:
        async with _queued(self.queue):
            return await super().aput(*args, **kwargs)

    async def aput_writes(self, *args: Any, **kwargs: Any) -> None:
        async with _queued(self.queue):
            await super().aput_writes(*args, **kwargs)

    async def adelete_thread(self, thread_id: str) -> None:
        async with _queued(self.queue):
            await super().adelete_thread(thread_id)

    async def _transaction(self, statements: Sequence[str], params: dict[str, Any]) -> None:
        await self.setup()
        async with _queued(self.queue), self.lock:
            try:
                for statement in statements:
                    await self.conn.execute_fetchall(statement, params)
            except BaseException:
                await self.conn.rollback()
                raise
            await self.conn.commit()

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """``keep_latest``: each namespace keeps its latest checkpoint (and that one's
        writes); ``delete``: the threads go. As upstream, a thread that uses a
        ``DeltaChannel`` cannot be pruned to its latest (NotImplementedError)."""
        if isinstance(thread_ids, str):
            raise TypeError("thread_ids must be a sequence of thread IDs, not a str")
        if strategy not in PRUNE_STRATEGIES:
            raise ValueError(f"Unknown prune strategy: {strategy!r}")
        tids = json.dumps([str(t) for t in thread_ids])
        if tids == "[]":
            return
        if strategy == "delete":
            await self._transaction(DELETE_THREADS_SQL, {"tids": tids})
            return
        await self.setup()
        async with self.lock:
            delta = await self.conn.execute_fetchall(DELTA_THREADS_SQL, {"tids": tids})
        if delta:
            names = ", ".join(sorted(row[0] for row in delta))
            raise NotImplementedError(
                f"keep_latest can't prune threads that use a DeltaChannel: {names}"
            )
        await self._transaction(KEEP_LATEST_SQL, {"tids": tids})

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Drop the checkpoints the runs wrote, and their writes."""
        runs = json.dumps([str(r) for r in run_ids])
        if runs != "[]":
            await self._transaction(DELETE_FOR_RUNS_SQL, {"runs": runs})

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint and write of a thread, ids and metadata as they are."""
        params = {"src": str(source_thread_id), "dst": str(target_thread_id)}
        await self._transaction(COPY_THREAD_SQL, params)


class SqliteMemoryThreads:
    """Memory threads on connections of their own, in autocommit mode: ``conn`` reads (and
    scrubs), ``writer`` (no busy timeout) writes through ``_write`` and ``_folding``,
    polling for up to ``busy_timeout_s`` (read once, when the backend opens, as the
    connections' own timeouts are: not from the environment at every write)."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        writer: aiosqlite.Connection,
        serde: SerializerProtocol,
        queue: asyncio.Lock | None = None,
        *,
        busy_timeout_s: float,
    ) -> None:
        self.conn = conn
        self.writer = writer
        self.serde = serde
        self.queue = queue
        self.busy_timeout_s = busy_timeout_s
        self._writer_lock = asyncio.Lock()
        """Held by each use of ``writer``: a transaction on it runs alone."""

    async def _polled[T](self, attempt: Callable[[], Awaitable[T]]) -> T:
        """``attempt()``, again while another connection holds the write lock (a busy
        statement does nothing), ``busy_timeout_s`` in all, then the busy error."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.busy_timeout_s
        delay = SQLITE_WRITE_POLL_S
        while True:
            try:
                return await attempt()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or loop.time() + delay > deadline:
                    raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, SQLITE_WRITE_POLL_MAX_S)

    async def _run(self, statement: str, params: dict[str, Any] | None = None) -> list[Any]:
        return list(await self.writer.execute_fetchall(statement, params or {}))

    async def _write(self, statement: str, params: dict[str, Any]) -> list[Any]:
        """``statement``'s rows, run on the writer (``_polled``)."""
        async with _queued(self.queue), self._writer_lock:
            return await self._polled(lambda: self._run(statement, params))

    async def _folding(
        self, put: dict[str, Any], archived: dict[str, Any], keep: int | None, prune: bool
    ) -> bool:
        """A write that folds messages out of the window: the checkpoint, its archive rows
        (trimmed to ``keep``) and the prune, one transaction; nothing if the put is refused."""
        async with _queued(self.queue), self._writer_lock:
            await self._polled(lambda: self._run(BEGIN_SQL))
            try:
                if not await self._run(PUT_SQL, put):
                    await self._run(ROLLBACK_SQL)
                    return False
                await self._run(archive_sql.INSERT_SQL, archived)
                if keep is not None:
                    await self._run(archive_sql.TRIM_SQL, {"tid": put["tid"], "keep": keep})
                if prune:
                    await self._run(PRUNE_SQL, {"tid": put["tid"], "cid": put["cid"]})
                await self._run(COMMIT_SQL)
            except BaseException:
                if self.writer.in_transaction:
                    await asyncio.shield(self._run(ROLLBACK_SQL))
                raise
            return True

    async def latest(self, thread_id: str, known_id: str | None) -> Head | _Unchanged | None:
        params = {"tid": thread_id, "known": known_id}
        rows = list(await self.conn.execute_fetchall(LATEST_SQL, params))
        if not rows:
            return None
        _, type_, blob, metadata = rows[0]
        if blob is None:
            return UNCHANGED
        checkpoint = self.serde.loads_typed((type_, blob))
        return Head(checkpoint, json.loads(metadata) if metadata else {})

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
        type_, blob = self.serde.dumps_typed(head.checkpoint)
        params = {
            "tid": thread_id,
            "cid": head.id,
            "parent": parent_id,
            "type": type_,
            "checkpoint": blob,
            "metadata": json.dumps(head.metadata, ensure_ascii=False).encode(),
        }
        if archive:
            archived = archive_sql.insert_params(thread_id, archive)
            return await self._folding(params, archived, archive_keep, prune)
        if not await self._write(PUT_SQL, params):
            return False
        if prune:
            await self._write(PRUNE_SQL, {"tid": thread_id, "cid": head.id})
        return True

    async def delete(self, thread_id: str) -> None:
        """One statement on memory's own autocommit writer: the thread's checkpoints go in
        one atomic step, and no transaction is held that other sessions' writes could
        join (or be rolled back with). Memory reads nothing else; ``writes`` rows (never
        memory's own) go in a second statement, its archive in a third."""
        for statement in DELETE_THREAD_SQL:
            await self._write(statement, {"tid": thread_id})

    async def scrub(self) -> None:
        """Leave no deleted text in the files: the WAL's frames go into the database file
        (whose deleted cells ``secure_delete`` zeroed) and the WAL is cut to nothing. The
        whole database's WAL, so deletes on the server saver's connection are covered too.
        A reader in another process holding an older snapshot keeps the checkpoint from
        finishing: tried again, then ScrubBusyError. First the archive index's segments
        are merged into one, so a deleted row's words leave them."""
        await self._write(archive_sql.OPTIMIZE_SQL, {})
        for attempt in range(SCRUB_ATTEMPTS):
            (busy, *_), *_ = await self.conn.execute_fetchall(WAL_TRUNCATE_SQL)
            if not busy:
                return
            await asyncio.sleep(SCRUB_RETRY_S * (attempt + 1))
        raise ScrubBusyError("the WAL could not be emptied: other processes kept reading")


@asynccontextmanager
async def _connect(
    path: Path, *, autocommit: bool = True, waits: bool = True
) -> AsyncIterator[aiosqlite.Connection]:
    """A connection to the database (``autocommit``: no implicit transactions) that
    deletes securely; one that ``waits`` sleeps in SQLite's busy handler, up to
    ``sqlite_busy_timeout_s``, for a lock another connection holds (else: SQLITE_BUSY)."""
    timeout = memory_settings().sqlite_busy_timeout_s if waits else 0
    isolation = {"isolation_level": None} if autocommit else {}
    async with aiosqlite.connect(str(path), timeout=timeout, **isolation) as conn:
        await conn.execute_fetchall(SECURE_DELETE_SQL)
        yield conn


def _prepare_file(path: Path) -> None:
    """The folder, and the database file 0600 if it is new; an existing one is left alone
    (this process may hold it open through SQLite)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    create_private(path)


@asynccontextmanager
async def open_sqlite_saver(url: str) -> AsyncIterator[SqliteServerSaver]:
    """The server's saver on its own connection, tables set up."""
    path = sqlite_path(url)
    # Off the event loop: `langgraph dev` rejects blocking file-system calls in async code.
    await asyncio.to_thread(_prepare_file, path)
    async with _connect(path, autocommit=False) as conn:  # as the stock saver expects
        saver = SqliteServerSaver(conn)
        saver.queue = write_queue(path)
        await _set_up(saver)
        yield saver


_BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")
"""The error names (and their extended ones) of a database another connection holds."""


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    return str(getattr(exc, "sqlite_errorname", "")).startswith(_BUSY)


async def _set_up(saver: SqliteServerSaver) -> None:
    """The saver's tables, tried again while another process creating the same new file
    holds it (``SQLITE_SETUP_RETRY_S``'s note says why a busy timeout does not cover it)."""
    for attempt in range(SQLITE_SETUP_ATTEMPTS):
        try:
            await saver.setup()
            await saver.conn.executescript(archive_sql.SCHEMA_SQL)
            return
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or attempt == SQLITE_SETUP_ATTEMPTS - 1:
                raise
            await saver.conn.rollback()
            await asyncio.sleep(SQLITE_SETUP_RETRY_S * (attempt + 1))


@asynccontextmanager
async def open_sqlite(url: str) -> AsyncIterator[Backend]:
    """The saver, memory's connection, and the cross-process lock and stamp files."""
    path = sqlite_path(url)
    async with AsyncExitStack() as stack:
        saver = await stack.enter_async_context(open_sqlite_saver(url))
        conn = await stack.enter_async_context(_connect(path))
        writer = await stack.enter_async_context(_connect(path, waits=False))
        locks = await asyncio.to_thread(FileLocks, Path(f"{path}.lock"))
        stack.callback(locks.close)
        stamps = await asyncio.to_thread(SharedStamps, Path(f"{path}.stamps"))
        stack.callback(stamps.close)
        threads = SqliteMemoryThreads(
            conn,
            writer,
            saver.serde,
            queue=saver.queue,
            busy_timeout_s=memory_settings().sqlite_busy_timeout_s,
        )
        archive = SqliteArchive(conn)
        yield Backend("sqlite", saver, threads, archive, locks=locks, stamps=stamps)
