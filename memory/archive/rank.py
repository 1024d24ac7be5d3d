"""Ranking archived messages for a query: Okapi BM25 over one session's archive.

Why BM25 computed here rather than the databases' own ranking functions:

- **One ranking on every backend.** PostgreSQL's ``ts_rank``/``ts_rank_cd`` weigh how
  often and how close the words occur but not how rare they are (no IDF): "trip" in a
  question would count as much as "Lisbon". FTS5's ``bm25()`` is BM25, but SQLite
  cannot be given another. Computing it here from what both return (the rows holding
  the query's words, their words, the archive's counts) ranks the same rows the same
  way on SQLite, PostgreSQL and in memory: a bench figure or a test holds on each.
- **One session's statistics.** FTS5's ``bm25()`` takes word rarity and document
  length from the whole table, every session's rows: how one person's archive ranks
  would shift with what other people said. Here the counts are the session's own.

The usual constants (k1 = 1.2, b = 0.75) and Lucene's IDF, ``ln(1 + (N - n + 0.5) /
(n + 0.5))``, which stays positive: in an archive of a few messages the word that
answers a question still counts. Equal scores go to the newer message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from aimind_memory.memory.storage.archive import ArchiveStats, Candidate

K1 = 1.2
B = 0.75


@dataclass(frozen=True, slots=True)
class Ranked:
    score: float
    candidate: Candidate


def idf(stats: ArchiveStats, term: str) -> float:
    holding = stats.holding.get(term, 0)
    return math.log(1 + (stats.messages - holding + 0.5) / (holding + 0.5))


def rank(
    candidates: Sequence[Candidate], stats: ArchiveStats, terms: Sequence[str]
) -> list[Ranked]:
    """``candidates`` best first by BM25 for the query ``terms`` (each counted once)."""
    weights = {t: idf(stats, t) for t in dict.fromkeys(terms) if stats.holding.get(t)}
    average = max(stats.words / max(stats.messages, 1), 1.0)
    ranked = []
    for candidate in candidates:
        words = candidate.terms
        norm = K1 * (1 - B + B * len(words) / average)
        score = 0.0
        for word, weight in weights.items():
            # Only the query's words are counted, each in one pass in C: a candidate's
            # other words are never hashed (a Counter of every word cost most of a recall).
            if n := words.count(word):
                score += weight * n * (K1 + 1) / (n + norm)
        if score > 0:
            ranked.append(Ranked(score, candidate))
    ranked.sort(key=lambda r: (-r.score, -r.candidate.seq))
    return ranked
