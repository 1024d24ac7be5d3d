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
        # BEGIN and the lock go in one round trip (a simple query, the key an int literal);
        # COMMIT/ROLLBACK releases it. Should the end not arrive (cancelled, connection
        # lost), the pool rolls the connection back or drops it, and the lock goes too.
        acquire = sql.SQL("BEGIN; SELECT pg_advisory_xact_lock({})").format(
            sql.Literal(lock_key(thread_id))
        )
        async with self._pool.connection() as conn:
            await conn.execute(acquire, prepare=False)
            try:
                yield
            except BaseException:
                with suppress(Exception):
                    await conn.execute("ROLLBACK")
                raise
            await conn.execute("COMMIT")
