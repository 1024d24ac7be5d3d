"""Folding old turns into summary + pinned decisions (contract §5).

This package owns compaction: what a compactor is given and returns and how it is
reported (``protocol``), which turns leave the window and the thread once they are
folded (``window``), running a compactor with its fallback (``run``), how a fold's
pins join the thread's (``pins``), the two shipped compactors (``extractive``,
offline; ``llm``, a configured model), the durable lease of a compaction under way
(``pending``) and, in ``analysis``, the text analysis the extractive compactor is
made of. It may import ``memory.config.limits``, ``memory.models`` and ``memory.text`` and
nothing else of memory: it never touches storage (the service stores what it
returns) and never imports the service.

This module only re-exports the names the rest of the project uses.
"""

from __future__ import annotations

from aimind_memory.memory.compaction.pins import merge_pins
from aimind_memory.memory.compaction.protocol import (
    STATUS_EVENT,
    CompactionRequest,
    Compactor,
    ReadsAhead,
    StatusCallback,
    emit,
    status_event,
)
from aimind_memory.memory.compaction.run import compact, outcome_of, run_compactor
from aimind_memory.memory.compaction.window import fold, split_window, upcoming_fold

__all__ = [
    "STATUS_EVENT",
    "CompactionRequest",
    "Compactor",
    "ReadsAhead",
    "StatusCallback",
    "compact",
    "emit",
    "fold",
    "merge_pins",
    "outcome_of",
    "run_compactor",
    "split_window",
    "status_event",
    "upcoming_fold",
]
