"""The memory service behind ``open_memory()`` (contract §4, §5, §13).

A turn is one durable write. When it makes the window overflow, the
extractive compactor folds the old turns in that same write (it takes a few
milliseconds); a model compactor runs afterwards instead, in a task of this
process, so the run that triggered it ends at once (contract §5). The write that
starts it stores a lease in the checkpoint (``memory/compaction/pending.py``): while it
is live no other write, in any process, starts another; once it has expired
(a killed process), the next write finds the window overflowing and starts the
compaction anew. The task lands its result with a compare-and-put on whatever
the thread holds by then, if the thread still holds its lease: turns written
meanwhile stay; if they leave the window past ``RECENT_TURNS``, the landing takes
a new lease in the same write and the model folds them too (a follow-up), so a
quiet thread settles within its window. If the window would pass
``pending_max_messages`` first, the write folds it inline with the extractive
compactor; the model's result, when it lands, becomes the base and what that
fold took beyond it is folded onto it.

A turn may replace earlier turns of the window (``append_turn(..., replaces=)``:
a regenerated answer, an edited question): they leave in the turn's own write.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph

from memory.compaction import (
    CompactionRequest,
    Compactor,
    StatusCallback,
    compact,
    emit,
    fold,
    run_compactor,
    split_window,
    status_event,
)
from memory.compaction.extractive import ExtractiveCompactor
from memory.compaction.llm import LLMCompactor
from memory.compaction.pending import PENDING_KEY, PendingCompaction
from memory.edits import with_pin, with_pin_edited, with_summary, without_pin
from memory.errors import AIMindError, MemoryUnavailableError
from memory.hydration import export_dto, hydration_dto
from memory.limits import (
    COMPACTION_SHUTDOWN_GRACE_S,
    COMPACTION_START_DELAY_S,
    WRITE_ATTEMPTS,
    WRITE_RETRY_FIRST_S,
    WRITE_RETRY_MAX_S,
    MemoryLimits,
)
from memory.model_config import compaction_model
from memory.models import (
    WRITABLE_STATUSES,
    AppendResult,
    ChatThreadMessage,
    CompactionOutput,
    FinalTurn,
    Pin,
    Role,
    ThreadState,
    utcnow,
)
from memory.session import SessionHash, load_secret, memory_thread_id, resolve_session
from memory.settings import memory_settings
from memory.storage import Backend, Head, database_url, open_backend
from memory.storage.store import LAST_COMPACTION_KEY, ThreadStore, build_memory_graph
from memory.text import clean_text, truncate

log = logging.getLogger("aimind.memory")

LANDED_KEY = "aimind_landed"
"""Checkpoint metadata: this checkpoint is a deferred compaction landing (the next
run reports it on its stream)."""


class WriteConflictError(RuntimeError):
    """Other processes kept writing the session first, ``WRITE_ATTEMPTS`` times over."""


@dataclass(frozen=True, slots=True)
class MemorySnapshot:
    """A session's memory as it is now, with what a client should know about it."""

    state: ThreadState
    pending: bool
    """A compaction is due: the window is past ``RECENT_TURNS`` until one lands."""
    last_compaction: dict[str, Any] | None
    """``{"status", "compactor", "at"}`` of the thread's last compaction, if any."""
    landed: dict[str, Any] | None
    """The ``thread-memory-status`` event of a deferred compaction that landed (or failed)
    since the last turn was written: the next run puts it on its stream."""
    version: str | None = None
    """The id of the checkpoint it was read from (None: no memory yet): two snapshots of a
    session with the same version hold the same memory."""


@dataclass(slots=True)
class _Write:
    """What one write puts on a thread, and what it leaves to do after."""

    state: ThreadState
    metadata: dict[str, Any]
    used: str | None = None
    """The compactor that folded the window within this write, if one did."""
    deferred: _Deferred | None = None
    """The model compaction this write started, to run once it is stored."""


@dataclass(frozen=True, slots=True)
class _Deferred:
    request: CompactionRequest
    lease: str


Build = Callable[[ThreadState, Head | None], Awaitable[_Write | None]]


