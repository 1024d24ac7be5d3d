"""What every backend gives memory: its own compare-and-put path for ``chat:`` threads.

The server's agent threads go through the stock savers (plus the capabilities
they lack, see each backend module). Memory threads are written by memory's
own code, because a turn needs what no saver offers: "put this checkpoint only
if the thread's latest is still its parent", in one round trip. The rows are
the stock savers' own layout, so a stock ``aget_tuple`` reads a memory thread
as it would read any other (``tests/memory/test_backend_rows.py`` checks it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from langgraph.checkpoint.base import BaseCheckpointSaver, ChannelVersions, Checkpoint

from aimind_memory.memory.storage.archive import ArchiveEntry, MessageArchive
from aimind_memory.memory.storage.locks import LocalLocks, ThreadLocks
from aimind_memory.memory.storage.stamps import SharedStamps


@dataclass(frozen=True, slots=True)
class Head:
    """A memory thread's latest checkpoint and its metadata, as stored."""

    checkpoint: Checkpoint
    metadata: dict[str, Any]

    @property
    def id(self) -> str:
        return self.checkpoint["id"]


class _Unchanged:
    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Final = _Unchanged()
"""``latest()``'s answer when the latest checkpoint is still the one the caller knows."""


class MemoryThreads(Protocol):
    """Memory threads of one database: read the head, compare-and-put, delete."""

    async def latest(self, thread_id: str, known_id: str | None) -> Head | _Unchanged | None:
        """The thread's latest checkpoint in one query; ``UNCHANGED`` when its id is
        ``known_id`` (nothing else is fetched then), None when the thread is empty."""
        ...

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
        """Store ``head`` if the thread's latest checkpoint is still ``parent_id`` (None:
        the thread is empty); False, with the thread unchanged, otherwise. ``prune``
        also drops the thread's older checkpoints in the same transaction; ``archive``
        (the messages this write folds out of the window) goes to the thread's archive
        in it too, those already there left as they are, and past ``archive_keep``
        archived messages the oldest go (``memory.storage.archive``)."""
        ...

    async def delete(self, thread_id: str) -> None:
        """The thread's checkpoints and its archive."""
        ...

    async def scrub(self) -> None:
        """After deletes that forget a session: leave none of the deleted bytes in the
        database's files (SQLite: its archive index's old segments, its WAL). A no-op
        where deleted rows are gone from every row a reader or a dump sees (PostgreSQL,
        in memory)."""
        ...


@dataclass(frozen=True, slots=True)
class Backend:
    """An opened database: the server's saver and memory's threads, sharing it."""

    name: str
    saver: BaseCheckpointSaver[str]
    threads: MemoryThreads
    archive: MessageArchive
    """Reads the memory threads' archives (``memory.storage.archive``)."""
    locks: ThreadLocks = field(default_factory=LocalLocks)
    """Keeps one session's writers in line (in-process; SQLite: across processes too)."""
    stamps: SharedStamps | None = None
    """SQLite: tells a reader, without a query, that its copy is still the latest."""
