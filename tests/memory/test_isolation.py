"""Postgres: memory's compare-and-put states its isolation (contract §10) instead of inheriting it.

Memory's write is correct under READ COMMITTED: each statement after the thread's
advisory lock sees what the previous lock holder committed. A database whose
default is REPEATABLE READ or SERIALIZABLE (set by a DBA, or by another
application sharing the cluster) must not change that: eight writers (eight
services, so eight pools racing on the database, not in one process's locks)
append twenty turns each to one session, and every turn reported written is
in memory (in the window, or folded by the compaction that stored it).
"""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from aimind_memory.memory import open_memory

from .helpers import CountingCompactor, assert_bounds, new_token, turn, user_texts

WRITERS = 8
TURNS = 20


@pytest.mark.parametrize("isolation", ["repeatable read", "serializable"])
async def test_no_turn_is_lost_whatever_the_database_default_isolation(
    pg_url: str, isolation: str
) -> None:
    async with open_memory(pg_url):  # the tables, before the default changes
        pass
    with psycopg.connect(pg_url, autocommit=True) as conn:
        name = conn.info.dbname
        conn.execute(f"ALTER DATABASE \"{name}\" SET default_transaction_isolation = '{isolation}'")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        shown = conn.execute("SHOW default_transaction_isolation").fetchone()
        assert shown is not None and shown[0] == isolation

    compactor = CountingCompactor()
    token = new_token()

    async def writer(n: int) -> list[tuple[str, bool, list[str]]]:
        out = []
        async with open_memory(pg_url, compactor=compactor) as mem:
            for i in range(TURNS):
                text = f"w{n} t{i}"
                result, folded = await compactor.counted(
                    mem.append_turn(token, turn(text, f"reply {text}"))
                )
                out.append((text, result.written, folded))
        return out

    outcomes = [o for per in await asyncio.gather(*map(writer, range(WRITERS))) for o in per]
    async with open_memory(pg_url) as mem:
        state = await mem.load(token)
    assert_bounds(state)
    accounted = user_texts(state) + [text for _, _, texts in outcomes for text in texts]
    written = [text for text, ok, _ in outcomes if ok]
    lost = set(written) - set(accounted)
    assert (len(written), len(lost)) == (WRITERS * TURNS, 0)
    assert sorted(accounted) == sorted(written)  # each exactly once
