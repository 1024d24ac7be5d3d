"""The archive on SQLite: a table of folded messages and an FTS5 index over their words.

``aimind_archive`` holds the rows; ``aimind_archive_fts`` is a contentless FTS5 table
(``detail='none'``: which rows hold a word, nothing more) that triggers keep in step with
it, indexing each row's words under its owner's key (``memory.storage.archive.owned``):
the trigger builds ``k<key>x<word>`` for every word, so a word's postings are one
session's and a search reads none of another's. ``aimind_archive_counts`` keeps each
owner's rows and words, also by trigger. The tokenizer leaves the words as they come:
they are lower-case letters and digits already (``memory.archive.terms``).

The index keeps a deleted row's words in its segments until they are merged; forgetting
(``scrub``) merges them all (``optimize``) so none of a forgotten session's words stays
in the file, and ``secure_delete`` zeroes the pages that frees.

The statements that write (insert, trim, delete) run in ``memory.storage.sqlite``'s
transactions; those that read, on its reading connection.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import aiosqlite

from aimind_memory.memory.storage.archive import (
    ArchivedMessage,
    ArchiveEntry,
    ArchiveStats,
    Candidate,
    joined,
    lookup_terms,
    owned,
    split,
)

_OWNED = (
    "CASE WHEN {row}.terms = '' THEN '' ELSE 'k' || substr({row}.owner, -16) || 'x' || "
    "replace({row}.terms, ' ', ' k' || substr({row}.owner, -16) || 'x') END"
)
"""A row's words under its owner's key, in SQL (``memory.storage.archive.owned``)."""
SCHEMA_SQL = f"""
CREATE TABLE IF NOT EXISTS aimind_archive (
  seq INTEGER PRIMARY KEY,
  owner TEXT NOT NULL,
  message_id TEXT NOT NULL,
  role TEXT NOT NULL,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  terms TEXT NOT NULL,
  length INTEGER NOT NULL,
  UNIQUE (owner, message_id)
);
CREATE TABLE IF NOT EXISTS aimind_archive_counts (
  owner TEXT PRIMARY KEY,
  messages INTEGER NOT NULL,
  words INTEGER NOT NULL
) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS aimind_archive_fts USING fts5(
  words, content='', tokenize='unicode61 remove_diacritics 0', detail='none'
);
CREATE TRIGGER IF NOT EXISTS aimind_archive_added AFTER INSERT ON aimind_archive BEGIN
  INSERT INTO aimind_archive_fts (rowid, words) VALUES (new.seq, {_OWNED.format(row="new")});
  INSERT INTO aimind_archive_counts (owner, messages, words) VALUES (new.owner, 1, new.length)
  ON CONFLICT (owner) DO UPDATE SET messages = messages + 1, words = words + excluded.words;
END;
CREATE TRIGGER IF NOT EXISTS aimind_archive_removed AFTER DELETE ON aimind_archive BEGIN
  INSERT INTO aimind_archive_fts (aimind_archive_fts, rowid, words)
  VALUES ('delete', old.seq, {_OWNED.format(row="old")});
  UPDATE aimind_archive_counts SET messages = messages - 1, words = words - old.length
  WHERE owner = old.owner;
END;
"""
"""Idempotent: run by every process that opens the file (``IF NOT EXISTS``)."""

INSERT_SQL = """
INSERT OR IGNORE INTO aimind_archive
  (owner, message_id, role, text, created_at, terms, length)
SELECT :tid, e.value ->> '$[0]', e.value ->> '$[1]', e.value ->> '$[2]', e.value ->> '$[3]',
  e.value ->> '$[4]', e.value ->> '$[5]'
FROM json_each(:rows) AS e ORDER BY e.key
"""
"""One statement for a fold's messages, oldest first; a message already archived stays
as it is."""
TRIM_SQL = """
DELETE FROM aimind_archive WHERE owner = :tid AND seq < (
  SELECT min(seq) FROM (
    SELECT seq FROM aimind_archive WHERE owner = :tid ORDER BY seq DESC LIMIT :keep
  )
)
"""
"""Past ``keep`` messages, the owner's oldest go."""
DELETE_SQL = (
    "DELETE FROM aimind_archive WHERE owner = :tid",
    "DELETE FROM aimind_archive_counts WHERE owner = :tid",
)
OPTIMIZE_SQL = "INSERT INTO aimind_archive_fts (aimind_archive_fts) VALUES ('optimize')"
"""Merge the index's segments into one: deleted rows' words leave the file's live pages."""

