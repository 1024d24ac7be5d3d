"""In process (``AIMIND_DATABASE_URL=memory``): the stock ``InMemorySaver``, public API only.

The capabilities ``InMemorySaver`` lacks (``aprune``, ``adelete_for_runs``,
``acopy_thread``) rebuild the affected threads through its public calls:
list, delete the thread, put back what stays. Its async methods never yield
to the event loop, so each rebuild is atomic for other coroutines. Memory
threads use the same saver; a put checks the latest checkpoint under a lock, and
archives what it folds under the same lock (``memory.storage.archive.inmemory``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import ChannelVersions, CheckpointTuple
from langgraph.checkpoint.memory import InMemorySaver

from aimind_memory.memory.storage.archive import ArchiveEntry
from aimind_memory.memory.storage.archive.inmemory import InMemoryArchive
from aimind_memory.memory.storage.base import UNCHANGED, Backend, Head, _Unchanged

PRUNE_STRATEGIES = ("keep_latest", "delete")
DELTA_METADATA_KEYS = ("counters_since_delta_snapshot", "delta_writes_versioned")


def _config(thread_id: str, checkpoint_ns: str = "", checkpoint_id: str | None = None) -> Any:
    configurable = {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


class InMemoryServerSaver(InMemorySaver):
    """``InMemorySaver`` as released, plus ``aprune``, ``adelete_for_runs``, ``acopy_thread``."""

    async def _tuples(self, thread_id: str) -> list[CheckpointTuple]:
        return [t async for t in self.alist({"configurable": {"thread_id": thread_id}})]

    async def _put_back(self, thread_id: str, tuples: Iterable[CheckpointTuple]) -> None:
        """Put ``tuples`` (any order) on ``thread_id``: checkpoints oldest first, writes after."""
        for tup in sorted(tuples, key=lambda t: t.checkpoint["id"]):
            ns = tup.config["configurable"].get("checkpoint_ns", "")
            parent = (tup.parent_config or {}).get("configurable", {}).get("checkpoint_id")
            stored = await self.aput(
                _config(thread_id, ns, parent),
                tup.checkpoint,
                tup.metadata,
                dict(tup.checkpoint["channel_versions"]),
            )
            by_task: dict[str, list[tuple[str, Any]]] = {}
            for task_id, channel, value in tup.pending_writes or ():
                by_task.setdefault(task_id, []).append((channel, value))
            for task_id, writes in by_task.items():
                await self.aput_writes(stored, writes, task_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """``keep_latest``: each namespace keeps its latest checkpoint; ``delete``: the
        threads go. A ``DeltaChannel`` thread cannot be pruned to its latest."""
        if isinstance(thread_ids, str):
            raise TypeError("thread_ids must be a sequence of thread IDs, not a str")
        if strategy not in PRUNE_STRATEGIES:
            raise ValueError(f"Unknown prune strategy: {strategy!r}")
        rebuilt: dict[str, list[CheckpointTuple]] = {}
        for tid in map(str, thread_ids):
            tuples = await self._tuples(tid)
            if strategy == "delete":
                await self.adelete_thread(tid)
                continue
            if any(k in t.metadata for t in tuples for k in DELTA_METADATA_KEYS):
                raise NotImplementedError(
                    f"keep_latest can't prune threads that use a DeltaChannel: {tid}"
                )
            latest: dict[str, CheckpointTuple] = {}
            for tup in tuples:
                ns = tup.config["configurable"].get("checkpoint_ns", "")
                if ns not in latest or tup.checkpoint["id"] > latest[ns].checkpoint["id"]:
                    latest[ns] = tup
            rebuilt[tid] = list(latest.values())
        for tid, kept in rebuilt.items():
            await self.adelete_thread(tid)
            await self._put_back(tid, kept)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Drop the checkpoints the runs wrote, and their writes."""
        runs = {str(r) for r in run_ids}
        if not runs:
            return
        threads = {
            t.config["configurable"]["thread_id"]
            async for t in self.alist(None)
            if t.metadata.get("run_id") in runs
        }
        for tid in threads:
            kept = [t for t in await self._tuples(tid) if t.metadata.get("run_id") not in runs]
            await self.adelete_thread(tid)
            await self._put_back(tid, kept)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint and write of a thread, ids and metadata as they are."""
        await self._put_back(str(target_thread_id), await self._tuples(str(source_thread_id)))


class InMemoryMemoryThreads:
    """Memory threads on the same saver, through its public API, and their archive."""

    def __init__(self, saver: InMemoryServerSaver, archive: InMemoryArchive | None = None) -> None:
        self.saver = saver
        self.archive = archive or InMemoryArchive()
        self._lock = asyncio.Lock()

    async def latest(self, thread_id: str, known_id: str | None) -> Head | _Unchanged | None:
        tup = await self.saver.aget_tuple(_config(thread_id))
        if tup is None:
            return None
        if tup.checkpoint["id"] == known_id:
            return UNCHANGED
        return Head(tup.checkpoint, dict(tup.metadata))

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
        async with self._lock:
            latest = await self.saver.aget_tuple(_config(thread_id))
            if (latest.checkpoint["id"] if latest else None) != parent_id:
                return False
            await self.saver.aput(
                _config(thread_id, checkpoint_id=parent_id),
                head.checkpoint,
                head.metadata,  # type: ignore[arg-type]  # a CheckpointMetadata plus memory's keys
                new_versions,
            )
            if prune:
                await self.saver.aprune([thread_id])
            if archive:
                self.archive.add(thread_id, archive, archive_keep)
        return True

    async def delete(self, thread_id: str) -> None:
        async with self._lock:
            await self.saver.adelete_thread(thread_id)
            self.archive.delete(thread_id)

    async def scrub(self) -> None:
        """Nothing: the process's memory holds no deleted thread."""


@asynccontextmanager
async def open_inmemory() -> AsyncIterator[Backend]:
    saver = InMemoryServerSaver()
    threads = InMemoryMemoryThreads(saver)
    yield Backend("memory", saver, threads, threads.archive)
