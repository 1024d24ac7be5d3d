"""The archive of folded turns as each backend stores it (contract §5a).

A memory thread stays bounded: when a fold takes messages out of its window, their plain
text comes here, one row per message, owned by the memory thread's id (``chat:<hash>``),
in the same database as memory and in the same transaction as the memory write that
folds them (``MemoryThreads.put``'s ``archive``): a fold is never stored without its
archive, nor the archive without the fold. A row is keyed by its owner and message id,
so a message archived twice (an inline fold, then a model compaction's landing that
folded it too) is stored once. The owner's rows go with its memory thread
(``MemoryThreads.delete``: a clear or a forget) and past ``archive_keep`` messages the
oldest go, in the write that adds new ones.

Storage never tokenizes: a row comes with its ``terms``, the words the index matches
(``memory.archive.terms`` makes them, the same for every backend), and each backend
indexes them as they are — SQLite in an FTS5 table, PostgreSQL in a GIN-indexed
``tsvector`` built from them, the in-memory backend in a dict — so a query finds the
same rows everywhere, and ranking (``memory.archive``) is computed the same way on all.

The databases index each word under its owner (``owned``: a short key of the owner, then
the word), so a word's postings are one session's: counting or fetching the rows that
hold it costs what that session's rows holding it cost, never a walk over the session's
every row or over other sessions' rows. Every read also checks the row's owner, so two
owners whose keys collided would still never see each other's rows. An owner's row count
and word count are kept beside (``aimind_archive_counts``), updated with its rows.
Each backend module holds its SQL: ``sqlite``, ``postgres``, ``inmemory``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

__all__ = [
    "ArchiveEntry",
    "ArchiveStats",
    "ArchivedMessage",
    "Candidate",
    "MessageArchive",
    "lookup_terms",
    "owned",
    "owner_key",
]


@dataclass(frozen=True, slots=True)
class ArchiveEntry:
    """A folded message to archive: its plain text and the words its index matches."""

    message_id: str
    role: str
    text: str
    created_at: datetime
    terms: tuple[str, ...]
    """The text's words as the index holds them (``memory.archive.terms``), in order."""


@dataclass(frozen=True, slots=True)
class ArchivedMessage:
    """An archived message as read back; ``seq`` orders an owner's rows (oldest first)."""

    seq: int
    message_id: str
    role: str
    text: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Candidate:
    """A row that holds at least one of a query's words: what ranking needs of it."""

    seq: int
    message_id: str
    terms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ArchiveStats:
    """One owner's archive as BM25 sees it: its rows, their words in all, and per query
    word the rows that hold it."""

    messages: int
    words: int
    holding: dict[str, int]


class MessageArchive(Protocol):
    """Reading one database's archive; every call is scoped to one owner's rows."""

    async def search(
        self, owner: str, terms: Sequence[str], *, cap: int, limit: int
    ) -> tuple[ArchiveStats, list[Candidate]]:
        """The owner's counts for ``terms``, and the rows holding the words
        ``lookup_terms`` picks with ``cap``, newest first, at most ``limit``."""
        ...

    async def messages(self, owner: str, seqs: Sequence[int]) -> list[ArchivedMessage]:
        """The owner's rows among ``seqs`` (any order)."""
        ...

    async def every(self, owner: str) -> list[ArchivedMessage]:
        """All of the owner's rows, oldest first (the export)."""
        ...


OWNER_KEY_CHARS = 16
"""The owner key's length: the last hex digits of the owner's session hash (64 bits)."""


def owner_key(owner: str) -> str:
    """``k<16 hex>x``: letters and digits only (one token for FTS5's tokenizer), fixed
    length; SQLite's triggers build the same from the owner (``'k' || substr(owner, -16)
    || 'x'``)."""
    return f"k{owner[-OWNER_KEY_CHARS:]}x"


def owned(owner: str, terms: Sequence[str]) -> list[str]:
    """``terms`` as the index holds them for ``owner``."""
    key = owner_key(owner)
    return [key + term for term in terms]


def joined(terms: Sequence[str]) -> str:
    """The stored form of a row's words: one string, a space between two."""
    return " ".join(terms)


def split(stored: str) -> tuple[str, ...]:
    return tuple(stored.split())


def lookup_terms(stats: ArchiveStats, terms: Sequence[str], cap: int) -> list[str]:
    """The query words whose rows a search fetches: the rarest first (ties in query
    order), while the rows holding them stay within ``cap`` (the rarest one always);
    words in no row are left out. A row that holds none of them holds only the
    query's commonest words: it cannot rank high. (PostgreSQL's search states the
    same rule in SQL.)"""
    asked = list(dict.fromkeys(terms))
    present = sorted((t for t in asked if stats.holding.get(t)), key=lambda t: stats.holding[t])
    chosen: list[str] = []
    total = 0
    for term in present:
        total += stats.holding[term]
        if chosen and total > cap:
            break
        chosen.append(term)
    return chosen
