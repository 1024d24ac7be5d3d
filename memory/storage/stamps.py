"""Shared stamps: every process on this machine can tell, without asking SQLite,
whether the copy of a memory thread it keeps is still the latest.

A file of ``STAMP_SLOTS`` 8-byte slots, mapped into every process that opens the
database. A thread's slot holds a stamp of its latest committed checkpoint id, or
0 while a write is in flight (or after a writer died mid-write). A writer, holding
the thread's file lock, clears the slot before it commits and stamps it after.
So a slot equal to the stamp of the kept checkpoint means no write to that thread
has started since: the kept copy is the latest, and a read can skip the
latest-id lookup. Anything else (0, another thread's stamp in a shared slot) just
means "ask the database", so a miss costs one lookup, never a stale read.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
from pathlib import Path

from aimind_memory.memory.config.limits import STAMP_SLOTS
from aimind_memory.memory.storage.paths import open_private

_SLOT = struct.Struct("Q")  # native: one aligned 8-byte load or store
UNKNOWN = 0


def stamp(thread_id: str, checkpoint_id: str) -> int:
    """A non-zero 64-bit stamp of a thread's checkpoint."""
    digest = hashlib.blake2b(f"{thread_id}\0{checkpoint_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") | 1


class SharedStamps:
    """The stamp table of one database, mapped from ``path``.

    The file's size, set by whichever process created it, fixes the number of
    slots for every process, so all of them map a thread to the same slot even
    if they were built with different ``STAMP_SLOTS``.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_private(path)
        try:
            if os.fstat(fd).st_size < _SLOT.size:
                os.ftruncate(fd, STAMP_SLOTS * _SLOT.size)  # zeros: every thread "ask"
            self._slots = os.fstat(fd).st_size // _SLOT.size
            self._map = mmap.mmap(fd, self._slots * _SLOT.size)
        finally:
            os.close(fd)

    def close(self) -> None:
        self._map.close()

    def _slot(self, thread_id: str) -> int:
        digest = hashlib.blake2b(thread_id.encode(), digest_size=8, person=b"aimind-slot").digest()
        return (int.from_bytes(digest, "little") % self._slots) * _SLOT.size

    def current(self, thread_id: str) -> int:
        stamp: int = _SLOT.unpack_from(self._map, self._slot(thread_id))[0]
        return stamp

    def is_latest(self, thread_id: str, checkpoint_id: str) -> bool:
        """True only if ``checkpoint_id`` is the thread's latest committed checkpoint."""
        return self.current(thread_id) == stamp(thread_id, checkpoint_id)

    def clear(self, thread_id: str) -> None:
        """Before a write (or delete): from now on readers ask the database."""
        _SLOT.pack_into(self._map, self._slot(thread_id), UNKNOWN)

    def mark(self, thread_id: str, checkpoint_id: str) -> None:
        """After ``checkpoint_id`` committed, while still holding the thread's write lock."""
        _SLOT.pack_into(self._map, self._slot(thread_id), stamp(thread_id, checkpoint_id))
