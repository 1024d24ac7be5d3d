"""The one final-turn adapter every graph ends in, and the memory read at a turn's start.

Graphs reach memory only through this module (contract §2) and ``forks`` (what a run
from an earlier checkpoint replaces), and so does the agent middleware
(``adapters/chat_memory/middleware.py``): ``load_memory_state`` is the read,
``recall_for`` what the session's archive holds about the latest user message (contract
§5a, for the context's recall block), and ``write_final_turn`` the write. A graph maps
its finished state to a ``FinalTurn``; the write hands it to memory once, routes
``thread-memory-status`` to the custom stream, and never raises into the run (contract §4).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.chat_memory.session import session_of
from aimind_memory.adapters.errors import MemoryThreadError
from aimind_memory.memory import (
    AppendResult,
    FinalTurn,
    MemoryService,
    MemoryUnavailableError,
    RecallHit,
    ThreadState,
    build_context,
)
from aimind_memory.memory.archive import recall_event
from aimind_memory.memory.compaction import emit
from aimind_memory.memory.config.limits import MESSAGE_ID_MAX_CHARS
from aimind_memory.memory.errors import said
from aimind_memory.memory.session import MEMORY_THREAD_PREFIX

__all__ = [
    "FINAL_TURN_NODE",
    "RECALLED_KEY",
    "FinalTurn",
    "MemoryOpener",
    "RecallHit",
    "ThreadState",
    "build_context",
    "final_turn_node",
    "latest_human",
    "load_memory_state",
    "memory_message_id",
    "recall_for",
    "recalled_kwargs",
    "refuse_memory_thread",
    "write_final_turn",
]

log = logging.getLogger("aimind.final_turn")

FINAL_TURN_NODE = "final_turn"
RECALLED_KEY = "aimind_recalled"
"""An answer's ``additional_kwargs`` key: the earlier messages recalled for it (what the
``thread-memory-recall`` event said), so a page shows them again after a reload."""
TurnExtractor = Callable[[Any], FinalTurn | None]
MemoryOpener = Callable[[], Awaitable[MemoryService]]
"""Gives the service to use (``get_memory`` by default: the graphs')."""


def refuse_memory_thread(config: RunnableConfig | None) -> None:
    """Every graph's first node calls this: an agent run on a memory thread would
    overwrite the session's chat memory with its own GraphState (contract §8)."""
    thread_id = (config or {}).get("configurable", {}).get("thread_id")
    if isinstance(thread_id, str) and thread_id.startswith(MEMORY_THREAD_PREFIX):
        raise MemoryThreadError(MEMORY_THREAD_PREFIX)


def latest_human(messages: Sequence[BaseMessage] | None) -> HumanMessage | None:
    """The latest user message: the only input message any graph takes as the turn's."""
    for message in reversed(messages or []):
        if isinstance(message, HumanMessage):
            return message
    return None


def memory_message_id(value: Any, *, reserve: int = 0) -> str | None:
    """``value`` if it can be stored as a memory message id (with ``reserve`` chars to
    spare for a suffix), else None: memory then makes its own."""
    if isinstance(value, str) and 0 < len(value) <= MESSAGE_ID_MAX_CHARS - reserve:
        return value
    return None


def _writer(runtime: Runtime[Any] | None) -> Callable[[Any], None] | None:
    return getattr(runtime, "stream_writer", None)


async def load_memory_state(
    config: RunnableConfig,
    runtime: Runtime[Any] | None,
    *,
    opener: MemoryOpener = get_memory,
    report_landed: bool = True,
) -> ThreadState | None:
    """The session's memory, or None (no session — said once, with the fix — or memory
    unreadable: run without it). A served run whose server has no auth raises
    ``MemoryNotServedError`` (``adapters/chat_memory/session.py``).

    Never waits for a compaction. A deferred compaction that landed since the last
    turn is reported on this run's stream (contract §5 ``thread-memory-status``), unless
    ``report_landed`` is off (a later read of the same turn).
    """
    session = await session_of(config, getattr(runtime, "context", None))
    if session is None:
        return None
    try:
        memory = await opener()
        snapshot = await memory.snapshot(session)
    except MemoryUnavailableError:
        return None
    except Exception as exc:
        log.warning("chat memory could not be opened; running without memory (%s)", said(exc))
        return None
    writer = _writer(runtime)
    if report_landed and snapshot.landed and writer is not None:
        writer(dict(snapshot.landed))
    return snapshot.state


async def recall_for(
    query: str,
    memory: ThreadState | None,
    config: RunnableConfig,
    runtime: Runtime[Any] | None,
    *,
    opener: MemoryOpener = get_memory,
    report: bool = True,
) -> list[RecallHit]:
    """What the session's archive holds about ``query`` (the turn's latest user message),
    within ``AIMIND_RECALL_CHARS``, leaving out what ``memory``'s window holds (contract
    §5a). ``[]`` without memory (``memory`` None: none was read) and on any failure,
    logged by its type only: recall never fails a turn. With ``report``, a
    ``thread-memory-recall`` event on the run's stream names what was recalled."""
    if memory is None or not query.strip():
        return []
    try:
        session = await session_of(config, getattr(runtime, "context", None))
        if session is None:
            return []
        service = await opener()
        hits = await service.recall(session, query, exclude={m.id for m in memory.messages})
    except Exception as exc:
        log.warning("chat memory recall failed; the turn goes on without it (%s)", said(exc))
        return []
    writer = _writer(runtime)
    if hits and report and writer is not None:
        writer(recall_event(hits))
    return hits


def recalled_kwargs(hits: Sequence[RecallHit]) -> dict[str, Any]:
    """An answer's ``additional_kwargs`` naming the earlier messages recalled for it
    (``RECALLED_KEY``), or none."""
    return {RECALLED_KEY: recall_event(hits)["recalled"]} if hits else {}


async def write_final_turn(
    turn_of: Callable[[], FinalTurn | None],
    config: RunnableConfig,
    runtime: Runtime[Any] | None,
    *,
    opener: MemoryOpener = get_memory,
    replaces: Sequence[str] = (),
) -> AppendResult | None:
    """Write the finished turn ``turn_of()`` gives (None: nothing to write) once, in
    place of the turns ``replaces`` names (``adapters/chat_memory/forks.py``).

    Never raises: a failure, the extraction's included, is logged and reported as a
    ``thread-memory-status`` ``failed`` event; the run goes on (contract §4). Returns what
    memory did, or None when nothing was asked of it.
    """
    writer = _writer(runtime)
    try:
        turn = turn_of()
        if turn is None:
            return None
        session = await session_of(config, getattr(runtime, "context", None))
        if session is None:  # said once by session_of
            return None
        memory = await opener()
        return await memory.append_turn(session, turn, on_status=writer, replaces=replaces)
    except Exception as exc:
        log.warning("chat memory write failed; the run goes on (%s)", said(exc))
        emit(writer, "failed", ThreadState())
        return None


def final_turn_node(
    extract: TurnExtractor,
) -> Callable[[Any, RunnableConfig, Runtime[Any]], Awaitable[dict[str, Any]]]:
    """Build the graph's last node: ``extract(state)`` → memory, once, after the turn."""

    async def final_turn(
        state: Any, config: RunnableConfig, runtime: Runtime[Any]
    ) -> dict[str, Any]:
        await write_final_turn(lambda: extract(state), config, runtime)
        return {}

    final_turn.__name__ = FINAL_TURN_NODE
    return final_turn
