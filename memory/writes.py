"""One write of a memory thread: read, build the next state, compare-and-put, again on
fresh state while other writers come first.

Every write goes through ``commit`` — a turn, a user's edit, a deferred compaction's
landing — under the thread's lock, so in one process writes of a thread queue, and
across processes the compare-and-put refuses a stale parent. The messages a write folds
out of the window go to the session's archive (``memory.archive``) in the same
transaction as the write. What a write carries in
its checkpoint's metadata besides the state (how the last compaction went, the lease
of one under way, a landing the next run reports) is ``carried`` from its parent.

A stale copy is never the truth (contract §8): the first build uses the process's kept
copy unproven, which is safe for a write (the compare-and-put catches it) but not for a
refusal or a skip, which writes nothing for the compare-and-put to catch. So a build
that refuses (``MemoryEditError``: an edit of a pin the copy lacks, a full set of pins)
or skips (None: a turn that looks like the copy's last one) on that copy is built once
more on a copy proven current before its answer is final.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aimind_memory.memory.archive import entries
from aimind_memory.memory.compaction import CompactionRequest
from aimind_memory.memory.compaction.pending import PENDING_KEY
from aimind_memory.memory.config.limits import (
    WRITE_ATTEMPTS,
    WRITE_RETRY_FIRST_S,
    WRITE_RETRY_MAX_S,
)
from aimind_memory.memory.errors import MemoryEditError, WriteConflictError
from aimind_memory.memory.models import ChatThreadMessage, ThreadState, utcnow
from aimind_memory.memory.storage import Head
from aimind_memory.memory.storage.locks import ThreadLocks
from aimind_memory.memory.storage.store import LAST_COMPACTION_KEY, ThreadStore

LANDED_KEY = "aimind_landed"
"""Checkpoint metadata: this checkpoint is a deferred compaction landing (the next
run reports it on its stream)."""


@dataclass(frozen=True, slots=True)
class Deferred:
    """The model compaction a write started: its request and lease, to run once the
    write is stored (``memory.deferred``)."""

    request: CompactionRequest
    lease: str


@dataclass(slots=True)
class Write:
    """What one write puts on a thread, and what it leaves to do after."""

    state: ThreadState
    metadata: dict[str, Any]
    used: str | None = None
    """The compactor that folded the window within this write, if one did."""
    deferred: Deferred | None = None
    """The model compaction this write started, to run once it is stored."""
    archived: tuple[ChatThreadMessage, ...] = ()
    """The messages this write folds out of the window: archived in its transaction."""


Build = Callable[[ThreadState, Head | None], Awaitable[Write | None]]
"""The next write of a thread from what it holds now (None: write nothing). It may raise
``MemoryEditError`` to refuse the write."""


async def commit(
    store: ThreadStore, locks: ThreadLocks, thread_id: str, build: Build
) -> Write | None:
    """Read, ``build`` the next state, compare-and-put; again on fresh state while
    other writers come first. ``build`` returning None writes nothing; a
    ``MemoryEditError`` it raises goes to the caller. Either is final only on a copy
    proven current: on the kept copy, the thread is read again and built once more."""
    async with locks.hold(thread_id):
        # proven: the copy read is the latest (the database or the shared stamps said
        # so), not merely the one this process kept.
        proven = False
        attempt = 0
        while attempt < WRITE_ATTEMPTS:
            state, head = await store.read(thread_id, for_write=not proven)
            try:
                write = await build(state, head)
            except MemoryEditError:
                if proven:
                    raise
                proven = True
                continue
            if write is None:
                if proven:
                    return None
                proven = True
                continue
            archive = await entries(write.archived)
            if await store.write(thread_id, write.state, head, write.metadata, archive=archive):
                return write
            proven = True  # the refused put dropped the kept copy: the next read asks
            await _pause(attempt)
            attempt += 1
    raise WriteConflictError(thread_id)


def left_window(before: ThreadState, after: ThreadState) -> tuple[ChatThreadMessage, ...]:
    """The messages of ``before``'s window that ``after``'s no longer holds."""
    kept = {m.id for m in after.messages}
    return tuple(m for m in before.messages if m.id not in kept)


def carried(head: Head | None, *, edit: bool = False) -> dict[str, Any]:
    """Metadata a new checkpoint keeps from its parent: how the last compaction went; and,
    for a user's edit (not a turn), the pending compaction's lease and the landing the
    next run reports."""
    keys = (LAST_COMPACTION_KEY, PENDING_KEY, LANDED_KEY) if edit else (LAST_COMPACTION_KEY,)
    if head is None:
        return {}
    return {k: head.metadata[k] for k in keys if k in head.metadata}


def outcome(status: str, compactor: str) -> dict[str, Any]:
    """The ``LAST_COMPACTION_KEY`` record of a compaction."""
    return {"status": status, "compactor": compactor, "at": utcnow().isoformat()}


async def _pause(attempt: int) -> None:
    """Full-jitter backoff before retrying a refused compare-and-put."""
    await asyncio.sleep(random.uniform(0, min(WRITE_RETRY_MAX_S, WRITE_RETRY_FIRST_S * 2**attempt)))
