"""Running a compactor: within its time limit, through the gate, falling back to the
offline one.

``run_compactor`` gets a compactor's output or, on any error, timeout, invalid output
or an output the gate refuses (``memory.compaction.gate``), the deterministic fallback's;
``compact`` runs one and folds its output into the thread at once (an inline fold,
within the write that made the window overflow). Every output a compactor hands back is
taken here, inline or after the turn, so every one passes the gate; the fallback's is
memory's own, made of the conversation's words, and has nothing behind it to fall back to.
Without a model the fallback is also the compactor (``MemoryService``), so the default's
folds skip the gate as well.
"""

from __future__ import annotations

import asyncio
import logging

from aimind_memory.memory.compaction.analysis.segmenter import ready_for
from aimind_memory.memory.compaction.gate import admit
from aimind_memory.memory.compaction.protocol import (
    CompactionRequest,
    Compactor,
    StatusCallback,
    emit,
)
from aimind_memory.memory.compaction.window import fold
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.errors import RefusedOutput
from aimind_memory.memory.models import CompactionOutput, ThreadState

log = logging.getLogger("aimind.memory.compaction")


async def run_compactor(
    request: CompactionRequest,
    *,
    primary: Compactor,
    fallback: Compactor,
    limits: MemoryLimits,
) -> tuple[CompactionOutput, str]:
    """The primary compactor's output within ``compaction_timeout_s``, as the gate lets
    it land; on any error, timeout, invalid output or refusal, the deterministic
    fallback's. Returns the output and the name of the compactor that produced it.
    One log line says why a compaction failed or what the gate dropped: a reason or an
    error's type, never the output's text."""
    try:
        output = await asyncio.wait_for(primary.compact(request), limits.compaction_timeout_s)
        output = CompactionOutput.model_validate(output)
        if primary is not fallback:
            output, dropped = admit(request, output)
            if dropped:
                log.info(
                    "compaction with %s passed the gate: %d pin%s dropped (pin-unsupported)",
                    primary.name,
                    dropped,
                    "" if dropped == 1 else "s",
                )
        # Folding the output ranks its pins (Chinese ones with jieba): load it off the loop.
        await ready_for([*request.texts(), output.summary, *output.pinned_decisions])
        return output, primary.name
    except Exception as exc:
        if primary is fallback:
            raise
        log.warning(
            "compaction with %s %s (%s); using %s",
            primary.name,
            "refused by the gate" if isinstance(exc, RefusedOutput) else "failed",
            exc.reason if isinstance(exc, RefusedOutput) else type(exc).__name__,
            fallback.name,
        )
        return CompactionOutput.model_validate(await fallback.compact(request)), fallback.name


async def compact(
    state: ThreadState,
    request: CompactionRequest,
    *,
    primary: Compactor,
    fallback: Compactor,
    limits: MemoryLimits,
    on_status: StatusCallback | None = None,
) -> tuple[ThreadState, str]:
    """Fold ``request.folded`` into summary + pins now; never loses the bounds. The
    compaction ``failed`` when the fallback folded in the primary's place."""
    emit(on_status, "started", state)
    output, used = await run_compactor(request, primary=primary, fallback=fallback, limits=limits)
    new_state = fold(state, request, output, limits, compactor=used)
    emit(on_status, outcome_of(used, primary), new_state)
    return new_state, used


def outcome_of(used: str, primary: Compactor) -> str:
    """``succeeded`` when ``primary`` folded the turns, ``failed`` when its fallback did."""
    return "succeeded" if used == primary.name else "failed"
