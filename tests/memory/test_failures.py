"""Compaction and storage failures (contract §4, §5, §12.2): the turn is kept, bounds hold."""

from __future__ import annotations

import sqlite3
import time

import psycopg
import pytest

from aimind_memory.memory import CompactionOutput, MemoryLimits, MemoryUnavailableError, open_memory
from aimind_memory.memory.storage import backend_of, sqlite_path
from tests.support.fakes import ScriptedChatModel

from .helpers import (
    ScriptedCompactor,
    assert_bounds,
    landed_compactor,
    new_token,
    overlong_pin,
    settled,
    turn,
)

FIRST = {"summary": "We talked about the database.", "pinned_decisions": ["Use PostgreSQL."]}
DATABASE_TURN = ("Which database? Let's use PostgreSQL.", "answer 1")
"""Turn 1: what ``FIRST``'s pin says (the gate drops a pin nobody said, contract §5)."""


def _sleeps(_messages: list) -> dict:
    time.sleep(1.5)  # a hung model call; the compaction timeout is far shorter
    return dict(FIRST)


FAILURES = {
    "raises": RuntimeError("model endpoint returned 500"),
    "times out": _sleeps,
    "returns garbage": "I am not JSON at all",
    "returns a list": ["summary", "pins"],
    "misses a key": {"summary": "only a summary"},
    "extra keys": {**FIRST, "messages": [], "graphState": {}},
    "wrong types": {"summary": 12, "pinned_decisions": "not a list"},
}


@pytest.mark.parametrize("failure", list(FAILURES))
async def test_failed_llm_compaction_still_stores_the_turn(db_url: str, failure: str) -> None:
    model = ScriptedChatModel(script=[dict(FIRST), FAILURES[failure]])
    # long enough for the first, scripted answer on a loaded machine (0.05 s was not)
    limits = MemoryLimits(compaction_timeout_s=0.3)
    events: list[dict] = []
    token = new_token()
    async with open_memory(db_url, compactor=model, limits=limits) as mem:
        for i in range(1, 8):
            said = DATABASE_TURN if i == 1 else (f"question {i}", f"answer {i}")
            await settled(mem, token, turn(*said))
        before = await mem.load(token)
        assert before.pinned_decisions == ["Use PostgreSQL."]
        result = await settled(
            mem, token, turn("We must keep the API stable.", "answer 8"), on_status=events.append
        )
        state = await mem.load(token)
        last = (await mem.snapshot(token)).last_compaction
        events.append((await mem.snapshot(token)).landed)  # what the next run's stream gets
    assert len(model.calls) == 2
    assert result.written and result.pending
    assert last["compactor"] == "extractive" and last["status"] == "failed"
    assert_bounds(state)
    assert [m.text for m in state.messages] == [
        "question 7",
        "answer 7",
        "We must keep the API stable.",
        "answer 8",
    ]
    assert "Use PostgreSQL." in state.pinned_decisions  # old pins survive the failure
    # the fallback folded turns 4-6 ("question 4" tells nothing "answer 4" does not: one kept)
    assert "answer 4" in state.summary
    assert state.last_compacted_at > before.last_compacted_at
    assert [e["status"] for e in events] == ["started", "failed"]
    assert events[-1]["pinnedDecisionCount"] == len(state.pinned_decisions)


async def test_over_long_fields_are_clamped_by_the_llm_path(db_url: str) -> None:
    compactor = ScriptedCompactor(modes=["ok", "overlong"])
    token = new_token()
    async with open_memory(db_url, compactor=compactor) as mem:
        for i in range(1, 9):
            await settled(mem, token, turn(f"q{i}", f"a{i}"))
            assert_bounds(await mem.load(token))
        state = await mem.load(token)
        assert await landed_compactor(mem, token) == "scripted"  # taken, clamped, not rejected
    assert len(state.summary) <= 2_500 and state.summary.startswith("Long summary sentence.")
    assert len(state.pinned_decisions) == 20
    assert state.pinned_decisions[-1].startswith(overlong_pin(29) + " ")
    assert "pin 1" not in state.pinned_decisions  # the oldest went first past the cap


async def test_repeated_failures_never_freeze_memory(db_url: str) -> None:
    compactor = ScriptedCompactor(modes=["ok"] + ["raise", "garbage", "timeout", "extra"] * 3)
    limits = MemoryLimits(compaction_timeout_s=0.02)
    token = new_token()
    async with open_memory(db_url, compactor=compactor, limits=limits) as mem:
        for i in range(1, 41):
            result = await settled(mem, token, turn(f"question {i}", f"answer {i}"))
            assert result.written
            state = await mem.load(token)
            assert_bounds(state)
            assert state.messages[-2].text == f"question {i}"
    assert len(compactor.requests) == 12
    assert "pin 1" in state.pinned_decisions
    assert "answer 36" in state.summary  # its question says nothing more: not kept twice


def _drop_tables(db_url: str) -> None:
    """Break the store under a running service, as a real outage would."""
    if backend_of(db_url) == "sqlite":
        with sqlite3.connect(sqlite_path(db_url)) as conn:
            conn.execute("DROP TABLE checkpoints")
    else:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("DROP TABLE checkpoints CASCADE")


async def test_store_failure_is_a_failed_event_not_an_error(db_url: str) -> None:
    token = new_token()
    events: list[dict] = []
    async with open_memory(db_url) as mem:
        assert (await settled(mem, token, turn("before", "outage"))).written
        _drop_tables(db_url)
        result = await settled(mem, token, turn("during", "outage"), on_status=events.append)
        with pytest.raises(MemoryUnavailableError) as raised:
            await mem.load(token)
        dto = await mem.hydrate(token)
    assert not result.written and result.skipped == "memory-unavailable"
    assert events == [
        {
            "type": "thread-memory-status",
            "status": "failed",
            "summaryLength": 0,
            "pinnedDecisionCount": 0,
        }
    ]
    message = str(raised.value).lower()
    assert "checkpoints" not in message and "relation" not in message and "table" not in message
    assert dto == {
        "threadId": mem.thread_id(token),
        "messages": [],
        "pinnedDecisions": [],
        "restored": False,
    }
    assert "checkpoints" not in repr(result.model_dump())


def test_compaction_output_accepts_exactly_summary_and_pins() -> None:
    assert CompactionOutput.model_validate(FIRST).pinned_decisions == ["Use PostgreSQL."]
    with pytest.raises(ValueError):
        CompactionOutput.model_validate({**FIRST, "messages": []})
    with pytest.raises(ValueError):
        CompactionOutput.model_validate({"summary": "x"})


async def test_postgres_write_and_prune_commit_together(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A statement failing after the checkpoint is inserted but before the COMMIT (here:
    the prune) rolls the whole turn back: memory stays exactly as it was, nothing half-done,
    and the thread's lock is free for the next turn."""
    from psycopg import sql

    from aimind_memory.memory.config.limits import PRUNE_EVERY
    from aimind_memory.memory.storage import postgres

    token = new_token()
    async with open_memory(pg_url) as mem:
        for i in range(PRUNE_EVERY):
            assert (await settled(mem, token, turn(f"q{i}", f"a{i}"))).written
        before = await mem.load(token)

        monkeypatch.setattr(postgres, "PRUNE_SQL", (sql.SQL("SELECT 1 / 0"),))
        result = await settled(mem, token, turn("the turn that fails", "never stored"))
        assert result.skipped == "memory-unavailable"
        mem.store.forget(mem.thread_id(token))  # read the database, not the kept copy
        assert await mem.load(token) == before
        monkeypatch.undo()
        assert (await settled(mem, token, turn("next", "works"))).written
