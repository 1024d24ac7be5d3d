"""Folding old turns into summary + pinned decisions (contract §5).

This package owns compaction: the ``Compactor`` protocol and the request, clamp
and status events here, the two shipped compactors (``extractive``, offline;
``llm``, a configured model), the durable lease of a compaction under way
(``pending``) and, in ``analysis``, the text analysis the extractive compactor
is made of. It may import ``memory.limits``, ``memory.models`` and
``memory.text`` and nothing else of memory: it never touches storage (the
service stores what it returns) and never imports the service.

Only ``summary``, ``pinned_decisions`` and ``replaced_decisions`` ever come from a
compactor; the kept messages and ``last_compacted_at`` are derived here. Whatever
a compactor returns is cleaned like message text and clamped locally; how its pins
join the thread's (provenance, replacement, the cap) is ``pins``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from memory.compaction.analysis.segmenter import ready_for
from memory.compaction.pins import merge, merge_pins, origin_of
from memory.limits import MemoryLimits
from memory.models import ChatThreadMessage, CompactionOutput, Pin, ThreadState, utcnow
from memory.text import clean_text, clip

__all__ = [
    "STATUS_EVENT",
    "CompactionRequest",
    "Compactor",
    "StatusCallback",
    "compact",
    "emit",
    "fold",
    "merge_pins",
    "run_compactor",
    "split_window",
    "status_event",
]

log = logging.getLogger("aimind.memory.compaction")

StatusCallback = Callable[[dict[str, Any]], None]
STATUS_EVENT = "thread-memory-status"


@dataclass(frozen=True, slots=True)
class CompactionRequest:
    """Everything a compactor may see: memory text only, never runtime state."""

    summary: str
    pinned_decisions: list[str]
    folded: list[ChatThreadMessage]
    kept: list[ChatThreadMessage]
    pins: tuple[Pin, ...] = ()
    """The records of ``pinned_decisions`` (the service's; a compactor reads the texts)."""

    def texts(self) -> list[str]:
        """Every text the request carries."""
        return [
            self.summary,
            *self.pinned_decisions,
            *(m.text for m in self.folded),
            *(m.text for m in self.kept),
        ]


class Compactor(Protocol):
    """Folds old turns into summary + pins.

    A compactor runs after the turn's write, off the answer's path, unless it has
    ``inline = True`` (fast and local, like the extractive one): it then folds
    within the write that makes the window overflow.
    """

    name: str

    async def compact(self, request: CompactionRequest) -> CompactionOutput: ...


def status_event(status: str, state: ThreadState) -> dict[str, Any]:
    return {
        "type": STATUS_EVENT,
        "status": status,
        "summaryLength": len(state.summary),
        "pinnedDecisionCount": len(state.pinned_decisions),
    }


def emit(on_status: StatusCallback | None, status: str, state: ThreadState) -> None:
    """Report a memory status; a broken listener never breaks the memory write."""
    if on_status is None:
        return
    try:
        on_status(status_event(status, state))
    except Exception as exc:  # a status listener is best-effort by contract
        log.warning("thread-memory-status listener failed (%s)", type(exc).__name__)


def split_window(state: ThreadState, limits: MemoryLimits) -> CompactionRequest | None:
    """The request to compact, or None while the window still fits."""
    if len(state.messages) <= limits.max_messages:
        return None
    cut = len(state.messages) - limits.kept_messages
    return CompactionRequest(
        summary=state.summary,
        pinned_decisions=list(state.pinned_decisions),
        folded=state.messages[:cut],
        kept=state.messages[cut:],
        pins=tuple(state.pins),
    )


async def run_compactor(
    request: CompactionRequest,
    *,
    primary: Compactor,
    fallback: Compactor,
    limits: MemoryLimits,
) -> tuple[CompactionOutput, str]:
    """The primary compactor's output within ``compaction_timeout_s``; on any error,
    timeout or invalid output, the deterministic fallback's. Returns the output and
    the name of the compactor that produced it."""
    try:
        output = await asyncio.wait_for(primary.compact(request), limits.compaction_timeout_s)
        output = CompactionOutput.model_validate(output)
        # Folding the output ranks its pins (Chinese ones with jieba): load it off the loop.
        await ready_for([*request.texts(), output.summary, *output.pinned_decisions])
        return output, primary.name
    except Exception as exc:
        if primary is fallback:
            raise
        log.warning(
            "compaction with %s failed (%s); using %s",
            primary.name,
            type(exc).__name__,
            fallback.name,
        )
        return CompactionOutput.model_validate(await fallback.compact(request)), fallback.name


def fold(
    state: ThreadState,
    request: CompactionRequest,
    output: CompactionOutput,
    limits: MemoryLimits,
    *,
    compactor: str,
    messages: list[ChatThreadMessage] | None = None,
    summary: str | None = None,
) -> ThreadState:
    """``state`` after folding ``request.folded`` with ``compactor``'s ``output``: the
    output cleaned like message text and clamped, its pins merged onto ``state``'s
    (``memory.compaction.pins``), ``messages`` (default: the request's kept slice)
    verbatim, and the time. ``summary`` overrides the output's (a summary the user
    edited while the compaction ran)."""
    text = output.summary if summary is None else summary
    return ThreadState(
        messages=request.kept if messages is None else messages,
        summary=clip(clean_text(text) or "", limits.summary_chars),
        pins=merge(
            state.pins,
            output.pinned_decisions,
            limits=limits,
            origin=origin_of(compactor),
            folded=request.folded,
            replaced=output.replaced_decisions,
            seen=request.pins,
            unpinned=state.unpinned,
        ),
        last_compacted_at=utcnow(),
        unpinned=list(state.unpinned),
    )


async def compact(
    state: ThreadState,
    request: CompactionRequest,
    *,
    primary: Compactor,
    fallback: Compactor,
    limits: MemoryLimits,
    on_status: StatusCallback | None = None,
) -> tuple[ThreadState, str]:
    """Fold ``request.folded`` into summary + pins now; never loses the bounds."""
    emit(on_status, "started", state)
    output, used = await run_compactor(request, primary=primary, fallback=fallback, limits=limits)
    new_state = fold(state, request, output, limits, compactor=used)
    emit(on_status, "succeeded", new_state)
    return new_state, used
