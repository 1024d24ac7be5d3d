"""Exact lost-turn accounting for benchmarks whose compactions land later, or never.

A deferred compaction's result is dropped when another write folded the window
first, and a write that finds the window past its bound folds inline with the
extractive compactor. So "the compactor was called" does not say which folds
were stored. ``LedgerCompactor`` makes the stored summary say it: each fold
appends a short token to the summary it was given, and the ledger maps every
token to the message ids folded under it. A summary is only ever built on the
summary stored before it (a result whose parent summary changed is dropped), so
the tokens in the final summary are exactly the folds that were stored.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

from aimind_memory.memory import CompactionOutput, CompactionRequest, MemoryService, ThreadState
from aimind_memory.memory.errors import AIMindError

TOKEN_PREFIX = "fold:"


class LedgerOverflowError(AIMindError, RuntimeError):
    """The token chain no longer fits the summary: the accounting would be cut short."""


@dataclass
class FoldLedger:
    """Every fold any compactor of the run made, by token."""

    folds: dict[str, list[str]] = field(default_factory=dict)

    def record(self, request: CompactionRequest) -> str:
        token = f"{TOKEN_PREFIX}{uuid.uuid4().hex[:8]}"
        self.folds[token] = [m.id for m in request.folded]
        return token

    def stored_folds(self, state: ThreadState) -> list[list[str]]:
        """The folds the thread's summary records, oldest first."""
        tokens = [t for t in state.summary.split() if t.startswith(TOKEN_PREFIX)]
        return [self.folds[t] for t in tokens if t in self.folds]

    def audit(self, state: ThreadState, written: Iterable[str]) -> dict[str, int]:
        """``written`` message ids that are neither folded by a stored fold nor in the
        window (lost), and ids that stored folds folded more than once."""
        folded = [i for fold in self.stored_folds(state) for i in fold]
        present = set(folded) | {m.id for m in state.messages}
        return {
            "lost_turns": len({i for i in written if i not in present}),
            "folded_twice": len(folded) - len(set(folded)),
        }


class LedgerCompactor:
    """A fake compaction model that answers at once with the token chain as its summary."""

    def __init__(self, ledger: FoldLedger, name: str = "llm", summary_chars: int = 2_500) -> None:
        self.ledger = ledger
        self.name = name
        self.summary_chars = summary_chars
        self.calls = 0

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        self.calls += 1
        summary = f"{request.summary} {self.ledger.record(request)}".strip()
        if len(summary) > self.summary_chars:
            raise LedgerOverflowError("the fold tokens no longer fit in one summary")
        return CompactionOutput(summary=summary, pinned_decisions=[])


def keep_ledger(mem: MemoryService, ledger: FoldLedger) -> MemoryService:
    """Record the service's folds in ``ledger``: the deferred ones and the inline
    fallback's (which stands in for the extractive compactor, same name)."""
    mem.compactions.compactor = LedgerCompactor(ledger, "llm", mem.limits.summary_chars)
    mem.compactions.fallback = LedgerCompactor(ledger, "extractive", mem.limits.summary_chars)
    return mem
