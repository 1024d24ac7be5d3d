"""The chat-memory thread as a real LangGraph thread, written straight through the saver.

The memory graph (one no-op node, state = the ThreadState fields) exists so the
thread is an ordinary LangGraph thread: ``graph.aget_state`` and Studio read it.
Writes skip a full graph invocation and put one checkpoint per turn directly,
in the shape ``aupdate_state`` would, then prune old checkpoints every
``PRUNE_EVERY`` writes.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any, TypedDict

from langgraph.checkpoint.base import (
    LATEST_VERSION,
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointTuple,
)
from langgraph.checkpoint.base.id import uuid6
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from memory.checkpointer import prune_thread
from memory.limits import PRUNE_EVERY, STATE_CACHE_THREADS
from memory.models import ThreadState
from memory.stamps import SharedStamps

MEMORY_NODE = "remember"


class MemoryChannels(TypedDict, total=False):
    """The memory thread's channels: the persisted ThreadState as plain JSON values."""

    messages: list[dict[str, Any]]
    summary: str
    pinned_decisions: list[str]
    last_compacted_at: str | None


def _remember(state: MemoryChannels) -> dict[str, Any]:
    return {}


def build_memory_graph(saver: BaseCheckpointSaver | None) -> CompiledStateGraph:
    builder = StateGraph(MemoryChannels)
    builder.add_node(MEMORY_NODE, _remember)
    builder.add_edge(START, MEMORY_NODE)
    builder.add_edge(MEMORY_NODE, END)
    return builder.compile(checkpointer=saver, name="chat-memory")


def thread_config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


def next_checkpoint(
    saver: BaseCheckpointSaver,
    thread_id: str,
    channels: dict[str, Any],
    previous: CheckpointTuple | None,
) -> tuple[dict[str, Any], Checkpoint, dict[str, Any], dict[str, Any]]:
    """``(config, checkpoint, metadata, new_versions)`` for ``saver.aput``: the shape
    ``aupdate_state`` would write, bumping only the channels whose value changed."""
    if previous is None:
        step, versions, seen, parent = 0, {}, {}, {}
        old_values: dict[str, Any] = {}
    else:
        step = int(previous.metadata.get("step", 0)) + 1
        versions = dict(previous.checkpoint["channel_versions"])
        seen = previous.checkpoint.get("versions_seen", {})
        parent = {"checkpoint_id": previous.checkpoint["id"]}
        old_values = previous.checkpoint["channel_values"]
    new_versions = {}
    for key, value in channels.items():
        if previous is None or key not in versions or old_values.get(key) != value:
            versions[key] = new_versions[key] = saver.get_next_version(versions.get(key), None)
    checkpoint = Checkpoint(
        v=LATEST_VERSION,
        id=str(uuid6(clock_seq=step)),
        ts=datetime.now(UTC).isoformat(),
        channel_values=channels,
        channel_versions=versions,
        versions_seen=seen,
        pending_sends=[],
        updated_channels=sorted(new_versions),
    )
    config = {"configurable": {**thread_config(thread_id)["configurable"], **parent}}
    metadata = {"source": "update", "step": step, "parents": {}}
    return config, checkpoint, metadata, new_versions


