"""Per-thread write locks: read-modify-write of one memory thread is never interleaved (SPEC §4).

In-process an ``asyncio.Lock`` per thread id; across processes (and across
services in one process) a byte-range open-file-description lock on a lock file
beside the SQLite database, or a Postgres advisory transaction lock (released
by the server if the holder dies).
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import hashlib
import os
import struct
import weakref
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from psycopg import sql
from psycopg.pq import TransactionStatus
from psycopg_pool import AsyncConnectionPool

_POLL_S = 0.005
_POLL_MAX_S = 0.05


def lock_key(thread_id: str, bits: int = 63) -> int:
    """A stable non-negative integer for ``thread_id`` (advisory lock key / file offset)."""
    digest = hashlib.blake2b(thread_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - bits)


@dataclass(frozen=True, slots=True)
class Held:
    """What taking a lock learned on the way: the thread's latest checkpoint id.

    Postgres reads it in the lock's own round trip, so the store can skip asking.
    """

    looked: bool = False
    latest_checkpoint_id: str | None = None
    connection: Any = None
    """Postgres: the connection whose open transaction holds the lock. A write on it
    may end with the COMMIT itself (the lock goes with it); else leaving commits."""


NOTHING_SEEN = Held()


class ThreadLocks(Protocol):
    def hold(self, thread_id: str) -> AbstractAsyncContextManager[Held]: ...


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

    def _across_processes(self, thread_id: str) -> AbstractAsyncContextManager[Held]:
        return nullcontext(NOTHING_SEEN)

    @asynccontextmanager
    async def hold(self, thread_id: str) -> AsyncIterator[Held]:
        async with self._lock(thread_id), self._across_processes(thread_id) as held:
            yield held


class FileLocks(LocalLocks):
    """Adds a record lock per thread on ``<database>.lock``.

    Open-file-description locks (Linux) belong to this instance's descriptor,
    so they exclude other processes *and* other services of this process;
    elsewhere POSIX ``lockf`` locks exclude other processes only.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def close(self) -> None:
        os.close(self._fd)

    def _try_lock(self, offset: int, kind: int) -> None:
        if _OFD_SETLK is None:
            fcntl.lockf(self._fd, kind | (fcntl.LOCK_NB if kind != fcntl.LOCK_UN else 0), 1, offset)
            return
        l_type = {fcntl.LOCK_EX: fcntl.F_WRLCK, fcntl.LOCK_UN: fcntl.F_UNLCK}[kind]
        fcntl.fcntl(self._fd, _OFD_SETLK, struct.pack(_FLOCK, l_type, os.SEEK_SET, offset, 1, 0))

    @asynccontextmanager
    async def _across_processes(self, thread_id: str) -> AsyncIterator[Held]:
        offset = lock_key(thread_id, bits=31)
        delay = _POLL_S
        while True:
            try:
                self._try_lock(offset, fcntl.LOCK_EX)
                break
            except OSError as exc:
                if exc.errno not in (errno.EACCES, errno.EAGAIN):
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, _POLL_MAX_S)
        try:
            yield NOTHING_SEEN
        finally:
            self._try_lock(offset, fcntl.LOCK_UN)


_OFD_SETLK: int | None = getattr(fcntl, "F_OFD_SETLK", None)
_FLOCK = "hhqqi4x"  # struct flock on Linux: l_type, l_whence, l_start, l_len, l_pid (0 for OFD)


class PostgresLocks(LocalLocks):
    """Adds ``pg_advisory_xact_lock`` on a connection of a pool kept for locks only.

    A separate pool means a lock holder never waits for a connection that
    another lock holder is sitting on.
    """

    def __init__(self, pool: AsyncConnectionPool) -> None:
        super().__init__()
        self._pool = pool

    @asynccontextmanager
    async def _across_processes(self, thread_id: str) -> AsyncIterator[Held]:
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
            latest = str(row["checkpoint_id"] if isinstance(row, dict) else row[0]) if row else None
            try:
                yield Held(looked=True, latest_checkpoint_id=latest, connection=conn)
            except BaseException:
                with suppress(Exception):
                    await conn.execute("ROLLBACK")
                raise
            if conn.info.transaction_status != TransactionStatus.IDLE:  # no write committed it
                await conn.execute("COMMIT")
