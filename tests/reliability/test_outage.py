"""The database goes away mid-session: memory reports `failed`, nothing escapes; it comes back.

On PostgreSQL with the pool's defaults (contract §15): a call during the outage gives up
(memory unavailable, nothing escapes), and writes resume once the database is back, also
when nothing used the pool during the outage (its connections are then all dead). How
soon is the bench's to measure (benchmark 15, "PostgreSQL outage": its targets are a turn
waiting at most 5 s, writes back within 5 s), not a test's.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from aimind_memory.memory import FinalTurn, MemoryUnavailableError, open_checkpointer, open_memory
from harness.faults import SQLITE_BUSY_ENV, assert_bounded, own_postgres, sqlite_write_lock
from harness.pgbouncer import RECOMMENDED, pgbouncer

SESSION = "outage-session-000001"
GIVE_UP_S = 120.0
"""How long a test waits for writes to resume before it fails: a bound on the test, not a
speed target (the bench owns those)."""


def turn(i: int) -> FinalTurn:
    return FinalTurn(user_text=f"question {i}", assistant_text=f"answer {i}", status="completed")


async def write_and_collect(mem: Any, i: int) -> tuple[Any, list[dict[str, Any]]]:
    """Append turn ``i``; no exception may escape and events carry no error detail."""
    events: list[dict[str, Any]] = []
    result = await mem.append_turn(SESSION, turn(i), on_status=events.append)
    for event in events:
        assert set(event) == {"type", "status", "summaryLength", "pinnedDecisionCount"}
    return result, events


async def warm_pool(mem: Any) -> None:
    """Several sessions at once, so the pools hold several connections when the server dies."""
    others = [f"outage-other-{i:08d}" for i in range(8)]
    results = await asyncio.gather(*(mem.append_turn(s, turn(0)) for s in others))
    assert all(r.written for r in results)


async def test_postgres_stopped_mid_session_then_back() -> None:
    with own_postgres() as pg:
        async with open_memory(pg.uri) as mem:
            for i in range(3):
                assert (await mem.append_turn(SESSION, turn(i))).written
            await warm_pool(mem)
            pg.stop()
            result, events = await write_and_collect(mem, 3)
            assert result.written is False
            assert result.skipped == "memory-unavailable"
            assert [e["status"] for e in events][-1] == "failed"
            with pytest.raises(MemoryUnavailableError) as err:
                await mem.load(SESSION)
            assert str(err.value) == "chat memory is unavailable right now"
            dto = await mem.hydrate(SESSION)
            assert dto["messages"] == [] and dto["restored"] is False
            pg.start()
            result, events = await write_and_collect(mem, 4)
            assert result.written, result  # the first turn once it is back
            state = await mem.load(SESSION)
        texts = [m.text for m in state.messages if m.role == "user"]
        assert texts == ["question 0", "question 1", "question 2", "question 4"]
        assert_bounded(state)


async def test_postgres_restarted_between_turns_writes_at_once() -> None:
    """Nothing touches the pool while the server restarts: every pooled connection is
    dead when the next turn comes. It must not meet them one by one (psycopg pauses 1,
    2, 4 … s between failed checkouts)."""
    with own_postgres() as pg:
        async with open_memory(pg.uri) as mem:
            assert (await mem.append_turn(SESSION, turn(0))).written
            await warm_pool(mem)
            pg.stop()
            pg.start()
            result, _ = await write_and_collect(mem, 1)
            assert result.written, result
            others = await asyncio.gather(
                *(mem.append_turn(f"outage-other-{i:08d}", turn(1)) for i in range(8))
            )
            assert all(r.written for r in others)
            state = await mem.load(SESSION)
    assert [m.text for m in state.messages if m.role == "user"] == ["question 0", "question 1"]


async def test_postgres_down_behind_pgbouncer() -> None:
    """PgBouncer answers while PostgreSQL is down: connections are made, queries fail.
    With the README's settings each call gives up (the first one waits out
    ``query_wait_timeout``; the next ones know at once) and writes resume."""
    with own_postgres() as pg, pgbouncer(pg.uri, settings=RECOMMENDED) as bouncer:
        async with open_memory(bouncer.url(pg.uri)) as mem:
            assert (await mem.append_turn(SESSION, turn(0))).written
            await warm_pool(mem)
            pg.stop()
            for _ in range(3):
                result, events = await write_and_collect(mem, 1)
                assert result.skipped == "memory-unavailable"
                assert [e["status"] for e in events][-1] == "failed"
            pg.start()
            back = time.monotonic()
            while not (await mem.append_turn(SESSION, turn(2))).written:
                assert time.monotonic() - back < GIVE_UP_S, bouncer.log_tail()  # never back
                await asyncio.sleep(0.1)
            state = await mem.load(SESSION)
    assert [m.text for m in state.messages if m.role == "user"] == ["question 0", "question 2"]


async def test_sqlite_write_waits_for_another_connections_lock(sqlite_url: str) -> None:
    """Memory's writer has no busy timeout of its own: a turn written while another
    connection (a saver committing a checkpoint, another process) holds the write lock
    waits for it and lands once it is released, not a ``memory-unavailable``."""
    path = Path(sqlite_url.removeprefix("sqlite:///"))
    async with open_memory(sqlite_url) as mem:
        assert (await mem.append_turn(SESSION, turn(0))).written
        with sqlite_write_lock(path) as held:
            write = asyncio.ensure_future(write_and_collect(mem, 1))
            await asyncio.sleep(0.3)
            assert not write.done()  # it waits for the lock …
            held.execute("ROLLBACK")
            held.execute("BEGIN")  # … the context manager's own ROLLBACK ends this one
            result, events = await write
        assert result.written, result
        assert "failed" not in [e["status"] for e in events]
        state = await mem.load(SESSION)
    assert [m.text for m in state.messages if m.role == "user"] == ["question 0", "question 1"]


async def test_a_memory_write_inside_a_saver_listing_does_not_deadlock(sqlite_url: str) -> None:
    """Writers of one SQLite file in one process take turns (``write_queue``): a saver's
    write waiting for its saver's lock, held by a listing whose caller writes memory, holds
    memory's turn up only for a bounded wait; then both writes land."""
    config: Any = {"configurable": {"thread_id": "agent-thread", "checkpoint_ns": ""}}
    async with open_memory(sqlite_url) as mem, open_checkpointer(sqlite_url) as saver:
        await saver.aput(config, empty_checkpoint(), {}, {})
        async for _ in saver.alist(config):  # holds the saver's lock while it lists
            put = asyncio.ensure_future(saver.aput(config, empty_checkpoint(), {}, {}))
            await asyncio.sleep(0.05)  # its turn taken, it waits for the listing
            assert (await mem.append_turn(SESSION, turn(1))).written
        await put
        assert len([c async for c in saver.alist(config)]) == 2
        state = await mem.load(SESSION)
    assert [m.text for m in state.messages] == ["question 1", "answer 1"]


async def test_sqlite_locked_mid_session_then_back(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SQLITE_BUSY_ENV, "0.3")
    path = Path(sqlite_url.removeprefix("sqlite:///"))
    async with open_memory(sqlite_url) as mem:
        for i in range(3):
            assert (await mem.append_turn(SESSION, turn(i))).written
        with sqlite_write_lock(path):
            result, events = await write_and_collect(mem, 3)
            assert result.written is False
            assert result.skipped == "memory-unavailable"
            assert [e["status"] for e in events][-1] == "failed"
        result, events = await write_and_collect(mem, 4)
        assert result.written, result
        result, events = await write_and_collect(mem, 5)
        assert result.written, result
        state = await mem.load(SESSION)
    texts = [m.text for m in state.messages if m.role == "user"]
    assert texts == ["question 4", "question 5"]
    # turns 0-2 folded (each "question i" says nothing its "answer i" does not: one kept)
    assert all(f"answer {i}" in state.summary for i in range(3))
    assert "answer 3" not in state.summary
    assert_bounded(state)
