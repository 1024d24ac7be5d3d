"""The archive in process (``AIMIND_DATABASE_URL=memory``): rows in dicts, matched by word.

``memory.storage.inmemory`` adds a fold's rows under the lock of the memory write that
folds them, and drops an owner's with its memory thread; nothing here awaits, so each
change is atomic for other coroutines.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from aimind_memory.memory.storage.archive import (
    ArchivedMessage,
    ArchiveEntry,
    ArchiveStats,
    Candidate,
    lookup_terms,
)


class InMemoryArchive:
    """Every owner's archived messages, oldest first, keyed by message id."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, tuple[ArchivedMessage, tuple[str, ...]]]] = {}
        self._seq = itertools.count(1)

    def add(self, owner: str, entries: Sequence[ArchiveEntry], keep: int | None) -> None:
        rows = self._rows.setdefault(owner, {})
        for e in entries:
            if e.message_id not in rows:
                message = ArchivedMessage(
                    next(self._seq), e.message_id, e.role, e.text, e.created_at
                )
                rows[e.message_id] = (message, e.terms)
        if keep is not None:
            for message_id in list(rows)[: max(0, len(rows) - keep)]:
                del rows[message_id]

    def delete(self, owner: str) -> None:
        self._rows.pop(owner, None)

    async def stats(self, owner: str, terms: Sequence[str]) -> ArchiveStats:
        rows = self._rows.get(owner, {}).values()
        holding = {t: sum(1 for _, words in rows if t in words) for t in dict.fromkeys(terms)}
        return ArchiveStats(len(rows), sum(len(words) for _, words in rows), holding)

    async def search(
        self, owner: str, terms: Sequence[str], *, cap: int, limit: int
    ) -> tuple[ArchiveStats, list[Candidate]]:
        stats = await self.stats(owner, terms)
        return stats, await self.candidates(owner, lookup_terms(stats, terms, cap), limit)

    async def candidates(self, owner: str, terms: Sequence[str], limit: int) -> list[Candidate]:
        wanted = set(terms)
        found = [
            Candidate(message.seq, message.message_id, words)
            for message, words in reversed(self._rows.get(owner, {}).values())
            if wanted.intersection(words)
        ]
        return found[: max(0, limit)]

    async def messages(self, owner: str, seqs: Sequence[int]) -> list[ArchivedMessage]:
        wanted = set(seqs)
        return [m for m, _ in self._rows.get(owner, {}).values() if m.seq in wanted]

    async def every(self, owner: str) -> list[ArchivedMessage]:
        return [m for m, _ in self._rows.get(owner, {}).values()]
