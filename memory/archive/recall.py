"""Recall: the archived messages most relevant to a query, within a character budget.

The steps, each scoped to one owner (a memory thread) so no other session's row is
ever read: the query's words (``terms``); the archive's counts for them (one query);
the messages holding the rarer ones (``storage.archive.lookup_terms``); BM25 over those
(``rank``); the best ones' text (one query); then, best first, each message whole if it
fits what is left of the budget, else the part of it around the query's words
(``excerpt``), until the budget is spent. Messages still in the window are never
returned (they are in the model's context already), nor a text returned once already.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from aimind_memory.memory.archive.excerpt import excerpt
from aimind_memory.memory.archive.rank import rank
from aimind_memory.memory.archive.terms import query_terms, ready
from aimind_memory.memory.config.limits import (
    RECALL_CANDIDATES,
    RECALL_HIT_MAX_CHARS,
    RECALL_HIT_MIN_CHARS,
)
from aimind_memory.memory.storage.archive import MessageArchive

__all__ = ["RECALL_EVENT", "RecallHit", "recall", "recall_event"]

RECALL_EVENT = "thread-memory-recall"
"""The custom stream event that says which earlier messages were recalled for a turn."""
EVENT_EXCERPT_CHARS = 160
"""A recalled message's text at most in the event (enough for a client to show it)."""

_SMALLEST_HIT = 12
"""Below this many characters left, nothing more is worth adding."""
_FETCHED = 48
"""The best-ranked messages whose text is read: more than a budget's worth of hits."""


@dataclass(frozen=True, slots=True)
class RecallHit:
    """One recalled piece of earlier conversation.

    Args:
        text: The message whole, or the part of it around the query's words.
        message_ids: The archived message(s) it is from.
        created_at: When it was said.
        role: Who said it: ``user`` or ``assistant``.
    """

    text: str
    message_ids: tuple[str, ...]
    created_at: datetime
    role: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of the hit.

        Returns:
            ``text``, ``messageIds``, ``createdAt`` (ISO 8601) and ``role``: as the
            stream event, the export and the ``recall_memory`` tool give it.
        """
        return {
            "text": self.text,
            "messageIds": list(self.message_ids),
            "createdAt": self.created_at.isoformat(),
            "role": self.role,
        }


async def recall(
    archive: MessageArchive,
    owner: str,
    query: str,
    *,
    budget: int,
    exclude: Collection[str] = (),
) -> list[RecallHit]:
    """The owner's archived messages that best match ``query``, best first, at most
    ``budget`` characters of text in all; none of ``exclude`` (message ids)."""
    if budget <= 0:
        return []
    await ready([query])
    terms = query_terms(query)
    if not terms:
        return []
    stats, found = await archive.search(
        owner, terms, cap=RECALL_CANDIDATES, limit=RECALL_CANDIDATES + len(exclude)
    )
    candidates = [c for c in found if c.message_id not in exclude][:RECALL_CANDIDATES]
    best = rank(candidates, stats, terms)[:_FETCHED]
    texts = {m.seq: m for m in await archive.messages(owner, [r.candidate.seq for r in best])}
    hits: list[RecallHit] = []
    seen: set[str] = set()
    left = budget
    for ranked in best:
        message = texts.get(ranked.candidate.seq)
        if message is None or (key := " ".join(message.text.split()).casefold()) in seen:
            continue
        room = min(left, RECALL_HIT_MAX_CHARS)
        if len(message.text) > room and room < RECALL_HIT_MIN_CHARS and hits:
            continue  # what is left goes to messages that fit whole
        text = excerpt(message.text, terms, room)
        seen.add(key)
        hits.append(RecallHit(text, (message.message_id,), message.created_at, message.role))
        left -= len(text)
        if left < _SMALLEST_HIT:
            break
    return hits


def recall_event(hits: Sequence[RecallHit]) -> dict[str, Any]:
    """The ``thread-memory-recall`` custom stream event: which earlier messages the model
    was given for this turn (their ids, when, who, a short excerpt)."""
    recalled = []
    for hit in hits:
        shown = hit.to_dict()
        if len(hit.text) > EVENT_EXCERPT_CHARS:
            shown["text"] = hit.text[: EVENT_EXCERPT_CHARS - 1].rstrip() + "…"
        recalled.append(shown)
    return {"type": RECALL_EVENT, "recalled": recalled}
