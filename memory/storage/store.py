"""The chat-memory thread as a real LangGraph thread, written by memory's compare-and-put.

A memory thread's checkpoints are ordinary LangGraph checkpoints in the server's
database (the memory graph below makes ``graph.aget_state`` read them), written
one per turn in the shape ``aupdate_state`` would write, through the backend's
compare-and-put, and pruned to the latest every ``PRUNE_EVERY`` writes.

The store keeps each thread's latest state in process. A read uses it when the
backend proves it is still the latest (one query that returns only the id
then; on SQLite the shared stamps, no query at all). A write builds on it
without asking: the compare-and-put refuses a stale parent and the caller
reads again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypedDict

from langgraph.checkpoint.base import (
    LATEST_VERSION,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
)

from aimind_memory.memory.config.limits import PRUNE_EVERY, STATE_CACHE_THREADS
from aimind_memory.memory.models import ThreadState
from aimind_memory.memory.storage import UNCHANGED, Backend, Head
from aimind_memory.memory.storage.archive import ArchiveEntry
from aimind_memory.memory.storage.ids import next_checkpoint_id

if TYPE_CHECKING:  # the graph machinery costs a process seconds of imports: built on demand
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph.state import CompiledStateGraph

MEMORY_NODE = "remember"


LAST_COMPACTION_KEY = "aimind_last_compaction"
"""Checkpoint metadata: how the thread's last compaction went (carried forward)."""


class MemoryChannels(TypedDict, total=False):
    """The memory thread's channels: the persisted ThreadState as plain JSON values.

    ``pins`` are the pins' records and ``pin_provenance`` their provenance (pin id → the
    messages it came from; ``ThreadState`` says why apart); ``pinned_decisions`` their
    texts (for anyone reading the thread with stock tools; a thread stored before pins
    had records has only those)."""

    messages: list[dict[str, Any]]
    summary: str
    pins: list[dict[str, Any]]
    pin_provenance: dict[str, list[dict[str, Any]]]
    pinned_decisions: list[str]
    last_compacted_at: str | None
    unpinned: list[str]
    replaced: list[dict[str, Any]]


def _remember(state: MemoryChannels) -> dict[str, Any]:
    return {}


