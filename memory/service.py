"""The memory service behind ``open_memory()`` (contract §4, §5, §13).

A turn is one durable write (``memory.writes``: read, build, compare-and-put). When
it makes the window overflow, the old turns are folded within that write or by a
model after it (``memory.deferred``). A turn may replace earlier turns of the window
(``append_turn(..., replaces=)``: a regenerated answer, an edited question): they leave
in the turn's own write. The user's corrections (contract §9a) are written like turns.
What a fold takes out of the window goes to the session's archive in the same write,
and ``recall`` looks it up (contract §5a, ``memory.archive``).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any

from aimind_memory.memory.archive import RecallHit, recall
from aimind_memory.memory.compaction import Compactor, StatusCallback, emit
from aimind_memory.memory.compaction.analysis import booking
from aimind_memory.memory.compaction.extractive import ExtractiveCompactor
from aimind_memory.memory.compaction.llm import LLMCompactor
from aimind_memory.memory.compaction.pending import PendingCompaction
from aimind_memory.memory.config.limits import COMPACTION_SHUTDOWN_GRACE_S, MemoryLimits
from aimind_memory.memory.config.model import compaction_model
from aimind_memory.memory.config.settings import memory_settings
from aimind_memory.memory.deferred import DeferredCompactions
from aimind_memory.memory.edits import with_pin, with_pin_edited, with_summary, without_pin
from aimind_memory.memory.errors import AIMindError, MemoryUnavailableError
from aimind_memory.memory.models import (
    WRITABLE_STATUSES,
    AppendResult,
    ChatThreadMessage,
    FinalTurn,
    Pin,
    Role,
    ThreadState,
    utcnow,
)
from aimind_memory.memory.session import SessionHash, load_secret, memory_thread_id, resolve_session
from aimind_memory.memory.storage import Backend, Head, database_url, open_backend
from aimind_memory.memory.storage.store import LAST_COMPACTION_KEY, ThreadStore, build_memory_graph
from aimind_memory.memory.text import clean_text, truncate
from aimind_memory.memory.views.hydration import export_dto, hydration_dto
from aimind_memory.memory.writes import LANDED_KEY, Build, Write, carried, commit

if TYPE_CHECKING:  # langchain's model and graph packages cost a process seconds to import
    from langchain_core.language_models import BaseChatModel
    from langgraph.graph.state import CompiledStateGraph

log = logging.getLogger("aimind.memory")


@dataclass(frozen=True, slots=True)
class MemorySnapshot:
    """A session's memory as it is now, with what a client should know about it
    (``MemoryService.snapshot``)."""

    state: ThreadState
    """The summary, the pins and the recent turns."""
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


class MemoryService:
    """Bounded chat memory on one backend: append turns, load, hydrate, clear, and the
    user's corrections. Made by ``open_memory``, which is how to get one.

    Args:
        backend: The opened storage backend (SQLite, PostgreSQL or in-process).
        secret: The key session tokens are hashed with.
        limits: The bounds the memory keeps.
        compactor: What folds turns past the window.
    """

    def __init__(
        self,
        backend: Backend,
        secret: bytes,
        limits: MemoryLimits,
        compactor: Compactor,
    ) -> None:
        self.backend = backend
        self.store = ThreadStore(backend, archive_keep=limits.archive_messages)
        self.locks = backend.locks
        self.limits = limits
        # Memory's own compactor is its own fallback: its output is made of the
        # conversation's words, so the gate that reads a model's output skips it.
        fallback = compactor if type(compactor) is ExtractiveCompactor else None
        self.compactions = DeferredCompactions(
            self.store, self.locks, limits, compactor, fallback or ExtractiveCompactor(limits)
        )
        self._secret = secret

    @cached_property
    def graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        """The memory thread as a LangGraph graph (``aget_state`` reads memory). Built on
        first use: memory's own reads and writes never need it."""
        return build_memory_graph(self.backend.saver)

    @property
    def compactor(self) -> Compactor:
        """The compactor that folds old turns: a model's after the turn, or an inline one
        (``compactions.compactor`` to change it)."""
        return self.compactions.compactor

    @property
    def fallback(self) -> Compactor:
        """The extractive compactor: when the model fails, and when a window overflows its
        hard bound before the model's fold lands."""
        return self.compactions.fallback

    @property
    def defers_compaction(self) -> bool:
        """A model compactor runs after the turn; an ``inline`` one within it."""
        return self.compactions.deferred

    def identity(self, session: str) -> SessionHash:
        """The session hash memory keys a session by.

        Args:
            session: A raw session token, or a ``SessionHash``.

        Returns:
            The token's HMAC with the secret, or the ``SessionHash`` itself.

        Raises:
            InvalidSessionError: The token is malformed.
        """
        return resolve_session(session, self._secret)

    def thread_id(self, session: str) -> str:
        """The session's memory thread id.

        Args:
            session: A raw session token, or a ``SessionHash``.

        Returns:
            ``chat:<sessionHash>``.

        Raises:
            InvalidSessionError: The token is malformed.
        """
        return memory_thread_id(self.identity(session))

    async def _commit(self, thread_id: str, build: Build) -> Write | None:
        """``memory.writes.commit`` on this service's store and locks."""
        return await commit(self.store, self.locks, thread_id, build)

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

        Never raises for a storage or compaction failure: the result says
        ``memory-unavailable`` and a ``failed`` status is emitted.

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).
            turn: The user's text and the final answer's, with the run's status.
            on_status: Called with each ``thread-memory-status`` event (a compaction
                started, completed or failed).
            replaces: Ids of messages whose turns this one replaces (a regenerated
                answer, an edited question): those turns leave the window in the same
                compare-and-put that writes this one, so no reader ever sees both or
                neither. Turns already folded into the summary stay there.

        Returns:
            What was done: ``written`` False with the reason in ``skipped`` (a status
            that is not final, empty text, a duplicate, memory unavailable).

        Raises:
            InvalidSessionError: The session token is malformed.
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

        async def build(state: ThreadState, head: Head | None) -> Write | None:
            nonlocal latest, replaced
            kept = state.without_turns(gone)
            if _is_duplicate(kept, turn, user, assistant):
                return None
            replaced = (len(state.messages) - len(kept.messages)) // 2
            latest = _with_turn(kept, turn, user, assistant)
            return await self.compactions.fold_or_defer(latest, head, on_status)

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
            self.compactions.start(thread_id, write.deferred)
        self.compactions.read_ahead(write.state)
        log.debug("chat memory turn written (source=%s, compactor=%s)", turn.source, write.used)
        return AppendResult(
            written=True,
            compacted=write.used is not None,
            compactor=write.used,
            pending=write.deferred is not None,
            message_ids=tuple(m.id for m in latest.messages[-2:]),
            replaced=replaced,
        )

    async def settle(self, session: str | None = None, *, within_s: float | None = None) -> None:
        """Wait for this service's pending compactions, and for the follow-ups their
        landings start.

        Args:
            session: Whose compactions to wait for (a token or ``SessionHash``); None:
                every session's.
            within_s: How long to wait in all; None: until they are done.
        """
        thread_id = None if session is None else self.thread_id(session)
        await self.compactions.settle(thread_id, within_s=within_s)

    async def aclose(self) -> None:
        """Give pending compactions ``COMPACTION_SHUTDOWN_GRACE_S`` to land, then abandon
        the rest (their leases expire: a later write on any process starts them anew)."""
        await self.compactions.aclose(COMPACTION_SHUTDOWN_GRACE_S)

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

        async def build(state: ThreadState, head: Head | None) -> Write:
            changed = change(state)
            metadata = carried(head, edit=True)
            pending = PendingCompaction.of(head.metadata if head else None)
            if summary_edited and pending is not None:
                metadata.update(pending.with_summary_edited().to_metadata())
            return Write(changed, metadata)

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
        """The session's pins with their provenance.

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).

        Returns:
            The pins, oldest first.

        Raises:
            MemoryUnavailableError: Memory could not be read.
        """
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
        removes.

        The user is the authority on where their own pin came from: for a message older
        than the window (a chat page shows the whole conversation), ``role``,
        ``created_at`` and ``excerpt`` describe it; without ``role`` an older message is
        not named.

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).
            text: What to remember.
            message_id: The message it came from, its source: memory's copy of it while
                it is in the window.
            role: Who said the source message, ``"user"`` or ``"assistant"``.
            created_at: When the source message was said, if known.
            excerpt: The source's words the pin was taken from; default ``text``.

        Returns:
            The new pin, with its id and provenance.

        Raises:
            PinTextError: The text is blank or longer than a pin may be.
            PinSourceError: A role that is not ``"user"`` or ``"assistant"``, or a
                description without ``message_id``.
            PinLimitError: The pins are full and every one is the user's.
            MemoryUnavailableError: Memory could not be written.
        """
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
        """Change a pin's text; it becomes the user's.

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).
            pin_id: The pin's id.
            text: Its new text.

        Returns:
            The edited pin.

        Raises:
            PinNotFoundError: The session has no pin with that id.
            PinTextError: The text is blank or longer than a pin may be.
            MemoryUnavailableError: Memory could not be written.
        """
        made: list[Pin] = []

        def change(state: ThreadState) -> ThreadState:
            state, pin = with_pin_edited(state, pin_id, text, self.limits)
            made[:] = [pin]
            return state

        await self._edit(session, change)
        return made[0]

    async def unpin(self, session: str, pin_id: str) -> Pin:
        """Remove a pin; no later compaction pins its text again.

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).
            pin_id: The pin's id.

        Returns:
            The removed pin.

        Raises:
            PinNotFoundError: The session has no pin with that id.
            MemoryUnavailableError: Memory could not be written.
        """
        gone: list[Pin] = []

        def change(state: ThreadState) -> ThreadState:
            state, pin = without_pin(state, pin_id)
            gone[:] = [pin]
            return state

        await self._edit(session, change)
        return gone[0]

    async def set_summary(self, session: str, text: str) -> ThreadState:
        """Replace the summary with the user's text: new turns fold onto it, a compaction
        already running included.

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).
            text: The new summary; blank clears it.

        Returns:
            The session's memory with the new summary.

        Raises:
            SummaryTextError: The text is longer than the summary may be.
            MemoryUnavailableError: Memory could not be written.
        """
        return await self._edit(
            session, lambda state: with_summary(state, text, self.limits), summary_edited=True
        )

    async def forget(self, session: str) -> None:
        """Forget the session's memory for good: its memory thread, pins, summary and
        archive, and on SQLite every deleted byte of the database's files
        (``secure_delete`` zeroes the rows, ``scrub`` merges the archive index and
        empties the WAL, which covers the server's deletes that came before it). The
        servers' ``DELETE /api/chat/session`` removes the session's threads first, then
        calls this.

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).

        Raises:
            MemoryUnavailableError: Memory could not be deleted (nothing is half
                forgotten: calling it again finishes the job).
        """
        try:
            await self.clear(session)
            await self.backend.threads.scrub()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("forgetting chat memory failed (%s)", type(exc).__name__)
            raise MemoryUnavailableError() from exc

    async def export(self, session: str) -> dict[str, Any]:
        """The session's memory as one JSON document.

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).

        Returns:
            The state, the pins with their provenance, the last compaction and the
            archive of folded turns.

        Raises:
            MemoryUnavailableError: Memory could not be read.
        """
        snapshot = await self.snapshot(session)
        thread_id = self.thread_id(session)
        try:
            archived = await self.backend.archive.every(thread_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("chat memory archive read failed (%s)", type(exc).__name__)
            raise MemoryUnavailableError() from exc
        return export_dto(thread_id, snapshot.state, snapshot.last_compaction, archived)

    # --- recall (contract §5a) ---------------------------------------------------------------

    async def recall(
        self,
        session: str,
        query: str,
        *,
        exclude: Collection[str] | None = None,
        budget: int | None = None,
    ) -> list[RecallHit]:
        """The session's archived turns most relevant to ``query``, best first, never
        another session's (contract §5a).

        Args:
            session: The session: its raw token, or its ``SessionHash``.
            query: What to look up, in the user's words (never query syntax).
            exclude: Message ids to leave out; None leaves out the messages in the
                session's window (they are in the model's context already).
            budget: The most characters of text in all; None: ``AIMIND_RECALL_CHARS``.

        Returns:
            The hits, best first: each the text (whole, or the part around the query's
            words), the archived message it is from, when and who said it.

        Raises:
            MemoryUnavailableError: The archive could not be read (the caller goes on
                without recall).
        """
        thread_id = self.thread_id(session)
        if exclude is None:
            exclude = {m.id for m in (await self.snapshot(session)).state.messages}
        chars = self.limits.recall_chars if budget is None else budget
        try:
            return await recall(
                self.backend.archive, thread_id, query, budget=chars, exclude=exclude
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("chat memory recall failed (%s)", type(exc).__name__)
            raise MemoryUnavailableError() from exc

    # --- reading -----------------------------------------------------------------------------

    async def snapshot(self, session: str) -> MemorySnapshot:
        """The session's memory now, never waiting for a compaction.

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).

        Returns:
            The memory and what a client should know about it (a compaction due, the
            last one, one landed since the last turn).

        Raises:
            MemoryUnavailableError: Memory could not be read.
        """
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
        """The session's memory after any compaction this service has pending for it
        (read your writes).

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).

        Returns:
            The session's ``ThreadState``; an empty one if it has no memory yet.

        Raises:
            MemoryUnavailableError: Memory could not be read.
        """
        await self.settle(
            session, within_s=self.limits.compaction_timeout_s + COMPACTION_SHUTDOWN_GRACE_S
        )
        return (await self.snapshot(session)).state

    async def hydrate(self, session: str) -> dict[str, Any]:
        """What a client shows of the session's memory (contract §9), without waiting.

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).

        Returns:
            The hydration DTO: the thread id, the recent turns, the summary and the
            pins; the empty DTO, with no detail, when memory could not be read.
        """
        thread_id = self.thread_id(session)
        try:
            state: ThreadState | None = (await self.snapshot(session)).state
        except MemoryUnavailableError:
            state = None
        return hydration_dto(thread_id, state)

    async def clear(self, session: str) -> None:
        """Delete the session's memory thread and its archive, in one step under its lock
        (``forget`` also scrubs the files).

        Args:
            session: The session: its raw token, or its ``SessionHash`` (an authenticated
                identity the server hashed already).
        """
        thread_id = self.thread_id(session)
        async with self.locks.hold(thread_id):
            await self.store.delete(thread_id)


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
    if compactor is None:
        return ExtractiveCompactor(limits)
    from langchain_core.language_models import BaseChatModel  # only a given one needs it

    if isinstance(compactor, BaseChatModel):
        return LLMCompactor(compactor, limits)
    return compactor


@asynccontextmanager
async def open_memory(
    url: str | None = None,
    *,
    compactor: Compactor | BaseChatModel | None = None,
    limits: MemoryLimits | None = None,
) -> AsyncIterator[MemoryService]:
    """Open chat memory, for an ``async with`` block.

    Every setting memory reads and the session secret are validated here, at start-up. On
    exit, pending compactions get a grace period to land (``MemoryService.aclose``).

    Args:
        url: ``sqlite:///path``, ``postgresql://…`` or ``memory`` (in process only);
            default ``AIMIND_DATABASE_URL``, else the data folder's SQLite file.
        compactor: What folds old turns: a ``Compactor``, or a LangChain chat model to
            compact with; None: the model compactor when a model is configured
            (``OPENAI_API_KEY``), else the extractive one.
        limits: The bounds memory keeps; default the settings' (``AIMIND_RECENT_TURNS``
            …).

    Yields:
        The memory service, open until the block ends.

    Raises:
        SettingsError: A setting is malformed; its message names the variable.
        DatabaseURLError: The URL names no backend memory supports.
        DatabaseUnreachableError: The URL names a PostgreSQL database that did not
            answer; the message says why.
        SecretConfigError: ``AIMIND_ENV=production`` without ``AIMIND_SESSION_SECRET``.
    """
    settings = memory_settings()
    limits = limits or settings.limits
    if settings.offline_profile is not None:  # the offline engine's rules, process-wide
        booking.use(settings.offline_profile)
    secret = await asyncio.to_thread(load_secret)  # file I/O: keep it off the loop
    async with open_backend(database_url(url)) as backend:
        service = MemoryService(backend, secret, limits, resolve_compactor(compactor, limits))
        try:
            yield service
        finally:
            await service.aclose()
