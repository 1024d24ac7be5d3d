"""Per-thread write locks: read-modify-write of one memory thread is never interleaved (SPEC §4).

In-process an ``asyncio.Lock`` per thread id; across processes a byte-range
``lockf`` on a lock file beside the SQLite database, or a Postgres advisory
transaction lock (released by the server if the holder dies).
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import hashlib
import os
import weakref
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext, suppress
from contextvars import ContextVar
from pathlib import Path
from typing import Protocol

from psycopg import sql
from psycopg_pool import AsyncConnectionPool

_POLL_S = 0.005
_POLL_MAX_S = 0.05


def lock_key(thread_id: str, bits: int = 63) -> int:
    """A stable non-negative integer for ``thread_id`` (advisory lock key / file offset)."""
    digest = hashlib.blake2b(thread_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - bits)


class ThreadLocks(Protocol):
    def hold(self, thread_id: str) -> AbstractAsyncContextManager[None]: ...


class LocalLocks:
    """One asyncio.Lock per thread id, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def _lock(self, thread_id: str) -> asyncio.Lock:
        lock = self._locks.get(thread_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[thread_id] = lock
        return lock

    def _across_processes(self, thread_id: str) -> AbstractAsyncContextManager[None]:
        return nullcontext()

    @asynccontextmanager
    async def hold(self, thread_id: str) -> AsyncIterator[None]:
        async with self._lock(thread_id), self._across_processes(thread_id):
            yield


class FileLocks(LocalLocks):
    """Adds a POSIX record lock per thread on ``<database>.lock`` for other processes.

    One descriptor per process stays open: closing any descriptor of a file
    drops all of the process's record locks on it.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def close(self) -> None:
        os.close(self._fd)

    @asynccontextmanager
    async def _across_processes(self, thread_id: str) -> AsyncIterator[None]:
        offset = lock_key(thread_id, bits=31)
        delay = _POLL_S
        while True:
            try:
                fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
                break
            except OSError as exc:
                if exc.errno not in (errno.EACCES, errno.EAGAIN):
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, _POLL_MAX_S)
        try:
            yield
        finally:
            fcntl.lockf(self._fd, fcntl.LOCK_UN, 1, offset)


class PostgresLocks(LocalLocks):
    """Adds ``pg_advisory_xact_lock`` on a connection of a pool kept for locks only.

    A separate pool means a lock holder never waits for a connection that
    another lock holder is sitting on.
    """

    def __init__(self, pool: AsyncConnectionPool) -> None:
        super().__init__()
        self._pool = pool

    @asynccontextmanager
    async def _across_processes(self, thread_id: str) -> AsyncIterator[None]:
        # BEGIN, the lock and a look at the thread's latest checkpoint id go in one round
        # trip (a simple query, the key and the id literals); COMMIT/ROLLBACK releases the
        # lock. Should the end not arrive (cancelled, connection lost), the pool rolls the
        # connection back or drops it, and the lock goes too.
        acquire = sql.SQL(
            "BEGIN; SELECT pg_advisory_xact_lock({key}); "
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = {tid} "
            "AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1"
        ).format(key=sql.Literal(lock_key(thread_id)), tid=sql.Literal(thread_id))
        async with self._pool.connection() as conn:
            cur = await conn.execute(acquire, prepare=False)
            while cur.nextset():
                pass
            row = await cur.fetchone()
            seen = _SEEN_UNDER_LOCK.set(
                (thread_id, str(row["checkpoint_id"] if isinstance(row, dict) else row[0]))
                if row
                else (thread_id, None)
            )
            try:
                yield
            except BaseException:
                with suppress(Exception):
                    await conn.execute("ROLLBACK")
                raise
            finally:
                _SEEN_UNDER_LOCK.reset(seen)
            await conn.execute("COMMIT")


_SEEN_UNDER_LOCK: ContextVar[tuple[str, str | None] | None] = ContextVar(
    "aimind_latest_seen_under_lock", default=None
)
_NOT_SEEN = (False, None)


def latest_seen_under_lock(thread_id: str) -> tuple[bool, str | None]:
    """(True, latest checkpoint id or None) once, if this task's lock on ``thread_id`` just
    read it while taking the lock; else (False, None). Taken once: after the holder
    writes, the id it saw is no longer the latest."""
    seen = _SEEN_UNDER_LOCK.get()
    if seen is None or seen[0] != thread_id:
        return _NOT_SEEN
    _SEEN_UNDER_LOCK.set(None)
    return True, seen[1]
