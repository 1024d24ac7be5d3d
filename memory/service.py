"""The memory service behind ``open_memory()`` (SPEC §4, §5, §13).

A turn is one durable write. When it makes the window overflow, the
extractive compactor folds the old turns in that same write (it takes a few
milliseconds); a model compactor runs afterwards instead, in a task of this
process, so the run that triggered it ends at once (SPEC §5). The task lands
its result with a compare-and-put on whatever the thread holds by then: turns
written meanwhile stay, and a result whose window was folded by someone else in
the meantime is dropped. Only the write that made the window overflow starts
a compaction, so two processes never compact the same window; if one is lost
(a killed process) or slow, the window grows at most to
``pending_max_messages`` and the next write folds it inline.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph

from memory.backends import Backend, Head, database_url, open_backend
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
from memory.extractive import ExtractiveCompactor
from memory.hydration import hydration_dto
from memory.limits import (
    COMPACTION_SHUTDOWN_GRACE_S,
    COMPACTION_START_DELAY_S,
    WRITE_ATTEMPTS,
    WRITE_RETRY_FIRST_S,
    WRITE_RETRY_MAX_S,
    MemoryLimits,
)
from memory.llm_compactor import LLMCompactor
from memory.model_config import compaction_model
from memory.models import (
    WRITABLE_STATUSES,
    AppendResult,
    ChatThreadMessage,
    FinalTurn,
    ThreadState,
    utcnow,
)
from memory.session import SessionHash, load_secret, memory_thread_id, resolve_session
from memory.store import ThreadStore, build_memory_graph
from memory.text import clean_text, truncate

log = logging.getLogger("aimind.memory")

LAST_COMPACTION_KEY = "aimind_last_compaction"
"""Checkpoint metadata: how the thread's last compaction went (carried forward)."""
LANDED_KEY = "aimind_landed"
"""Checkpoint metadata: this checkpoint is a deferred compaction landing (the next
run reports it on its stream)."""