def build_memory_graph(
    saver: BaseCheckpointSaver[str] | None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """A one-node graph whose state is a memory thread's: ``aget_state`` reads memory.

    Nothing of memory's own reading or writing goes through it, so langgraph's graph
    package is imported here, when someone asks for the graph, not by every process
    that opens memory (the CLI, a library user's worker)."""
    from langgraph.graph import END, START, StateGraph

    builder = StateGraph(MemoryChannels)
    builder.add_node(MEMORY_NODE, _remember)
    builder.add_edge(START, MEMORY_NODE)
    builder.add_edge(MEMORY_NODE, END)
    return builder.compile(checkpointer=saver, name="chat-memory")


def thread_config(thread_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


def next_head(
    saver: BaseCheckpointSaver[Any],  # its versions' type is the saver's own (ours: str)
    channels: dict[str, Any],
    previous: Head | None,
    metadata: dict[str, Any] | None = None,
) -> tuple[Head, ChannelVersions]:
    """The checkpoint after ``previous`` holding ``channels``, and the channels' new
    versions: the shape ``aupdate_state`` would write, bumping only what changed."""
    if previous is None:
        step, versions, seen, old_values = 0, {}, {}, {}
    else:
        step = int(previous.metadata.get("step", 0)) + 1
        versions = dict(previous.checkpoint["channel_versions"])
        seen = previous.checkpoint.get("versions_seen", {})
        old_values = previous.checkpoint["channel_values"]
    new_versions: ChannelVersions = {}
    for key, value in channels.items():
        if key not in versions or old_values.get(key) != value:
            versions[key] = new_versions[key] = saver.get_next_version(versions.get(key), None)
    checkpoint = Checkpoint(
        v=LATEST_VERSION,
        id=next_checkpoint_id(previous.id if previous else None),
        ts=datetime.now(UTC).isoformat(),
        channel_values=channels,
        channel_versions=versions,
        versions_seen=seen,
        updated_channels=sorted(new_versions),
    )
    meta = {"source": "update", "step": step, "parents": {}, **(metadata or {})}
    return Head(checkpoint, meta), new_versions


class ThreadStore:
    """Reads and writes ThreadState on the memory threads of one backend."""

    def __init__(self, backend: Backend, *, archive_keep: int | None = None) -> None:
        self.backend = backend
        self.archive_keep = archive_keep
        """Archived messages a thread keeps at most (None: all)."""
        self._cache: OrderedDict[str, tuple[Head | None, ThreadState]] = OrderedDict()
        """Per thread, its head as last read or written (None: empty) and its state."""

    async def read(
        self, thread_id: str, *, for_write: bool = False
    ) -> tuple[ThreadState, Head | None]:
        """The thread's latest state and head.

        ``for_write`` takes the kept copy as is: the write is a compare-and-put, so a
        stale copy costs a refused write and a fresh read, never a lost turn.
        """
        kept = self._cache.get(thread_id)
        known = kept[0] if kept else None
        stamps = self.backend.stamps
        if kept and (for_write or (stamps and known and stamps.is_latest(thread_id, known.id))):
            self._cache.move_to_end(thread_id)
            return _copy(kept[1]), known
        head = await self.backend.threads.latest(thread_id, known.id if known else None)
        if head is UNCHANGED and kept:
            # The copy was current when asked; a clear or eviction meanwhile may have
            # dropped it from the cache, and the next read then asks again.
            if thread_id in self._cache:
                self._cache.move_to_end(thread_id)
            return _copy(kept[1]), known
        if not isinstance(head, Head):
            self._keep(thread_id, None, ThreadState())  # a first write builds on "empty"
            return ThreadState(), None
        state = _state_of(head)
        self._keep(thread_id, head, state)
        return _copy(state), head

    def _keep(self, thread_id: str, head: Head | None, state: ThreadState) -> None:
        self._cache[thread_id] = (head, state)
        self._cache.move_to_end(thread_id)
        while len(self._cache) > STATE_CACHE_THREADS:
            self._cache.popitem(last=False)

    def forget(self, thread_id: str) -> None:
        """Drop the kept copy: the next read asks the database."""
        self._cache.pop(thread_id, None)

    async def write(
        self,
        thread_id: str,
        state: ThreadState,
        previous: Head | None,
        metadata: dict[str, Any] | None = None,
        *,
        archive: Sequence[ArchiveEntry] = (),
    ) -> Head | None:
        """Put ``state`` as the thread's next checkpoint (parent: ``previous``), and the
        messages it folds out of the window (``archive``) in the thread's archive, in one
        transaction.

        None if the thread's latest checkpoint is no longer ``previous`` (another
        writer came first): nothing was written. The caller holds the thread's lock.
        """
        head, new_versions = next_head(self.backend.saver, state.to_channels(), previous, metadata)
        step = head.metadata["step"]
        stamps = self.backend.stamps
        if stamps:  # readers elsewhere ask the database until the write is done
            stamps.clear(thread_id)
        written = await self.backend.threads.put(
            thread_id,
            head,
            previous.id if previous else None,
            new_versions,
            prune=bool(step) and step % PRUNE_EVERY == 0,
            archive=archive,
            archive_keep=self.archive_keep,
        )
        if not written:
            self.forget(thread_id)
            return None
        if stamps:
            stamps.mark(thread_id, head.id)
        self._keep(thread_id, head, _copy(state))
        return head

    async def delete(self, thread_id: str) -> None:
        self.forget(thread_id)
        if self.backend.stamps:
            self.backend.stamps.clear(thread_id)
        await self.backend.threads.delete(thread_id)


def _state_of(head: Head) -> ThreadState:
    """The ThreadState a checkpoint holds. Pins stored before pins had records get what
    can be known: who made the thread's last compaction, and when."""
    values = head.checkpoint["channel_values"]
    state = ThreadState.model_validate(
        {k: values[k] for k in MemoryChannels.__annotations__ if k in values}
    )
    last = head.metadata.get(LAST_COMPACTION_KEY)
    if "pins" in values or not state.pins or not isinstance(last, dict):
        return state
    if last.get("compactor") in (None, "extractive"):
        return state
    pins = [p.model_copy(update={"origin": "model"}) for p in state.pins]
    return state.model_copy(update={"pins": pins})


def _copy(state: ThreadState) -> ThreadState:
    """A copy whose lists a caller may change without touching the kept state."""
    return state.model_copy(
        update={
            "messages": list(state.messages),
            "pins": list(state.pins),
            "unpinned": list(state.unpinned),
            "replaced": list(state.replaced),
        }
    )
