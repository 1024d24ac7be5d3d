"""The archive on PostgreSQL: a table of folded messages with a GIN-indexed ``tsvector``.

The ``tsvector`` is built from the row's words as they come (``array_to_tsvector`` of
``memory.archive.terms``' words under the owner's key, ``memory.storage.archive.owned``:
no text search parser or dictionary in between), so it holds exactly the words SQLite's
FTS5 index holds, a query finds the same rows on both, and a word's postings in the GIN
index are one session's. A query is a ``tsquery`` of quoted lexemes joined with ``|``: a
user's words are never query syntax. ``aimind_archive_counts`` keeps each owner's rows
and words, updated by the statements that add and remove its rows.

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
    owned,
    split,
)
from aimind_memory.memory.storage.pg_pool import MemoryPool

PRESENT_SQL = "SELECT to_regclass('aimind_archive_counts') IS NOT NULL AS present"
"""The last of the schema's tables: the schema is all there."""
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
    """
    CREATE TABLE IF NOT EXISTS aimind_archive_counts (
      owner text PRIMARY KEY,
      messages bigint NOT NULL,
      words bigint NOT NULL
    )
    """,
)
"""Run under the set-up lock (``memory.storage.postgres``), once per database."""

INSERT_SQL = sql.SQL(
    "WITH added AS ("
    "INSERT INTO aimind_archive (owner, message_id, role, text, created_at, terms, length, "
    "lexemes) "
    "SELECT {tid}, e.v ->> 0, e.v ->> 1, e.v ->> 2, (e.v ->> 3)::timestamptz, e.v ->> 4, "
    "(e.v ->> 5)::integer, array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(e.v -> 6))) "
    "FROM jsonb_array_elements({rows}) WITH ORDINALITY AS e(v, n) WHERE {written} "
    "ORDER BY e.n ON CONFLICT (owner, message_id) DO NOTHING RETURNING length) "
    "INSERT INTO aimind_archive_counts (owner, messages, words) "
    "SELECT {tid}, count(*), coalesce(sum(length), 0) FROM added HAVING count(*) > 0 "
    "ON CONFLICT (owner) DO UPDATE SET messages = aimind_archive_counts.messages "
    "+ excluded.messages, words = aimind_archive_counts.words + excluded.words"
)
"""A fold's messages, oldest first, if the memory write they belong to was stored (those
archived already stay as they are), and the owner's counts."""
TRIM_SQL = sql.SQL(
    "WITH gone AS (DELETE FROM aimind_archive WHERE owner = {tid} AND {written} AND seq < ("
    "SELECT min(k.seq) FROM (SELECT seq FROM aimind_archive WHERE owner = {tid} "
    "ORDER BY seq DESC LIMIT {keep}) AS k) RETURNING length) "
    "UPDATE aimind_archive_counts SET messages = messages - (SELECT count(*) FROM gone), "
    "words = words - (SELECT coalesce(sum(length), 0) FROM gone) WHERE owner = {tid}"
)
DELETE_SQL = (
    sql.SQL("DELETE FROM aimind_archive WHERE owner = {tid}"),
    sql.SQL("DELETE FROM aimind_archive_counts WHERE owner = {tid}"),
)

SEARCH_SQL = """
WITH asked AS (
  SELECT t.term, t.n, (
    SELECT count(*) FROM aimind_archive a
    WHERE a.owner = %(owner)s AND a.lexemes @@ quote_literal(t.term)::tsquery
  ) AS holding
  FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(term, n)
),
ordered AS (
  SELECT term, row_number() OVER w AS r, sum(holding) OVER w AS running
  FROM asked WHERE holding > 0
  WINDOW w AS (ORDER BY holding, n ROWS UNBOUNDED PRECEDING)
),
chosen AS (
  SELECT string_agg(quote_literal(term), ' | ')::tsquery AS query
  FROM ordered WHERE r = 1 OR running <= %(cap)s
),
totals AS (
  SELECT coalesce(max(messages), 0) AS messages, coalesce(max(words), 0) AS words
  FROM aimind_archive_counts WHERE owner = %(owner)s
)
SELECT t.messages, t.words,
  (SELECT coalesce(array_agg(holding ORDER BY n), '{}') FROM asked) AS holding,
  c.seq, c.message_id, c.terms
FROM totals t LEFT JOIN LATERAL (
  SELECT a.seq, a.message_id, a.terms FROM aimind_archive a, chosen
  WHERE chosen.query IS NOT NULL AND a.owner = %(owner)s AND a.lexemes @@ chosen.query
  ORDER BY a.seq DESC LIMIT %(limit)s
) c ON true
"""
"""One round trip: the owner's counts for the query's words, the words to look up by
``memory.storage.archive.lookup_terms``'s rule (the rarest first while within ``cap``),
and the rows holding them, newest first (a row of counts alone when there are none)."""
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
            sorted(set(owned(thread_id, e.terms))),
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


def delete_statements(thread_id: str) -> list[sql.Composable]:
    return [s.format(tid=sql.Literal(thread_id)) for s in DELETE_SQL]


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

    async def search(
        self, owner: str, terms: Sequence[str], *, cap: int, limit: int
    ) -> tuple[ArchiveStats, list[Candidate]]:
        asked = list(dict.fromkeys(terms))
        params = {"owner": owner, "terms": owned(owner, asked), "cap": cap, "limit": max(limit, 0)}
        rows = await self._rows(SEARCH_SQL, params)
        first = rows[0]
        holding = dict(zip(asked, map(int, first["holding"]), strict=True))
        stats = ArchiveStats(int(first["messages"]), int(first["words"]), holding)
        found = [
            Candidate(r["seq"], r["message_id"], split(r["terms"]))
            for r in rows
            if r["seq"] is not None
        ]
        return stats, found

    async def messages(self, owner: str, seqs: Sequence[int]) -> list[ArchivedMessage]:
        if not seqs:
            return []
        rows = await self._rows(MESSAGES_SQL, {"owner": owner, "seqs": list(seqs)})
        return [_message(r) for r in rows]

    async def every(self, owner: str) -> list[ArchivedMessage]:
        return [_message(r) for r in await self._rows(EVERY_SQL, {"owner": owner})]