class MemoryUnavailableError(RuntimeError):
    """Memory could not be read or written. Its message is safe to show; the cause is logged."""

    def __init__(self) -> None:
        super().__init__("chat memory is unavailable right now")


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
    """The ``thread-memory-status`` event of a deferred compaction that landed since the
    last turn was written: the next run puts it on its stream."""


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
        self._pending: dict[str, asyncio.Task[None]] = {}
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

    # --- writing a turn ----------------------------------------------------------------------

    async def append_turn(
        self, session: str, turn: FinalTurn, *, on_status: StatusCallback | None = None
    ) -> AppendResult:
        """Write one finished turn once (SPEC §4).

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
        state = ThreadState()
        try:
            async with self.locks.hold(thread_id):
                for attempt in range(WRITE_ATTEMPTS):
                    state, head = await self.store.read(thread_id, for_write=attempt == 0)
                    if _is_duplicate(state, turn, user, assistant):
                        return AppendResult(written=False, skipped="duplicate")
                    overflowing = len(state.messages) > self.limits.max_messages
                    state = _with_turn(state, turn, user, assistant)
                    state, used, metadata, defer = await self._compact_inline(
                        state, head, overflowing, on_status
                    )
                    if await self.store.write(thread_id, state, head, metadata):
                        break
                    await _pause(attempt)
                else:
                    raise WriteConflictError(thread_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("chat memory write failed (source=%s)", turn.source, exc_info=True)
            emit(on_status, "failed", state)
            return AppendResult(written=False, skipped="memory-unavailable")
        if defer is not None:
            emit(on_status, "started", state)
            self._start_compaction(thread_id, defer)
        log.debug("chat memory turn written (source=%s, compactor=%s)", turn.source, used)
        return AppendResult(
            written=True, compacted=used is not None, compactor=used, pending=defer is not None
        )

    async def _compact_inline(
        self,
        state: ThreadState,
        head: Head | None,
        overflowing: bool,
        on_status: StatusCallback | None,
    ) -> tuple[ThreadState, str | None, dict[str, Any], CompactionRequest | None]:
        """What this write stores: the state (folded now if it must be), the compactor
        used, the checkpoint metadata, and the request to fold later, if any."""
        metadata = _carried(head)
        request = split_window(state, self.limits)
        if request is None:
            return state, None, metadata, None
        if self.defers_compaction and len(state.messages) <= self.limits.pending_max_messages:
            # Only the write that makes the window overflow starts a compaction.
            return state, None, metadata, None if overflowing else request
        # An inline compactor folds now; a deferred one that fell behind is replaced
        # by the extractive one, so the window's bound holds.
        state, used = await compact(
            state,
            request,
            primary=self.fallback if self.defers_compaction else self.compactor,
            fallback=self.fallback,
            limits=self.limits,
            on_status=on_status,
        )
        metadata[LAST_COMPACTION_KEY] = _outcome("succeeded", used)
        return state, used, metadata, None

    # --- compactions after the turn --------------------------------------------------------

    def _start_compaction(self, thread_id: str, request: CompactionRequest) -> None:
        # A fresh context: the task must not carry the finished run's config or callbacks.
        task = asyncio.get_running_loop().create_task(
            self._compact_later(thread_id, request),
            name=f"aimind-compaction-{thread_id[-8:]}",
            context=contextvars.Context(),
        )
        self._pending[thread_id] = task

        def done(finished: asyncio.Task[None]) -> None:
            if self._pending.get(thread_id) is finished:
                del self._pending[thread_id]

        task.add_done_callback(done)

    async def _compact_later(self, thread_id: str, request: CompactionRequest) -> None:
        """Run the model compaction, then land it; a failure only leaves the window long."""
        try:
            await asyncio.sleep(COMPACTION_START_DELAY_S)
            output, used = await run_compactor(
                request, primary=self.compactor, fallback=self.fallback, limits=self.limits
            )
            await self._land(thread_id, request, fold(request, output, self.limits), used)
        except asyncio.CancelledError:
            log.info("a pending chat memory compaction was abandoned at shutdown")
            raise
        except Exception:
            log.warning("a deferred chat memory compaction failed", exc_info=True)

    async def _land(
        self, thread_id: str, request: CompactionRequest, folded: ThreadState, used: str
    ) -> None:
        status = "succeeded" if used == self.compactor.name else "failed"
        async with self.locks.hold(thread_id):
            for attempt in range(WRITE_ATTEMPTS):
                state, head = await self.store.read(thread_id, for_write=attempt == 0)
                if not _still_folds(state, request):
                    log.info("a deferred compaction was superseded; its result is dropped")
                    return
                landed = folded.model_copy(
                    update={"messages": state.messages[len(request.folded) :]}
                )
                metadata = {
                    **_carried(head),
                    LAST_COMPACTION_KEY: _outcome(status, used),
                    LANDED_KEY: status_event(status, landed),
                }
                if await self.store.write(thread_id, landed, head, metadata):
                    return
                await _pause(attempt)
        raise WriteConflictError(thread_id)

    async def settle(self, session: str | None = None, *, within_s: float | None = None) -> None:
        """Wait for this service's pending compactions (of ``session``, or all)."""
        if session is None:
            tasks = set(self._pending.values())
        else:
            task = self._pending.get(self.thread_id(session))
            tasks = {task} if task else set()
        if tasks:
            await asyncio.wait(tasks, timeout=within_s)

    async def aclose(self) -> None:
        """Give pending compactions ``COMPACTION_SHUTDOWN_GRACE_S`` to land, then abandon
        the rest (their windows are folded inline by a later write)."""
        await self.settle(within_s=COMPACTION_SHUTDOWN_GRACE_S)
        tasks = list(self._pending.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

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
            log.warning("chat memory read failed", exc_info=True)
            raise MemoryUnavailableError() from exc
        metadata = head.metadata if head else {}
        return MemorySnapshot(
            state=state,
            pending=len(state.messages) > self.limits.max_messages,
            last_compaction=metadata.get(LAST_COMPACTION_KEY),
            landed=metadata.get(LANDED_KEY),
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


def _carried(head: Head | None) -> dict[str, Any]:
    """Metadata a new checkpoint keeps from its parent."""
    if head is None or LAST_COMPACTION_KEY not in head.metadata:
        return {}
    return {LAST_COMPACTION_KEY: head.metadata[LAST_COMPACTION_KEY]}


def _outcome(status: str, compactor: str) -> dict[str, Any]:
    return {"status": status, "compactor": compactor, "at": utcnow().isoformat()}


def _still_folds(state: ThreadState, request: CompactionRequest) -> bool:
    """The thread still starts with the turns the compaction folded, on the same summary
    and pins: nothing else compacted it in the meantime."""
    folded = [m.id for m in request.folded]
    return (
        [m.id for m in state.messages[: len(folded)]] == folded
        and state.summary == request.summary
        and state.pinned_decisions == request.pinned_decisions
    )


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
    """None: the LLM compactor if a model is configured (SPEC §11), else the extractive one."""
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

    Limits and the session secret are validated here, at start-up. On exit,
    pending compactions get a grace period to land (``MemoryService.aclose``).
    """
    limits = limits or MemoryLimits.from_env()
    secret = await asyncio.to_thread(load_secret)  # file I/O: keep it off the loop
    async with open_backend(database_url(url)) as backend:
        service = MemoryService(backend, secret, limits, resolve_compactor(compactor, limits))
        try:
            yield service
        finally:
            await service.aclose()
