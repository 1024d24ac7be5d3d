"""Folding old turns into summary + pinned decisions (SPEC §5).

This package owns compaction: the ``Compactor`` protocol and the request, clamp
and status events here, the two shipped compactors (``extractive``, offline;
``llm``, a configured model), the durable lease of a compaction under way
(``pending``) and, in ``analysis``, the text analysis the extractive compactor
is made of. It may import ``memory.limits``, ``memory.models`` and
``memory.text`` and nothing else of memory: it never touches storage (the
service stores what it returns) and never imports the service.

Only ``summary`` and ``pinned_decisions`` ever come from a compactor; the kept
messages and ``last_compacted_at`` are derived here. Whatever a compactor
returns is cleaned like message text and clamped locally, and pins from before
survive unless replaced.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from memory.compaction.analysis.decisions import pin_strength
from memory.compaction.analysis.segmenter import ready_for
from memory.limits import MemoryLimits
from memory.models import ChatThreadMessage, CompactionOutput, ThreadState, utcnow
from memory.text import clean_text, clip, normalize

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


def _evict_weakest(pins: list[str], cap: int) -> list[str]:
    """Keep ``cap`` pins: the least decision-like go first, the oldest first among equals.

    A stated decision is never dropped while a weaker pin remains.
    """
    if len(pins) <= cap:
        return pins
    weakest_first = sorted(range(len(pins)), key=lambda i: (pin_strength(pins[i]), i))
    dropped = set(weakest_first[: len(pins) - cap])
    return [pin for i, pin in enumerate(pins) if i not in dropped]


def clamp_pins(pins: list[str], limits: MemoryLimits) -> list[str]:
    """Trim each pin, drop blanks and repeats; past ``pinned_max`` evict the weakest."""
    out: list[str] = []
    seen: set[str] = set()
    for raw in pins:
        cleaned = clean_text(raw)
        if cleaned is None:
            continue
        pin = clip(cleaned, limits.pin_chars)
        key = normalize(pin)
        if not key or key in seen:
            continue
        seen.add(key)
        out.append(pin)
    return _evict_weakest(out, limits.pinned_max)


def _supersedes(new_key: str, old_key: str) -> bool:
    return new_key == old_key or (len(old_key) >= 12 and old_key in new_key)


def merge_pins(
    old: list[str], new: list[str], limits: MemoryLimits, replaced: list[str] | None = None
) -> list[str]:
    """Old pins are durable: one goes only when ``replaced`` names it (a newer decision
    changed it), a new pin is equivalent or supersedes it, or, past the cap, when it is
    among the weakest (``_evict_weakest``).

    An equivalent pin keeps the old one's place; a superseding one moves to the
    end (newest).
    """
    gone = {normalize(p) for p in replaced or ()}
    merged = [(k, p) for p in old if (k := normalize(p)) not in gone]  # (key, pin), keys once
    for pin in clamp_pins(new, limits):
        key = normalize(pin)
        same = next((i for i, (k, _) in enumerate(merged) if k == key), None)
        if same is not None:
            merged[same] = (key, pin)
            continue
        merged = [(k, p) for k, p in merged if not _supersedes(key, k)]
        merged.append((key, pin))
    return clamp_pins([p for _, p in merged], limits)


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
    request: CompactionRequest,
    output: CompactionOutput,
    limits: MemoryLimits,
    messages: list[ChatThreadMessage] | None = None,
) -> ThreadState:
    """The state after folding: the output cleaned like message text and clamped, old pins
    merged, ``messages`` (default: the request's kept slice) verbatim, and the time."""
    return ThreadState(
        messages=request.kept if messages is None else messages,
        summary=clip(clean_text(output.summary) or "", limits.summary_chars),
        pinned_decisions=merge_pins(
            request.pinned_decisions,
            output.pinned_decisions,
            limits,
            replaced=output.replaced_decisions,
        ),
        last_compacted_at=utcnow(),
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
    new_state = fold(request, output, limits)
    emit(on_status, "succeeded", new_state)
    return new_state, used
