"""Model compactions after the turn (contract §5): the lease, the task, the landing.

When a turn makes the window overflow, the extractive compactor folds the old turns
in that same write (it takes a few milliseconds); a model compactor runs afterwards
instead, in a task of this process, so the run that triggered it ends at once. The
write that starts it stores a lease in the checkpoint (``memory/compaction/pending.py``):
while it is live no other write, in any process, starts another; once it has expired
(a killed process), the next write finds the window overflowing and starts the
compaction anew. The task lands its result with a compare-and-put on whatever the
thread holds by then, if the thread still holds its lease: turns written meanwhile
stay; what it folds goes to the session's archive in the same write (``memory.archive``;
messages an inline fold archived already are not archived twice); if they leave the
window past ``RECENT_TURNS``, the landing takes a new lease in
the same write and the model folds them too (a follow-up), so a quiet thread settles
within its window. If the window would pass ``pending_max_messages`` first, the write
folds it inline with the extractive compactor; the model's result, when it lands,
becomes the base and what that fold took beyond it is folded onto it.

The service (``memory.service``) asks ``fold_or_defer`` for each turn's write and
``start``s the task it returns once that write is stored. An inline compactor that
reads ahead (``ReadsAhead``) reads each turn in a task of its own once it is stored, so
the fold that later takes the turn finds its sentences read; nothing waits for that task,
and closing memory cancels it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Coroutine, Sequence
from typing import Any

from aimind_memory.memory.compaction import (
    CompactionRequest,
    Compactor,
    ReadsAhead,
    StatusCallback,
    compact,
    fold,
    outcome_of,
    run_compactor,
    split_window,
    status_event,
    upcoming_fold,
)
from aimind_memory.memory.compaction.pending import PendingCompaction
from aimind_memory.memory.config.limits import COMPACTION_START_DELAY_S, MemoryLimits
from aimind_memory.memory.models import ChatThreadMessage, CompactionOutput, ThreadState
from aimind_memory.memory.storage import Head
from aimind_memory.memory.storage.locks import ThreadLocks
from aimind_memory.memory.storage.store import LAST_COMPACTION_KEY, ThreadStore
from aimind_memory.memory.writes import (
    LANDED_KEY,
    Deferred,
    Write,
    carried,
    commit,
    left_window,
    outcome,
)

log = logging.getLogger("aimind.memory")


class DeferredCompactions:
    """One service's compactions: folded within a turn's write, or run after it and
    landed; the tasks under way, per thread."""

    def __init__(
        self,
        store: ThreadStore,
        locks: ThreadLocks,
        limits: MemoryLimits,
        compactor: Compactor,
        fallback: Compactor,
    ) -> None:
        self.store = store
        self.locks = locks
        self.limits = limits
        self.compactor = compactor
        self.fallback = fallback
        self._tasks: dict[str, set[asyncio.Task[None]]] = {}
        self._reading: set[asyncio.Task[None]] = set()

    @property
    def deferred(self) -> bool:
        """A model compactor runs after the turn; an ``inline`` one within it."""
        return not getattr(self.compactor, "inline", False)

    # --- within a turn's write ---------------------------------------------------------------

    async def fold_or_defer(
        self, state: ThreadState, head: Head | None, on_status: StatusCallback | None
    ) -> Write:
        """The write of ``state``: folded now if it must be, with the lease of the model
        compaction under way (``memory/compaction/pending.py``), or of one it starts."""
        metadata = carried(head)
        pending = PendingCompaction.of(head.metadata if head else None)
        if pending is not None and not pending.live():
            pending = None  # its process died or gave up: the next overflow starts anew
        request = split_window(state, self.limits)
        write = Write(state, metadata)
        if request is not None and (
            not self.deferred or len(state.messages) > self.limits.pending_max_messages
        ):
            # An inline compactor folds now; a deferred one that fell behind is overtaken
            # by the extractive one, so the window's bound holds.
            primary = self.fallback if self.deferred else self.compactor
            write.state, write.used = await compact(
                state,
                request,
                primary=primary,
                fallback=self.fallback,
                limits=self.limits,
                on_status=on_status,
            )
            metadata[LAST_COMPACTION_KEY] = outcome(outcome_of(write.used, primary), write.used)
            write.archived = tuple(request.folded)
            if pending is not None:
                pending = pending.overtaken(request.folded, self.limits)
        elif request is not None and pending is None:
            pending = PendingCompaction.start(request, self.limits)
            write.deferred = Deferred(request, pending.lease)
        if pending is not None:
            metadata.update(pending.to_metadata())
        return write

    # --- after the write ---------------------------------------------------------------------

    def start(self, thread_id: str, deferred: Deferred) -> None:
        """Run ``deferred`` in a task of this process, once its write is stored."""
        task = _task(self._compact_later(thread_id, deferred), f"compaction-{thread_id[-8:]}")
        tasks = self._tasks.setdefault(thread_id, set())
        tasks.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            tasks.discard(finished)
            if not tasks and self._tasks.get(thread_id) is tasks:
                del self._tasks[thread_id]

        task.add_done_callback(done)

    def read_ahead(self, state: ThreadState) -> None:
        """Let an inline compactor that reads ahead read the turn just stored (``state``'s
        last two messages) and the fold the next turn's write will make, in a task of this
        process, off the answer's path. ``settle`` does not wait for it: memory holds the
        same with or without it. A compactor that does not read ahead is not asked."""
        if not self.deferred and isinstance(self.compactor, ReadsAhead):
            turn, upcoming = state.messages[-2:], upcoming_fold(state, self.limits)
            task = _task(self._read_later(self.compactor, turn, upcoming), "read-ahead")
            self._reading.add(task)
            task.add_done_callback(self._reading.discard)

    async def read_all(self) -> None:
        """Wait for the turns being read ahead: a benchmark's pause between a user's turns."""
        while self._reading:
            await asyncio.wait(set(self._reading))

    @staticmethod
    async def _read_later(
        reader: ReadsAhead, turn: Sequence[ChatThreadMessage], upcoming: CompactionRequest | None
    ) -> None:
        """Read the turn once the run that wrote it has finished; a failure costs only
        the time the fold would have saved, and the log names its type only."""
        try:
            await asyncio.sleep(COMPACTION_START_DELAY_S)
            await reader.read_ahead(turn, upcoming)
        except Exception as exc:  # a cancellation is no Exception: it goes through
            log.warning("reading a turn ahead failed (%s)", type(exc).__name__)

    async def _compact_later(self, thread_id: str, deferred: Deferred) -> None:
        """Run the model compaction, then land it. A landing that fails for any reason is
        reported ``failed`` to the next run; the log names the error's type only (a
        database error may quote the conversation)."""
        try:
            await asyncio.sleep(COMPACTION_START_DELAY_S)
            output, used = await run_compactor(
                deferred.request, primary=self.compactor, fallback=self.fallback, limits=self.limits
            )
            await self._land(thread_id, deferred, output, used)
        except asyncio.CancelledError:
            log.info("a pending chat memory compaction was abandoned at shutdown")
            raise
        except Exception as exc:
            log.warning("a deferred chat memory compaction failed (%s)", type(exc).__name__)
            await self._report_failed(thread_id, deferred.lease)

    async def _land(
        self, thread_id: str, deferred: Deferred, output: CompactionOutput, used: str
    ) -> None:
        """Put the compaction's result on whatever the thread holds now, if the thread
        still holds this compaction's lease; turns written meanwhile stay."""
        status = outcome_of(used, self.compactor)
        request = deferred.request

        async def build(state: ThreadState, head: Head | None) -> Write | None:
            pending = _own_lease(head, deferred.lease)
            if pending is None:
                log.info("a deferred compaction was superseded; its result is dropped")
                return None
            landed = await self._rebased(state, request, pending, output, used)
            if landed is None:
                return None
            metadata = {
                **carried(head),
                LAST_COMPACTION_KEY: outcome(status, used),
                LANDED_KEY: status_event(status, landed),
            }
            return self._followed_up(Write(landed, metadata, archived=left_window(state, landed)))

        write = await commit(self.store, self.locks, thread_id, build)
        if write is not None and write.deferred is not None:
            self.start(thread_id, write.deferred)

    def _followed_up(self, write: Write) -> Write:
        """The landing ``write``, with the lease of a follow-up compaction when the turns
        written while it ran still leave the window past ``RECENT_TURNS`` (contract §5, "the
        quiet window is the window"): the model folds them too, under a new lease taken
        in the landing's own compare-and-put, so no write in between starts another."""
        request = split_window(write.state, self.limits)
        if request is None:
            return write
        pending = PendingCompaction.start(request, self.limits)
        write.metadata.update(pending.to_metadata())
        write.deferred = Deferred(request, pending.lease)
        return write

    async def _rebased(
        self,
        state: ThreadState,
        request: CompactionRequest,
        pending: PendingCompaction,
        output: CompactionOutput,
        used: str,
    ) -> ThreadState | None:
        """The thread after the landing, on whatever it holds now: turns written since stay,
        and so do the user's edits (``memory.compaction.pins``: the user's pins, what was
        unpinned; a summary the user replaced is the base the folded turns go onto).

        Overtaken by inline folds (``pending.since``): the model's result is the base,
        and what the inline folds took beyond it is folded onto it, extractively as they
        did — unless the user replaced the summary meanwhile: then only its pins land."""
        summary = None
        if not pending.since:
            # What it folded leaves the window: the oldest turns, those of its folded
            # ids that are still there. A turn a later write replaced (a regenerated
            # answer) has left already, and the summary keeps it, as it keeps every
            # folded turn; its new turn, at the end, may reuse the question's id.
            folded_ids = set(pending.folded_ids)
            kept = state.messages
            while len(kept) >= 2 and kept[0].id in folded_ids and kept[1].id in folded_ids:
                kept = kept[2:]
            if pending.summary_edited:  # the user's summary, and the folded turns onto it
                summary = (await self.fallback.compact(_onto(state, request.folded, kept))).summary
            return fold(
                state, request, output, self.limits, compactor=used, messages=kept, summary=summary
            )
        if used != self.compactor.name:
            return state  # the model failed: the inline folds already hold everything
        if pending.summary_edited:
            return fold(
                state,
                request,
                output,
                self.limits,
                compactor=used,
                messages=state.messages,
                summary=state.summary,
            )
        # What the model folded is the model's to pin: the compactor pins the inline folds
        # added since it started go (the user's stay), and ``since`` is folded again below.
        started = {p.id for p in request.pins}
        pins = [p for p in state.pins if p.id in started or p.origin == "user"]
        base_state = state.model_copy(update={"pins": pins})
        base = fold(base_state, request, output, self.limits, compactor=used, messages=[])
        onto = _onto(base, list(pending.since), state.messages)
        extracted = await self.fallback.compact(onto)
        return fold(
            base,
            onto,
            extracted,
            self.limits,
            compactor=self.fallback.name,
            messages=state.messages,
        )

    async def _report_failed(self, thread_id: str, lease: str) -> None:
        """Drop the lease and tell the next run (``LANDED_KEY``) that the compaction failed;
        the thread's state stays as it is."""

        async def build(state: ThreadState, head: Head | None) -> Write | None:
            if _own_lease(head, lease) is None:
                return None
            metadata = {
                **carried(head),
                LAST_COMPACTION_KEY: outcome("failed", self.compactor.name),
                LANDED_KEY: status_event("failed", state),
            }
            return Write(state, metadata)

        try:
            await commit(self.store, self.locks, thread_id, build)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("a failed chat memory compaction went unreported (%s)", type(exc).__name__)

    # --- the tasks under way -----------------------------------------------------------------

    async def settle(self, thread_id: str | None = None, *, within_s: float | None = None) -> None:
        """Wait for the compactions under way (of ``thread_id``, or all), and for the
        follow-ups their landings start, within ``within_s`` in all."""
        loop = asyncio.get_running_loop()
        deadline = None if within_s is None else loop.time() + within_s
        while True:
            if thread_id is None:
                tasks = {t for per_thread in self._tasks.values() for t in per_thread}
            else:
                tasks = set(self._tasks.get(thread_id, ()))
            left = None if deadline is None else deadline - loop.time()
            if not tasks or (left is not None and left <= 0):
                return
            await asyncio.wait(tasks, timeout=left)

    async def aclose(self, grace_s: float) -> None:
        """Give the compactions under way ``grace_s`` to land, then abandon the rest (their
        leases expire: a later write on any process starts them anew)."""
        reading = list(self._reading)
        for task in reading:
            task.cancel()  # it only saves a later fold time
        await self.settle(within_s=grace_s)
        tasks = [t for per_thread in self._tasks.values() for t in per_thread]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*reading, *tasks, return_exceptions=True)


def _task(work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
    """``work`` in a task of its own, in a fresh context: it must not carry the finished
    run's config or callbacks."""
    return asyncio.get_running_loop().create_task(
        work, name=f"aimind-{name}", context=contextvars.Context()
    )


def _onto(
    state: ThreadState, folded: list[ChatThreadMessage], kept: list[ChatThreadMessage]
) -> CompactionRequest:
    """The request that folds ``folded`` onto ``state``'s summary and pins."""
    return CompactionRequest(
        summary=state.summary,
        pinned_decisions=list(state.pinned_decisions),
        folded=folded,
        kept=kept,
        pins=tuple(state.pins),
    )


def _own_lease(head: Head | None, lease: str) -> PendingCompaction | None:
    """The thread's pending compaction if it is still the one of ``lease``."""
    pending = PendingCompaction.of(head.metadata if head else None)
    return pending if pending is not None and pending.lease == lease else None
