"""Compaction off the answer's path (SPEC §3, §5): a model compaction runs after the turn.

The turn is written at once; the compaction lands later with a compare-and-put, so
turns written meanwhile (here or in another process) are kept; a window that
would pass 12 messages is folded inline by the extractive compactor; a compaction
lost with its process is made up by a later write; closing memory lets a pending
compaction land, or abandons one that does not finish. Both backends.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from memory import open_memory
from memory import service as service_module

from .helpers import (
    LIMITS,
    GatedCompactor,
    assert_bounds,
    line_writer,
    new_token,
    turn,
    user_texts,
    write_line,
)

PENDING_MAX = LIMITS.pending_max_messages


def texts(n: int) -> list[str]:
    return [f"q{n}", f"a{n}"]


async def test_a_model_compaction_never_delays_the_turn_that_starts_it(db_url: str) -> None:
    gate = GatedCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=gate) as mem:
        for i in range(1, 6):
            result = await asyncio.wait_for(mem.append_turn(token, turn(*texts(i))), 10)
        # the gate is shut: the fifth turn returned, written, with its compaction pending
        assert result.written and result.pending and not result.compacted
        snapshot = await mem.snapshot(token)
        assert snapshot.pending and len(snapshot.state.messages) == 10
        await asyncio.wait_for(gate.asked.wait(), 10)  # it starts just after the turn
        assert len(gate.requests) == 1
        gate.release.set()
        state = await mem.load(token)
    assert user_texts(state) == ["q4", "q5"]
    assert state.summary == "q1 | a1 | q2 | a2 | q3 | a3"


async def test_turns_written_while_a_compaction_is_pending_are_kept(db_url: str) -> None:
    gate = GatedCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=gate) as mem:
        for i in range(1, 7):
            result = await mem.append_turn(token, turn(*texts(i)))
            assert_bounds((await mem.snapshot(token)).state, pending=True)
        assert not result.pending  # the sixth turn starts no second compaction
        gate.release.set()
        state = await mem.load(token)
        landed = (await mem.snapshot(token)).landed
    assert len(gate.requests) == 1
    assert user_texts(state) == ["q4", "q5", "q6"]  # the turn written meanwhile stayed
    assert state.summary == "q1 | a1 | q2 | a2 | q3 | a3"
    assert state.pinned_decisions == ["gated pin 1"]
    assert landed is not None and landed["status"] == "succeeded"


async def test_past_twelve_messages_the_write_folds_inline_and_the_late_result_is_dropped(
    db_url: str,
) -> None:
    gate = GatedCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=gate) as mem:
        for i in range(1, 7):
            await mem.append_turn(token, turn(*texts(i)))
        assert len((await mem.snapshot(token)).state.messages) == PENDING_MAX
        seventh = await mem.append_turn(token, turn(*texts(7)))
        assert seventh.compacted and seventh.compactor == "extractive"
        folded_inline = (await mem.snapshot(token)).state
        gate.release.set()
        await mem.settle(token)
        state = await mem.load(token)
    assert user_texts(folded_inline) == ["q6", "q7"]
    assert state == folded_inline  # the model's late result was dropped, nothing lost
    assert "gated pin 1" not in state.pinned_decisions


async def test_a_turn_from_another_process_during_the_compaction_is_kept(db_url: str) -> None:
    gate = GatedCompactor()
    token = new_token()
    env = {**os.environ, "AIMIND_TEST_GATED_COMPACTOR": "1"}
    other = await line_writer(db_url, token, "other", env)
    async with open_memory(db_url, compactor=gate) as mem:
        for i in range(1, 6):
            await mem.append_turn(token, turn(*texts(i)))
        answer = await write_line(other, 1)
        # the window was already overflowing: the other process starts no compaction
        assert answer == {"written": True, "pending": False}
        gate.release.set()
        state = await mem.load(token)
    assert other.stdin is not None
    other.stdin.close()
    assert await asyncio.wait_for(other.wait(), 60) == 0
    assert user_texts(state) == ["q4", "q5", "other 1"]
    assert state.summary == "q1 | a1 | q2 | a2 | q3 | a3"


async def test_a_compaction_lost_with_its_process_is_made_up_by_a_later_write(
    db_url: str,
) -> None:
    token = new_token()
    env = {**os.environ, "AIMIND_TEST_GATED_COMPACTOR": "1"}
    doomed = await line_writer(db_url, token, "q", env)
    for i in range(1, 6):
        answer = await write_line(doomed, i)
    assert answer == {"written": True, "pending": True}
    doomed.kill()  # SIGKILL with the compaction pending: it never lands
    await doomed.wait()
    gate = GatedCompactor()  # a model compactor that never answers here either
    async with open_memory(db_url, compactor=gate) as mem:
        assert (await mem.snapshot(token)).pending
        sixth = await mem.append_turn(token, turn("q 6", "reply 6"))
        assert not sixth.pending and not sixth.compacted  # 12 messages: still within bound
        seventh = await mem.append_turn(token, turn("q 7", "reply 7"))
        state = (await mem.snapshot(token)).state
    assert seventh.compacted and seventh.compactor == "extractive"
    assert_bounds(state)
    assert user_texts(state) == ["q 6", "q 7"] and state.summary
    assert gate.requests == []


async def test_closing_memory_lets_a_pending_compaction_land(db_url: str) -> None:
    gate = GatedCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=gate) as mem:
        for i in range(1, 6):
            await mem.append_turn(token, turn(*texts(i)))
        asyncio.get_running_loop().call_later(0.2, gate.release.set)
    async with open_memory(db_url) as fresh:
        state = await fresh.load(token)
    assert user_texts(state) == ["q4", "q5"] and state.summary.startswith("q1")


async def test_closing_memory_abandons_a_compaction_that_does_not_finish(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_module, "COMPACTION_SHUTDOWN_GRACE_S", 0.2)
    token = new_token()
    async with asyncio.timeout(30), open_memory(db_url, compactor=GatedCompactor()) as mem:
        for i in range(1, 6):
            await mem.append_turn(token, turn(*texts(i)))
    async with open_memory(db_url, compactor=GatedCompactor()) as fresh:
        pending = await fresh.snapshot(token)
        for i in (6, 7):
            result = await fresh.append_turn(token, turn(*texts(i)))
        state = (await fresh.snapshot(token)).state
    assert pending.pending and user_texts(pending.state) == ["q1", "q2", "q3", "q4", "q5"]
    assert result.compacted  # the later write restored the bound
    assert_bounds(state)