class ThreadStore:
    """Reads and writes ThreadState on memory threads of one saver."""

    def __init__(self, saver: BaseCheckpointSaver, stamps: SharedStamps | None = None) -> None:
        self.saver = saver
        self.stamps = stamps
        self._cache: OrderedDict[str, tuple[CheckpointTuple, ThreadState]] = OrderedDict()

    @property
    def _can_check_latest(self) -> bool:
        return hasattr(self.saver, "alatest_checkpoint_id")

    @property
    def compares_on_write(self) -> bool:
        """Whether ``write`` is a compare-and-put (it may then return False)."""
        return hasattr(self.saver, "aput_if_latest")

    async def read(
        self, thread_id: str, *, for_write: bool = False
    ) -> tuple[ThreadState, CheckpointTuple | None]:
        """The thread's latest state and checkpoint.

        When the saver can tell the latest checkpoint id cheaply (an index lookup)
        and it is the one this store last read or wrote, the kept copy is used:
        no blobs fetched, nothing deserialized or validated again. Any other
        writer (another process) makes a new id, so a stale copy is never used.
        With shared stamps saying the kept checkpoint is still the latest, even
        the lookup is skipped. ``for_write`` with a compare-and-put saver skips it
        too: the write itself fails if the copy turns out stale, and the caller
        reads again.
        """
        kept = self._cache.get(thread_id)
        if kept and (
            (for_write and self.compares_on_write)
            or (self.stamps and self.stamps.is_latest(thread_id, kept[0].checkpoint["id"]))
        ):
            self._cache.move_to_end(thread_id)
            return _copy(kept[1]), kept[0]
        if self._can_check_latest:
            latest = await self.saver.alatest_checkpoint_id(thread_id)
            if latest is None:
                self._cache.pop(thread_id, None)
                return ThreadState(), None
            if (kept := self._cache.get(thread_id)) and kept[0].checkpoint["id"] == latest:
                self._cache.move_to_end(thread_id)
                return _copy(kept[1]), kept[0]
        tup = await self.saver.aget_tuple(thread_config(thread_id))
        if tup is None:
            self._cache.pop(thread_id, None)
            return ThreadState(), None
        values = tup.checkpoint["channel_values"]
        state = ThreadState.model_validate(
            {k: values[k] for k in MemoryChannels.__annotations__ if k in values}
        )
        self._keep(thread_id, tup, state)
        return _copy(state), tup

    def _keep(self, thread_id: str, tup: CheckpointTuple, state: ThreadState) -> None:
        if not self._can_check_latest:
            return
        self._cache[thread_id] = (tup, state)
        self._cache.move_to_end(thread_id)
        while len(self._cache) > STATE_CACHE_THREADS:
            self._cache.popitem(last=False)

    async def write(
        self, thread_id: str, state: ThreadState, previous: CheckpointTuple | None
    ) -> bool:
        """Put ``state`` as the thread's next checkpoint (parent: ``previous``).

        False if the saver compares on write and the thread's latest checkpoint is no
        longer ``previous`` (another process wrote first): nothing was written.
        """
        saver = self.saver
        config, checkpoint, metadata, new_versions = next_checkpoint(
            saver, thread_id, state.to_channels(), previous
        )
        prune = bool(metadata["step"]) and metadata["step"] % PRUNE_EVERY == 0
        if self.stamps:  # the caller holds the thread's write lock until it returns
            self.stamps.clear(thread_id)
        if self.compares_on_write:
            if not await saver.aput_if_latest(
                config, checkpoint, metadata, new_versions, prune=prune
            ):
                self._cache.pop(thread_id, None)
                return False
        else:
            await saver.aput(config, checkpoint, metadata, new_versions)
            if prune:
                await prune_thread(saver, thread_id)
        if self.stamps:
            self.stamps.mark(thread_id, checkpoint["id"])
        stored = {"configurable": {**config["configurable"], "checkpoint_id": checkpoint["id"]}}
        parent = config if previous is not None else None
        self._keep(
            thread_id, CheckpointTuple(stored, checkpoint, metadata, parent, []), _copy(state)
        )
        return True

    async def delete(self, thread_id: str) -> None:
        self._cache.pop(thread_id, None)
        if self.stamps:
            self.stamps.clear(thread_id)
        await self.saver.adelete_thread(thread_id)


def _copy(state: ThreadState) -> ThreadState:
    """A copy whose lists a caller may change without touching the kept state."""
    return state.model_copy(
        update={
            "messages": list(state.messages),
            "pinned_decisions": list(state.pinned_decisions),
        }
    )