class MemoryService:
    """Bounded chat memory on one backend: append turns, load, hydrate, clear."""

    def __init__(
        self,
        backend: Backend,
        secret: bytes,
        limits: MemoryLimits,
        compactor: Compactor,
    ) -> None:
        self.backend = backend
        self.store = ThreadStore(backend)
        self.locks = backend.locks
        self.limits = limits
        self.compactor = compactor
        self.fallback = ExtractiveCompactor(limits)
        self._secret = secret
        self._pending: dict[str, set[asyncio.Task[None]]] = {}
        self.graph: CompiledStateGraph = build_memory_graph(backend.saver)

    @property
    def defers_compaction(self) -> bool:
        """A model compactor runs after the turn; an ``inline`` one within it."""
        return not getattr(self.compactor, "inline", False)

    def identity(self, session: str) -> SessionHash:
        """The session hash of a raw token, or the ``SessionHash`` itself."""
        return resolve_session(session, self._secret)

    def thread_id(self, session: str) -> str:
        return memory_thread_id(self.identity(session))

    async def _commit(self, thread_id: str, build: Build) -> _Write | None:
        """Read, ``build`` the next state, compare-and-put; again on fresh state while
        other writers come first. ``build`` returning None writes nothing."""
        async with self.locks.hold(thread_id):
            for attempt in range(WRITE_ATTEMPTS):
                state, head = await self.store.read(thread_id, for_write=attempt == 0)
                write = await build(state, head)
                if write is None:
                    return None
                if await self.store.write(thread_id, write.state, head, write.metadata):
                    return write
                await _pause(attempt)
        raise WriteConflictError(thread_id)

    # --- writing a turn ----------------------------------------------------------------------

    async def append_turn(
        self,
        session: str,
        turn: FinalTurn,
        *,
        on_status: StatusCallback | None = None,
        replaces: Collection[str] = (),
    ) -> AppendResult:
        """Write one finished turn once (contract §4).

        ``replaces``: ids of messages whose turns this one replaces (a regenerated
        answer, an edited question): those turns leave the window in the same
        compare-and-put that writes this one, so no reader ever sees both or neither.
        Turns already folded into the summary stay there.

        Never raises for a storage or compaction failure: the result says
        ``memory-unavailable`` and a ``failed`` status is emitted.
        """
        thread_id = self.thread_id(session)
        turn = FinalTurn.model_validate(turn)
        if turn.status not in WRITABLE_STATUSES:
            return AppendResult(written=False, skipped="status")
        user, assistant = clean_text(turn.user_text), clean_text(turn.assistant_text)
        if user is None or assistant is None:
            return AppendResult(written=False, skipped="empty")
        cap = self.limits.message_char_cap
        user, assistant = truncate(user, cap), truncate(assistant, cap)
        gone = frozenset(replaces)
        latest = ThreadState()
        replaced = 0

        async def build(state: ThreadState, head: Head | None) -> _Write | None:
            nonlocal latest, replaced
            kept = state.without_turns(gone)
            if _is_duplicate(kept, turn, user, assistant):
                return None
            replaced = (len(state.messages) - len(kept.messages)) // 2
            latest = _with_turn(kept, turn, user, assistant)
            return await self._with_compaction(latest, head, on_status)

        try:
            write = await self._commit(thread_id, build)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("chat memory write failed (source=%s, %s)", turn.source, type(exc).__name__)
            emit(on_status, "failed", latest)
            return AppendResult(written=False, skipped="memory-unavailable")
        if write is None:
            return AppendResult(written=False, skipped="duplicate")
        if write.deferred is not None:
            emit(on_status, "started", write.state)
            self._start_compaction(thread_id, write.deferred)
        log.debug("chat memory turn written (source=%s, compactor=%s)", turn.source, write.used)
        return AppendResult(
            written=True,
            compacted=write.used is not None,
            compactor=write.used,
            pending=write.deferred is not None,
            message_ids=tuple(m.id for m in latest.messages[-2:]),
            replaced=replaced,
        )

    async def _with_compaction(
        self, state: ThreadState, head: Head | None, on_status: StatusCallback | None
    ) -> _Write:
        """The write of ``state``: folded now if it must be, with the lease of the model
        compaction under way (``memory/compaction/pending.py``), or of one it starts."""
        metadata = _carried(head)
        pending = PendingCompaction.of(head.metadata if head else None)
        if pending is not None and not pending.live():
            pending = None  # its process died or gave up: the next overflow starts anew
        request = split_window(state, self.limits)
        write = _Write(state, metadata)
        if request is not None and (
            not self.defers_compaction or len(state.messages) > self.limits.pending_max_messages
        ):
            # An inline compactor folds now; a deferred one that fell behind is overtaken
            # by the extractive one, so the window's bound holds.
            write.state, write.used = await compact(
                state,
                request,
                primary=self.fallback if self.defers_compaction else self.compactor,
                fallback=self.fallback,
                limits=self.limits,
                on_status=on_status,
            )
            metadata[LAST_COMPACTION_KEY] = _outcome("succeeded", write.used)
            if pending is not None:
                pending = pending.overtaken(request.folded, self.limits)
        elif request is not None and pending is None:
            pending = PendingCompaction.start(request, self.limits)
            write.deferred = _Deferred(request, pending.lease)
        if pending is not None:
            metadata.update(pending.to_metadata())
        return write

    # --- compactions after the turn --------------------------------------------------------

    def _start_compaction(self, thread_id: str, deferred: _Deferred) -> None:
        # A fresh context: the task must not carry the finished run's config or callbacks.
        task = asyncio.get_running_loop().create_task(
            self._compact_later(thread_id, deferred),
            name=f"aimind-compaction-{thread_id[-8:]}",
            context=contextvars.Context(),
        )
        tasks = self._pending.setdefault(thread_id, set())
        tasks.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            tasks.discard(finished)
            if not tasks and self._pending.get(thread_id) is tasks:
                del self._pending[thread_id]

        task.add_done_callback(done)

    async def _compact_later(self, thread_id: str, deferred: _Deferred) -> None:
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
        self, thread_id: str, deferred: _Deferred, output: CompactionOutput, used: str
    ) -> None:
        """Put the compaction's result on whatever the thread holds now, if the thread
        still holds this compaction's lease; turns written meanwhile stay."""
        status = "succeeded" if used == self.compactor.name else "failed"
        request = deferred.request

        async def build(state: ThreadState, head: Head | None) -> _Write | None:
            pending = _own_lease(head, deferred.lease)
            if pending is None:
                log.info("a deferred compaction was superseded; its result is dropped")
                return None
            landed = await self._rebased(state, request, pending, output, used)
            if landed is None:
                return None
            metadata = {
                **_carried(head),
                LAST_COMPACTION_KEY: _outcome(status, used),
                LANDED_KEY: status_event(status, landed),
            }
            return self._followed_up(_Write(landed, metadata))

        write = await self._commit(thread_id, build)
        if write is not None and write.deferred is not None:
            self._start_compaction(thread_id, write.deferred)

    def _followed_up(self, write: _Write) -> _Write:
        """The landing ``write``, with the lease of a follow-up compaction when the turns
        written while it ran still leave the window past ``RECENT_TURNS`` (contract §5, "the
        quiet window is the window"): the model folds them too, under a new lease taken
        in the landing's own compare-and-put, so no write in between starts another."""
        request = split_window(write.state, self.limits)
        if request is None:
            return write
        pending = PendingCompaction.start(request, self.limits)
        write.metadata.update(pending.to_metadata())
        write.deferred = _Deferred(request, pending.lease)
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

        async def build(state: ThreadState, head: Head | None) -> _Write | None:
            if _own_lease(head, lease) is None:
                return None
            metadata = {
                **_carried(head),
                LAST_COMPACTION_KEY: _outcome("failed", self.compactor.name),
                LANDED_KEY: status_event("failed", state),
            }
            return _Write(state, metadata)

        try:
            await self._commit(thread_id, build)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("a failed chat memory compaction went unreported (%s)", type(exc).__name__)

    async def settle(self, session: str | None = None, *, within_s: float | None = None) -> None:
        """Wait for this service's pending compactions (of ``session``, or all), and for
        the follow-ups their landings start, within ``within_s`` in all."""
        loop = asyncio.get_running_loop()
        deadline = None if within_s is None else loop.time() + within_s
        thread_id = None if session is None else self.thread_id(session)
        while True:
            if thread_id is None:
                tasks = {t for per_thread in self._pending.values() for t in per_thread}
            else:
                tasks = set(self._pending.get(thread_id, ()))
            left = None if deadline is None else deadline - loop.time()
            if not tasks or (left is not None and left <= 0):
                return
            await asyncio.wait(tasks, timeout=left)

    async def aclose(self) -> None:
        """Give pending compactions ``COMPACTION_SHUTDOWN_GRACE_S`` to land, then abandon
        the rest (their leases expire: a later write on any process starts them anew)."""
        await self.settle(within_s=COMPACTION_SHUTDOWN_GRACE_S)
        tasks = [t for per_thread in self._pending.values() for t in per_thread]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- the user's corrections (contract §9a) ------------------------------------------------

    async def _edit(
        self,
        session: str,
        change: Callable[[ThreadState], ThreadState],
        *,
        summary_edited: bool = False,
    ) -> ThreadState:
        """Write ``change(state)`` like a turn: under the thread's lock, compare-and-put,
        again on fresh state when another writer came first. A pending compaction's lease
        is carried (its landing then honours the edit). MemoryEditError from ``change``
        goes to the caller, nothing written; a storage failure is MemoryUnavailableError."""
        thread_id = self.thread_id(session)

        async def build(state: ThreadState, head: Head | None) -> _Write:
            changed = change(state)
            metadata = _carried(head, edit=True)
            pending = PendingCompaction.of(head.metadata if head else None)
            if summary_edited and pending is not None:
                metadata.update(pending.with_summary_edited().to_metadata())
            return _Write(changed, metadata)

        try:
            write = await self._commit(thread_id, build)
        except (asyncio.CancelledError, AIMindError):
            raise
        except Exception as exc:
            log.warning("chat memory edit failed (%s)", type(exc).__name__)
            raise MemoryUnavailableError() from exc
        assert write is not None  # build always writes
        return write.state

    async def pins(self, session: str) -> list[Pin]:
        """The session's pins with their provenance, oldest first."""
        return list((await self.snapshot(session)).state.pins)

    async def pin(
        self,
        session: str,
        text: str,
        *,
        message_id: str | None = None,
        role: Role | None = None,
        created_at: datetime | None = None,
        excerpt: str | None = None,
    ) -> Pin:
        """Pin ``text`` for the session ("remember this"): a user pin, which no compaction
        removes. ``message_id``: the message it came from, its source — memory's copy of
        it while it is in the window; for an older message (a chat page shows the whole
        conversation), ``role``, ``created_at`` (if known) and ``excerpt`` (its words the
        pin was taken from; default ``text``) describe it: the user is the authority on
        where their own pin came from. Without ``role`` an older message is not named.
        Raises PinTextError (blank, too long), PinSourceError (a role that is not "user"
        or "assistant"; a description without ``message_id``) or PinLimitError (every
        pin is the user's)."""
        made: list[Pin] = []

        def change(state: ThreadState) -> ThreadState:
            state, pin = with_pin(
                state,
                text,
                self.limits,
                message_id=message_id,
                role=role,
                created_at=created_at,
                excerpt=excerpt,
            )
            made[:] = [pin]
            return state

        await self._edit(session, change)
        return made[0]

    async def edit_pin(self, session: str, pin_id: str, text: str) -> Pin:
        """Change a pin's text; it becomes the user's. Raises PinNotFoundError, PinTextError."""
        made: list[Pin] = []

        def change(state: ThreadState) -> ThreadState:
            state, pin = with_pin_edited(state, pin_id, text, self.limits)
            made[:] = [pin]
            return state

        await self._edit(session, change)
        return made[0]

    async def unpin(self, session: str, pin_id: str) -> Pin:
        """Remove a pin; no later compaction pins its text again. Returns the removed pin.
        Raises PinNotFoundError."""
        gone: list[Pin] = []

        def change(state: ThreadState) -> ThreadState:
            state, pin = without_pin(state, pin_id)
            gone[:] = [pin]
            return state

        await self._edit(session, change)
        return gone[0]

    async def set_summary(self, session: str, text: str) -> ThreadState:
        """Replace the summary with the user's text (blank clears it): new turns fold onto
        it, a compaction already running included. Raises SummaryTextError."""
        return await self._edit(
            session, lambda state: with_summary(state, text, self.limits), summary_edited=True
        )

    async def forget(self, session: str) -> None:
        """Forget the session's memory for good: its memory thread, pins and summary, and
        on SQLite every deleted byte of the database's files (``secure_delete`` zeroes the
        rows, ``scrub`` empties the WAL, which covers the server's deletes that came
        before it). The servers' ``DELETE /api/chat/session`` removes the session's threads
        first, then calls this. Raises MemoryUnavailableError (nothing is half forgotten:
        calling it again finishes the job)."""
        try:
            await self.clear(session)
            await self.backend.threads.scrub()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("forgetting chat memory failed (%s)", type(exc).__name__)
            raise MemoryUnavailableError() from exc

    async def export(self, session: str) -> dict[str, Any]:
        """The session's memory as one JSON document: state, pins with provenance, and the
        last compaction. Raises MemoryUnavailableError."""
        snapshot = await self.snapshot(session)
        return export_dto(self.thread_id(session), snapshot.state, snapshot.last_compaction)

    # --- reading -----------------------------------------------------------------------------

    async def snapshot(self, session: str) -> MemorySnapshot:
        """The session's memory now, never waiting for a compaction. Raises
        MemoryUnavailableError."""
        thread_id = self.thread_id(session)
        try:
            state, head = await self.store.read(thread_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("chat memory read failed (%s)", type(exc).__name__)
            raise MemoryUnavailableError() from exc
        metadata = head.metadata if head else {}
        return MemorySnapshot(
            state=state,
            pending=len(state.messages) > self.limits.max_messages,
            last_compaction=metadata.get(LAST_COMPACTION_KEY),
            landed=metadata.get(LANDED_KEY),
            version=head.id if head else None,
        )

    async def load(self, session: str) -> ThreadState:
        """The session's ThreadState (empty if none), after any compaction this service
        has pending for it (read your writes). Raises MemoryUnavailableError."""
        await self.settle(
            session, within_s=self.limits.compaction_timeout_s + COMPACTION_SHUTDOWN_GRACE_S
        )
        return (await self.snapshot(session)).state

    async def hydrate(self, session: str) -> dict[str, Any]:
        """The §9 DTO, without waiting; a read error gives the empty DTO, with no detail."""
        thread_id = self.thread_id(session)
        try:
            state: ThreadState | None = (await self.snapshot(session)).state
        except MemoryUnavailableError:
            state = None
        return hydration_dto(thread_id, state)

    async def clear(self, session: str) -> None:
        thread_id = self.thread_id(session)
        async with self.locks.hold(thread_id):
            await self.store.delete(thread_id)


def _carried(head: Head | None, *, edit: bool = False) -> dict[str, Any]:
    """Metadata a new checkpoint keeps from its parent: how the last compaction went; and,
    for a user's edit (not a turn), the pending compaction's lease and the landing the
    next run reports."""
    keys = (LAST_COMPACTION_KEY, PENDING_KEY, LANDED_KEY) if edit else (LAST_COMPACTION_KEY,)
    if head is None:
        return {}
    return {k: head.metadata[k] for k in keys if k in head.metadata}


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


def _outcome(status: str, compactor: str) -> dict[str, Any]:
    return {"status": status, "compactor": compactor, "at": utcnow().isoformat()}


def _own_lease(head: Head | None, lease: str) -> PendingCompaction | None:
    """The thread's pending compaction if it is still the one of ``lease``."""
    pending = PendingCompaction.of(head.metadata if head else None)
    return pending if pending is not None and pending.lease == lease else None


async def _pause(attempt: int) -> None:
    """Full-jitter backoff before retrying a refused compare-and-put."""
    await asyncio.sleep(random.uniform(0, min(WRITE_RETRY_MAX_S, WRITE_RETRY_FIRST_S * 2**attempt)))


def _with_turn(state: ThreadState, turn: FinalTurn, user: str, assistant: str) -> ThreadState:
    now = utcnow()
    # one id cannot name two messages: the answer then gets its own
    assistant_id = turn.assistant_message_id
    if assistant_id == turn.user_message_id:
        assistant_id = None
    messages = [
        *state.messages,
        _message(turn.user_message_id, "user", user, now),
        _message(assistant_id, "assistant", assistant, now),
    ]
    return state.model_copy(update={"messages": messages})


def _message(message_id: str | None, role: str, text: str, now: datetime) -> ChatThreadMessage:
    return ChatThreadMessage(
        id=message_id or uuid.uuid4().hex, role=role, text=text, created_at=now
    )


def _is_duplicate(state: ThreadState, turn: FinalTurn, user: str, assistant: str) -> bool:
    """By id when the turn has ids; else the last two messages carry the same texts."""
    ids = {i for i in (turn.user_message_id, turn.assistant_message_id) if i}
    if ids:
        return any(m.id in ids for m in state.messages)
    last = state.messages[-2:]
    return [(m.role, m.text.strip()) for m in last] == [("user", user), ("assistant", assistant)]


def resolve_compactor(
    compactor: Compactor | BaseChatModel | None, limits: MemoryLimits
) -> Compactor:
    """None: the LLM compactor if a model is configured (contract §11), else the extractive one."""
    if compactor is None:
        compactor = compaction_model()
    if isinstance(compactor, BaseChatModel):
        return LLMCompactor(compactor, limits)
    return compactor if compactor is not None else ExtractiveCompactor(limits)


@asynccontextmanager
async def open_memory(
    url: str | None = None,
    *,
    compactor: Compactor | BaseChatModel | None = None,
    limits: MemoryLimits | None = None,
) -> AsyncIterator[MemoryService]:
    """Open chat memory on ``url`` (default ``AIMIND_DATABASE_URL``, then embedded SQLite).

    Every setting memory reads (``memory.settings``) and the session secret are validated
    here, at start-up: a malformed one raises ``SettingsError`` naming it. On exit,
    pending compactions get a grace period to land (``MemoryService.aclose``).
    """
    settings = memory_settings()
    limits = limits or settings.limits
    secret = await asyncio.to_thread(load_secret)  # file I/O: keep it off the loop
    async with open_backend(database_url(url)) as backend:
        service = MemoryService(backend, secret, limits, resolve_compactor(compactor, limits))
        try:
            yield service
        finally:
            await service.aclose()