COUNTS_SQL = "SELECT messages, words FROM aimind_archive_counts WHERE owner = ?"
HOLDING_SQL = "(SELECT count(*) FROM aimind_archive_fts WHERE aimind_archive_fts MATCH ?)"
"""One word's rows; a query's words are counted in the statement that reads the counts."""
CANDIDATES_SQL = """
SELECT seq, message_id, terms FROM aimind_archive WHERE +owner = :tid AND seq IN (
  SELECT rowid FROM aimind_archive_fts WHERE aimind_archive_fts MATCH :match
  ORDER BY rowid DESC LIMIT :limit
) ORDER BY seq DESC
"""
MESSAGES_SQL = """
SELECT seq, message_id, role, text, created_at FROM aimind_archive
WHERE +owner = :tid AND seq IN (SELECT value FROM json_each(:seqs))
"""
"""``+owner`` (here and in ``CANDIDATES_SQL``): the owner is checked on each row the
rowids name, never used to pick rows — through the owner's index, SQLite walked every one
of the owner's rows to find a few dozen (a recall's cost grew with the archive)."""
EVERY_SQL = """
SELECT seq, message_id, role, text, created_at FROM aimind_archive WHERE owner = :tid
ORDER BY seq
"""


def insert_params(thread_id: str, entries: Sequence[ArchiveEntry]) -> dict[str, Any]:
    rows = [
        [e.message_id, e.role, e.text, e.created_at.isoformat(), joined(e.terms), len(e.terms)]
        for e in entries
    ]
    return {"tid": thread_id, "rows": json.dumps(rows, ensure_ascii=False)}


def _quoted(word: str) -> str:
    """A word as an FTS5 string: whatever it holds, never query syntax."""
    return '"' + word.replace('"', '""') + '"'


def _match(owner: str, terms: Sequence[str]) -> str:
    """The FTS5 query for the owner's rows holding any of ``terms``."""
    return " OR ".join(_quoted(word) for word in owned(owner, terms))


def _message(row: Any) -> ArchivedMessage:
    seq, message_id, role, text, created_at = row
    return ArchivedMessage(seq, message_id, role, text, datetime.fromisoformat(created_at))


class SqliteArchive:
    """Reads the archive on memory's reading connection (single statements: no
    transaction is ever left open on it)."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def stats(self, owner: str, terms: Sequence[str]) -> ArchiveStats:
        """One statement: the owner's rows and words, and each word's rows."""
        asked = list(dict.fromkeys(terms))
        holding = "".join(f", {HOLDING_SQL}" for _ in asked)
        counts = "coalesce(max(messages), 0), coalesce(max(words), 0)"
        query = f"SELECT {counts}{holding} FROM ({COUNTS_SQL})"
        params = [*(_match(owner, [term]) for term in asked), owner]  # in the order written
        (row,) = await self.conn.execute_fetchall(query, params)
        count, words, *found = row
        return ArchiveStats(int(count), int(words), dict(zip(asked, map(int, found), strict=True)))

    async def search(
        self, owner: str, terms: Sequence[str], *, cap: int, limit: int
    ) -> tuple[ArchiveStats, list[Candidate]]:
        stats = await self.stats(owner, terms)
        return stats, await self.candidates(owner, lookup_terms(stats, terms, cap), limit)

    async def candidates(self, owner: str, terms: Sequence[str], limit: int) -> list[Candidate]:
        """The owner's rows holding any of ``terms``, newest first, at most ``limit``."""
        if not terms or limit < 1:
            return []
        params = {"tid": owner, "match": _match(owner, terms), "limit": limit}
        rows = await self.conn.execute_fetchall(CANDIDATES_SQL, params)
        return [Candidate(seq, message_id, split(stored)) for seq, message_id, stored in rows]

    async def messages(self, owner: str, seqs: Sequence[int]) -> list[ArchivedMessage]:
        if not seqs:
            return []
        params = {"tid": owner, "seqs": json.dumps(list(seqs))}
        return [_message(r) for r in await self.conn.execute_fetchall(MESSAGES_SQL, params)]

    async def every(self, owner: str) -> list[ArchivedMessage]:
        return [_message(r) for r in await self.conn.execute_fetchall(EVERY_SQL, {"tid": owner})]
