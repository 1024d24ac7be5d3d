"""The archive on PostgreSQL: a table of folded messages with a GIN-indexed ``tsvector``.

The ``tsvector`` is built from the row's words as they come (``array_to_tsvector`` of
``memory.archive.terms``' words: no text search parser or dictionary in between), so it
holds exactly the words SQLite's FTS5 index holds and a query finds the same rows on
both. A query is a ``tsquery`` of quoted lexemes joined with ``|``: a user's words are
never query syntax.

The statements that write run inside ``memory.storage.postgres``'s transactions (the
memory write that folds the messages, the thread's delete), as literals composed with
``psycopg.sql``; those that read are single statements over the pool. Nothing is
prepared and nothing outlives a transaction, so PgBouncer in transaction pooling works.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from aimind_memory.memory.storage.archive import (
    ArchivedMessage,
    ArchiveEntry,
    ArchiveStats,
    Candidate,
    joined,
    split,
)
from aimind_memory.memory.storage.pg_pool import MemoryPool

PRESENT_SQL = "SELECT to_regclass('aimind_archive') IS NOT NULL AS present"
SCHEMA_SQL = (
    """
    CREATE TABLE IF NOT EXISTS aimind_archive (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      owner text NOT NULL,
      message_id text NOT NULL,
      role text NOT NULL,
      text text NOT NULL,
      created_at timestamptz NOT NULL,
      terms text NOT NULL,
      length integer NOT NULL,
      lexemes tsvector NOT NULL,
      UNIQUE (owner, message_id)
    )
    """,
    "CREATE INDEX IF NOT EXISTS aimind_archive_lexemes ON aimind_archive USING gin (lexemes)",
)
"""Run under the set-up lock (``memory.storage.postgres``), once per database."""

INSERT_SQL = sql.SQL(
    "INSERT INTO aimind_archive (owner, message_id, role, text, created_at, terms, length, "
    "lexemes) "
    "SELECT {tid}, e.v ->> 0, e.v ->> 1, e.v ->> 2, (e.v ->> 3)::timestamptz, e.v ->> 4, "
    "(e.v ->> 5)::integer, array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(e.v -> 6))) "
    "FROM jsonb_array_elements({rows}) WITH ORDINALITY AS e(v, n) WHERE {written} "
    "ORDER BY e.n ON CONFLICT (owner, message_id) DO NOTHING"
)
"""A fold's messages, oldest first, if the memory write they belong to was stored."""
TRIM_SQL = sql.SQL(
    "DELETE FROM aimind_archive WHERE owner = {tid} AND {written} AND seq < ("
    "SELECT min(k.seq) FROM (SELECT seq FROM aimind_archive WHERE owner = {tid} "
    "ORDER BY seq DESC LIMIT {keep}) AS k)"
)
DELETE_SQL = sql.SQL("DELETE FROM aimind_archive WHERE owner = {tid}")

STATS_SQL = """
SELECT count(*) AS messages, coalesce(sum(length), 0) AS words
FROM aimind_archive WHERE owner = %(owner)s
"""
HOLDING_SQL = """
SELECT t.term, (
  SELECT count(*) FROM aimind_archive a
  WHERE a.owner = %(owner)s AND a.lexemes @@ quote_literal(t.term)::tsquery
) AS holding
FROM unnest(%(terms)s::text[]) AS t(term)
"""
CANDIDATES_SQL = """
SELECT seq, message_id, terms FROM aimind_archive
WHERE owner = %(owner)s AND lexemes @@ %(query)s::tsquery
ORDER BY seq DESC LIMIT %(limit)s
"""
MESSAGES_SQL = """
SELECT seq, message_id, role, text, created_at FROM aimind_archive
WHERE owner = %(owner)s AND seq = ANY(%(seqs)s)
"""
EVERY_SQL = """
SELECT seq, message_id, role, text, created_at FROM aimind_archive
WHERE owner = %(owner)s ORDER BY seq
"""


def insert_statements(
    thread_id: str, entries: Sequence[ArchiveEntry], keep: int | None, written: sql.Composable
) -> list[sql.Composable]:
    """The statements that archive ``entries`` in a memory write's transaction (and trim
    the owner's rows to ``keep``), each doing nothing unless ``written`` holds."""
    if not entries:
        return []
    rows = [
        [
            e.message_id,
            e.role,
            e.text,
            e.created_at.isoformat(),
            joined(e.terms),
            len(e.terms),
            sorted(set(e.terms)),
        ]
        for e in entries
    ]
    tid = sql.Literal(thread_id)
    out: list[sql.Composable] = [
        INSERT_SQL.format(tid=tid, rows=sql.Literal(Jsonb(rows)), written=written)
    ]
    if keep is not None:
        out.append(TRIM_SQL.format(tid=tid, written=written, keep=sql.Literal(keep)))
    return out


def delete_statement(thread_id: str) -> sql.Composable:
    return DELETE_SQL.format(tid=sql.Literal(thread_id))


def _lexeme(word: str) -> str:
    """A word as a quoted ``tsquery`` lexeme (quotes and backslashes escaped)."""
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def _message(row: dict[str, Any]) -> ArchivedMessage:
    return ArchivedMessage(
        row["seq"], row["message_id"], row["role"], row["text"], row["created_at"]
    )


class PostgresArchive:
    """Reads the archive over memory's pool (waiting for a connection only while the
    database is reachable, as memory's other reads)."""

    def __init__(self, pool: MemoryPool) -> None:
        self.pool = pool

    async def _rows(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        async with self.pool.reachable_connection() as conn:
            cur = await conn.execute(query, params, prepare=False)
            return list(await cur.fetchall())

    async def stats(self, owner: str, terms: Sequence[str]) -> ArchiveStats:
        (row,) = await self._rows(STATS_SQL, {"owner": owner})
        holding: dict[str, int] = {}
        if row["messages"] and terms:
            params = {"owner": owner, "terms": list(dict.fromkeys(terms))}
            holding = {r["term"]: int(r["holding"]) for r in await self._rows(HOLDING_SQL, params)}
        return ArchiveStats(int(row["messages"]), int(row["words"]), holding)

    async def candidates(self, owner: str, terms: Sequence[str], limit: int) -> list[Candidate]:
        if not terms or limit < 1:
            return []
        query = " | ".join(_lexeme(t) for t in terms)
        rows = await self._rows(CANDIDATES_SQL, {"owner": owner, "query": query, "limit": limit})
        return [Candidate(r["seq"], r["message_id"], split(r["terms"])) for r in rows]

    async def messages(self, owner: str, seqs: Sequence[int]) -> list[ArchivedMessage]:
        if not seqs:
            return []
        rows = await self._rows(MESSAGES_SQL, {"owner": owner, "seqs": list(seqs)})
        return [_message(r) for r in rows]

    async def every(self, owner: str) -> list[ArchivedMessage]:
        return [_message(r) for r in await self._rows(EVERY_SQL, {"owner": owner})]
