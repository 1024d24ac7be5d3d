"""The window and its fold: which turns leave it, and the thread once they are folded.

``split_window`` cuts an overflowing window into the turns to fold and those kept
verbatim; ``fold`` puts a compactor's output in their place. Only ``summary``,
``pinned_decisions`` and ``replaced_decisions`` ever come from a compactor; the kept
messages and ``last_compacted_at`` are derived here. Whatever a compactor returns is
cleaned like message text and clamped locally; how its pins join the thread's
(provenance, replacement, the cap) is ``memory.compaction.pins``.
"""

from __future__ import annotations

from aimind_memory.memory.compaction.pins import (
    merge,
    origin_of,
    remember_replaced,
    replaced_records,
)
from aimind_memory.memory.compaction.protocol import CompactionRequest
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.models import (
    ChatThreadMessage,
    CompactionOutput,
    ExplainedOutput,
    ThreadState,
    utcnow,
)
from aimind_memory.memory.text import clean_text, clip


def split_window(state: ThreadState, limits: MemoryLimits) -> CompactionRequest | None:
    """The request to compact, or None while the window still fits."""
    return _request(state, len(state.messages), limits)


def upcoming_fold(state: ThreadState, limits: MemoryLimits) -> CompactionRequest | None:
    """The request the next turn's write will make, as far as it is known before that turn
    is said: its ``kept`` lacks the turn's two messages. None when the next turn will not
    fold (``ReadsAhead``)."""
    return _request(state, len(state.messages) + 2, limits)


def _request(state: ThreadState, messages: int, limits: MemoryLimits) -> CompactionRequest | None:
    """The fold of a window of ``messages`` messages, the first of them ``state``'s."""
    if messages <= limits.max_messages:
        return None
    cut = messages - limits.kept_messages
    return CompactionRequest(
        summary=state.summary,
        pinned_decisions=list(state.pinned_decisions),
        folded=state.messages[:cut],
        kept=state.messages[cut:],
        pins=tuple(state.pins),
        replaced=tuple(state.replaced),
    )


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
    now = utcnow()
    pins = merge(
        state.pins,
        output.pinned_decisions,
        limits=limits,
        origin=origin_of(compactor),
        folded=request.folded,
        replaced=output.replaced_decisions,
        seen=request.pins,
        unpinned=state.unpinned,
        now=now,
        why=output.why if isinstance(output, ExplainedOutput) else None,
    )
    return ThreadState(
        messages=request.kept if messages is None else messages,
        summary=clip(clean_text(text) or "", limits.summary_chars),
        pins=pins,
        last_compacted_at=now,
        unpinned=list(state.unpinned),
        replaced=remember_replaced(
            state.replaced, replaced_records(state.pins, pins, output, limits=limits, now=now)
        ),
    )
