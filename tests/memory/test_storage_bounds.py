"""A memory thread's stored rows stay at a small constant (contract §10, §12.5).

Run with ``pytest -s`` to see the row counts per backend.
"""

from __future__ import annotations

import sqlite3

import psycopg

from aimind_memory.memory import open_memory
from aimind_memory.memory.config.limits import PRUNE_EVERY
from aimind_memory.memory.storage import backend_of, sqlite_path
from aimind_memory.memory.storage.store import thread_config

from .helpers import assert_bounds, new_token, turn, user_texts

SQLITE_TABLES = ("checkpoints", "writes")
POSTGRES_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
ROW_BOUND = 4 * PRUNE_EVERY
"""At most PRUNE_EVERY checkpoints between prunes, plus at most three list blobs
(messages, the pins' records, their provenance) each on Postgres; the turn count never
enters."""


def stored_rows(db_url: str, thread_id: str) -> dict[str, int]:
    """Rows the backend holds for ``thread_id``, table by table."""
    if backend_of(db_url) == "sqlite":
        with sqlite3.connect(sqlite_path(db_url)) as conn:
            return {
                t: conn.execute(
                    f"SELECT count(*) FROM {t} WHERE thread_id = ?", (thread_id,)
                ).fetchone()[0]
                for t in SQLITE_TABLES
            }
    with psycopg.connect(db_url) as conn:
        return {
            t: conn.execute(
                f"SELECT count(*) FROM {t} WHERE thread_id = %s", (thread_id,)
            ).fetchone()[0]
            for t in POSTGRES_TABLES
        }


async def test_a_thousand_turns_keep_a_small_constant_number_of_rows(db_url: str) -> None:
    token = new_token()
    backend = backend_of(db_url)
    seen: dict[int, dict[str, int]] = {}
    async with open_memory(db_url) as mem:  # the extractive compactor
        thread_id = mem.thread_id(token)
        for i in range(1, 1001):
            result = await mem.append_turn(
                token, turn(f"Turn {i}: we must remember item {i}.", f"Noted item {i}.")
            )
            assert result.written
            if i in (10, 100, 500, 1000):
                seen[i] = stored_rows(db_url, thread_id)
        state = await mem.load(token)
    for n, rows in seen.items():
        print(f"\n[{backend}] memory thread rows after {n} turns: {rows}")
        assert rows["checkpoints"] <= PRUNE_EVERY, rows
        assert sum(rows.values()) <= ROW_BOUND, rows
    assert max(sum(r.values()) for r in seen.values()) <= ROW_BOUND
    assert_bounds(state)
    assert state.messages[-2].text == "Turn 1000: we must remember item 1000."
    assert len(state.pinned_decisions) == 20
    # the last fold was at turn 998, keeping turns 997-998
    assert state.pinned_decisions[-1] == "Turn 996: we must remember item 996."


async def test_the_in_memory_backend_prunes_too() -> None:
    token = new_token()
    async with open_memory("memory") as mem:
        thread_id = mem.thread_id(token)
        saver = mem.backend.saver
        for i in range(1, 301):
            assert (await mem.append_turn(token, turn(f"q{i}", f"a{i}"))).written
            checkpoints = len([t async for t in saver.alist(thread_config(thread_id))])
            blobs = sum(1 for key in saver.blobs if key[0] == thread_id)
            assert checkpoints <= PRUNE_EVERY and blobs <= 4 * PRUNE_EVERY, (i, checkpoints, blobs)
        state = await mem.load(token)
        snapshot = await mem.graph.aget_state({"configurable": {"thread_id": thread_id}})
    print(f"\n[memory] memory thread after 300 turns: checkpoints={checkpoints}, blobs={blobs}")
    assert snapshot.values == state.to_channels()
    assert user_texts(state) == ["q298", "q299", "q300"]  # last fold at turn 299


async def test_values_written_before_many_prunes_are_still_read(db_url: str) -> None:
    """A channel that stops changing keeps pointing at an old write; pruning must keep it."""
    token = new_token()
    async with open_memory(db_url) as mem:
        for i in range(1, 6):
            await mem.append_turn(token, turn(f"We decided on rule {i}.", f"ok {i}"))
        pins = [f"We decided on rule {i}." for i in range(1, 6)]  # all pinned by turn 8
        for i in range(6, 60):  # no more decisions: after turn 8 the pins never change
            await mem.append_turn(token, turn(f"Chatter {i}.", f"reply {i}"))
        thread_id = mem.thread_id(token)
        state = await mem.load(token)
        snapshot = await mem.graph.aget_state({"configurable": {"thread_id": thread_id}})
        rows = stored_rows(db_url, thread_id)
    assert state.pinned_decisions == pins
    assert snapshot.values["pinned_decisions"] == pins
    assert user_texts(state)[-1] == "Chatter 59."
    assert rows["checkpoints"] <= PRUNE_EVERY
