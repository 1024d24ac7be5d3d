"""The memory service behind ``open_memory()`` (SPEC §4, §13)."""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph

from memory.checkpointer import (
    backend_of,
    database_url,
    open_checkpointer,
    sqlite_path,
)
from memory.compaction import Compactor, StatusCallback, compact, emit, split_window
from memory.extractive import ExtractiveCompactor
from memory.hydration import hydration_dto
from memory.limits import (
    WRITE_ATTEMPTS,
    WRITE_RETRY_FIRST_S,
    WRITE_RETRY_MAX_S,
    MemoryLimits,
)
from memory.llm_compactor import LLMCompactor
from memory.locks import FileLocks, LocalLocks, ThreadLocks
from memory.models import (
    WRITABLE_STATUSES,
    AppendResult,
    ChatThreadMessage,
    FinalTurn,
    ThreadState,
    utcnow,
)
from memory.session import SessionHash, load_secret, memory_thread_id, resolve_session
from memory.stamps import SharedStamps
from memory.store import ThreadStore, build_memory_graph
from memory.text import clean_text, truncate

log = logging.getLogger("aimind.memory")


class MemoryUnavailableError(RuntimeError):
    """Memory could not be read or written. Its message is safe to show; the cause is logged."""

    def __init__(self) -> None:
        super().__init__("chat memory is unavailable right now")


class MemoryService:
    """Bounded chat memory on one saver: append turns, load, hydrate, clear."""

    def __init__(
        self,
        store: ThreadStore,
        locks: ThreadLocks,
        secret: bytes,
        limits: MemoryLimits,
        compactor: Compactor,
    ) -> None:
        self.store = store
        self.locks = locks
        self.limits = limits
        self.compactor = compactor
        self.fallback = ExtractiveCompactor(limits)
        self._secret = secret
        self.graph: CompiledStateGraph = build_memory_graph(store.saver)

    def identity(self, session: str) -> SessionHash:
        """The session hash of a raw token, or the ``SessionHash`` itself."""
        return resolve_session(session, self._secret)

    def thread_id(self, session: str) -> str:
        return memory_thread_id(self.identity(session))

    async def append_turn(
        self, session: str, turn: FinalTurn, *, on_status: StatusCallback | None = None
    ) -> AppendResult:
        """Write one finished turn once, compacting when the window overflows.

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
                    state, previous = await self.store.read(thread_id, for_write=attempt == 0)
                    if _is_duplicate(state, turn, user, assistant):
                        return AppendResult(written=False, skipped="duplicate")
                    state = _with_turn(state, turn, user, assistant)
                    used = None
                    if request := split_window(state, self.limits):
                        state, used = await compact(
                            state,
                            request,
                            primary=self.compactor,
                            fallback=self.fallback,
                            limits=self.limits,
                            on_status=on_status,
                        )
                    if await self.store.write(thread_id, state, previous):
                        break
                    await asyncio.sleep(
                        random.uniform(0, min(WRITE_RETRY_MAX_S, WRITE_RETRY_FIRST_S * 2**attempt))
                    )
                else:
                    raise WriteConflictError(thread_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("chat memory write failed (source=%s)", turn.source, exc_info=True)
            emit(on_status, "failed", state)
            return AppendResult(written=False, skipped="memory-unavailable")
        log.debug("chat memory turn written (source=%s, compactor=%s)", turn.source, used)
        return AppendResult(written=True, compacted=used is not None, compactor=used)

    async def load(self, session: str) -> ThreadState:
        """The session's ThreadState (empty if none). Raises MemoryUnavailableError."""
        thread_id = self.thread_id(session)
        try:
            state, _ = await self.store.read(thread_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("chat memory read failed", exc_info=True)
            raise MemoryUnavailableError() from exc
        return state

    async def hydrate(self, session: str) -> dict[str, Any]:
        """The §9 DTO; a read error gives the empty DTO, with no error detail."""
        thread_id = self.thread_id(session)
        try:
            state = await self.load(session)
        except MemoryUnavailableError:
            state = None
        return hydration_dto(thread_id, state)

    async def clear(self, session: str) -> None:
        thread_id = self.thread_id(session)
        async with self.locks.hold(thread_id):
            await self.store.delete(thread_id)


class WriteConflictError(RuntimeError):
    """Other processes kept writing the session first, ``WRITE_ATTEMPTS`` times over."""


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


def _message(message_id: str | None, role: str, text: str, now: Any) -> ChatThreadMessage:
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
    if isinstance(compactor, BaseChatModel):
        return LLMCompactor(compactor, limits)
    if compactor is not None:
        return compactor
    from adapters.models import compaction_model  # the model provider edge (SPEC §2)

    model = compaction_model()
    return LLMCompactor(model, limits) if model is not None else ExtractiveCompactor(limits)


@asynccontextmanager
async def open_memory(
    url: str | None = None,
    *,
    compactor: Compactor | BaseChatModel | None = None,
    limits: MemoryLimits | None = None,
) -> AsyncIterator[MemoryService]:
    """Open chat memory on ``url`` (default ``AIMIND_DATABASE_URL``, then embedded SQLite).

    Limits and the session secret are validated here, at start-up.
    """
    limits = limits or MemoryLimits.from_env()
    secret = await asyncio.to_thread(load_secret)  # file I/O: keep it off the loop
    url = database_url(url)
    backend = backend_of(url)
    async with AsyncExitStack() as stack:
        saver = await stack.enter_async_context(open_checkpointer(url))
        locks: ThreadLocks = LocalLocks()
        stamps = None
        if backend == "sqlite":
            path = sqlite_path(url)
            file_locks = await asyncio.to_thread(FileLocks, Path(f"{path}.lock"))
            stack.callback(file_locks.close)
            stamps = await asyncio.to_thread(SharedStamps, Path(f"{path}.stamps"))
            stack.callback(stamps.close)
            locks = file_locks
        yield MemoryService(
            ThreadStore(saver, stamps), locks, secret, limits, resolve_compactor(compactor, limits)
        )
