"""The database goes away mid-session: memory reports `failed`, nothing escapes; it comes back."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool.base import AttemptWithBackoff

from memory import FinalTurn, MemoryUnavailableError, open_memory
from memory.limits import PG_POOL_TIMEOUT_ENV
from tests.support.faults import SQLITE_BUSY_ENV, assert_bounded, own_postgres, sqlite_write_lock

SESSION = "outage-session-000001"


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


async def test_postgres_stopped_mid_session_then_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PG_POOL_TIMEOUT_ENV, "2")
    # psycopg's pool retries a dead server with exponential backoff (1 s, 2 s, 4 s …);
    # a steady 50 ms retry keeps this test short without changing what it checks.
    monkeypatch.setattr(AttemptWithBackoff, "INITIAL_DELAY", 0.05)
    monkeypatch.setattr(AttemptWithBackoff, "DELAY_BACKOFF", 1.0)
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
            assert result.written, result
            state = await mem.load(SESSION)
        texts = [m.text for m in state.messages if m.role == "user"]
        assert texts == ["question 0", "question 1", "question 2", "question 4"]
        assert_bounded(state)


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
