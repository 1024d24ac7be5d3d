"""Running a compactor: within its time limit, falling back to the offline one.

``run_compactor`` gets a compactor's output or, on any error, timeout or invalid
output, the deterministic fallback's; ``compact`` runs one and folds its output into
the thread at once (an inline fold, within the write that made the window overflow).
"""

from __future__ import annotations

import asyncio
import logging

from aimind_memory.memory.compaction.analysis.segmenter import ready_for
from aimind_memory.memory.compaction.protocol import (
    CompactionRequest,
    Compactor,
    StatusCallback,
    emit,
)
from aimind_memory.memory.compaction.window import fold
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.models import CompactionOutput, ThreadState

log = logging.getLogger("aimind.memory.compaction")


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
