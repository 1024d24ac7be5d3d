"""Per-thread write locks: read-modify-write of one memory thread is never interleaved
(contract §4).

The write itself is a compare-and-put on both databases (``MemoryThreads.put``:
under an advisory transaction lock on Postgres, one ``INSERT … SELECT`` statement
on SQLite), so no writer anywhere can lose another's turn. These
locks keep writers from doing the same work twice: in-process an
``asyncio.Lock`` per thread id; on SQLite also a byte-range
open-file-description lock on a lock file beside the database, so other
processes (and other services in this one) wait instead of building a turn
whose write would be refused.
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
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from pathlib import Path
from typing import Protocol

from aimind_memory.memory.storage.paths import open_private

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
    """Adds a record lock per thread on ``<database>.lock``.

    Open-file-description locks (Linux) belong to this instance's descriptor,
    so they exclude other processes *and* other services of this process;
    elsewhere POSIX ``lockf`` locks exclude other processes only.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = open_private(path)

    def close(self) -> None:
        os.close(self._fd)

    def _try_lock(self, offset: int, kind: int) -> None:
        if _OFD_SETLK is None:
            fcntl.lockf(self._fd, kind | (fcntl.LOCK_NB if kind != fcntl.LOCK_UN else 0), 1, offset)
            return
        l_type = {fcntl.LOCK_EX: fcntl.F_WRLCK, fcntl.LOCK_UN: fcntl.F_UNLCK}[kind]
        fcntl.fcntl(self._fd, _OFD_SETLK, struct.pack(_FLOCK, l_type, os.SEEK_SET, offset, 1, 0))

    @asynccontextmanager
    async def _across_processes(self, thread_id: str) -> AsyncIterator[None]:
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
            yield
        finally:
            self._try_lock(offset, fcntl.LOCK_UN)


_OFD_SETLK: int | None = getattr(fcntl, "F_OFD_SETLK", None)
_FLOCK = "hhqqi4x"  # struct flock on Linux: l_type, l_whence, l_start, l_len, l_pid (0 for OFD)
