"""Compaction off the answer's path (contract §3, §5): a model compaction runs after the turn.

The turn is written at once; the compaction lands later with a compare-and-put, so
turns written meanwhile (here or in another process) are kept; a window that
would pass 12 messages is folded inline by the extractive compactor, and the
model's late result becomes the base that fold is folded onto; the pending
compaction is a lease in the checkpoint, so one lost with its process is
restarted by the next write on any process, and no two run on one window at once;
closing memory lets a pending compaction land, or abandons one that does not
finish. Both backends.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from typing import Any

import pytest

from aimind_memory.memory import CompactionRequest, MemoryLimits, ThreadState, open_memory
from aimind_memory.memory import service as service_module
from aimind_memory.memory.compaction.pending import PendingCompaction
from aimind_memory.memory.models import utcnow

from .helpers import (
    LIMITS,
    GatedCompactor,
    ScriptedCompactor,
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


def fact(n: int) -> tuple[str, str]:
    """A turn the extractive compactor keeps in its summary (names, numbers, times)."""
    return (
        f"Fact {n}: the review of project P{n} is in room {n}B at {n}:30 on Friday.",
        f"Noted: project P{n} review, room {n}B, {n}:30 Friday.",
    )


async def test_past_twelve_messages_the_write_folds_inline_and_the_late_result_lands_as_the_base(
    db_url: str,
) -> None:
    """Turns quicker than the model: the window passes 12 messages and is folded inline,
    and the model's result, landing later, is the base that fold is folded onto."""
    gate = GatedCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=gate) as mem:
        for i in range(1, 7):
            await mem.append_turn(token, turn(*fact(i)))
        assert len((await mem.snapshot(token)).state.messages) == PENDING_MAX
        seventh = await mem.append_turn(token, turn(*fact(7)))
        assert seventh.compacted and seventh.compactor == "extractive"
        folded_inline = (await mem.snapshot(token)).state
        assert user_texts(folded_inline) == [fact(6)[0], fact(7)[0]]
        gate.release.set()
        await mem.settle(token)
        state = await mem.load(token)
        snapshot = await mem.snapshot(token)
    (request,) = gate.requests
    assert [m.text for m in request.folded] == [*fact(1), *fact(2), *fact(3)]
    # The model's work is the base: its pin, and its summary (the gate's " | "-joined
    # text, which the extractive fold onto it may condense but keeps the facts of).
    assert state.pinned_decisions[0] == "gated pin 1"
    assert " | " in state.summary
    for n in (1, 2, 3):
        assert f"project P{n}" in state.summary and f"room {n}B" in state.summary
    for n in (4, 5):  # folded inline past what the model folded: folded onto its result
        # (a statement the answer took on is pinned: "Noted: project P4 review, room 4B")
        assert fact(n)[0] in state.summary or fact(n)[0] in state.pinned_decisions
    assert state.messages == folded_inline.messages  # the window as the inline fold left it
    assert_bounds(state)
    assert snapshot.last_compaction is not None and snapshot.last_compaction["compactor"] == "gated"
    assert snapshot.landed is not None and snapshot.landed["status"] == "succeeded"


def assert_nothing_lost(state: ThreadState, facts: list[str]) -> None:
    """Each turn's fact (a text only it holds) is in the window or, folded, in the summary
    or a pin."""
    memory = " ".join([*(m.text for m in state.messages), state.summary, *state.pinned_decisions])
    for one in facts:
        assert one in memory, one


async def test_turns_written_while_an_overtaken_compaction_ran_are_folded_once_it_lands(
    db_url: str,
) -> None:
    """contract §5, the quiet window: the model lands after an inline fold and three more
    turns (10 messages); a follow-up model compaction folds them, so the quiet thread
    holds 8 messages at most again — without a next write."""
    gate = GatedCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=gate) as mem:
        for n in range(1, 11):
            await mem.append_turn(token, turn(*fact(n)))
        await asyncio.wait_for(gate.asked.wait(), 10)
        before = (await mem.snapshot(token)).state
        assert len(before.messages) == 10 and len(gate.requests) == 1
        gate.release.set()
        await mem.settle(token)  # the landing, then the follow-up it started
        snapshot = await mem.snapshot(token)
    state = snapshot.state
    assert user_texts(state) == [fact(9)[0], fact(10)[0]]
    first, follow_up = gate.requests
    assert [m.text for m in first.folded if m.role == "user"] == [fact(n)[0] for n in (1, 2, 3)]
    assert [m.text for m in follow_up.folded if m.role == "user"] == [fact(n)[0] for n in (6, 7, 8)]
    assert {"gated pin 1", "gated pin 2"} <= set(state.pinned_decisions)  # the model's work
    assert not snapshot.pending
    assert snapshot.last_compaction is not None and snapshot.last_compaction["compactor"] == "gated"
    assert_nothing_lost(state, [f"room {n}B" for n in range(1, 11)])
    assert_bounds(state)


async def test_a_landing_that_leaves_the_window_full_starts_a_follow_up(db_url: str) -> None:
    """Keeping as many turns as the window holds (KEEP_TURNS = RECENT_TURNS), the turns
    written while the model ran leave 10 messages when it lands: a follow-up folds them."""
    limits = MemoryLimits(recent_turns=4, keep_turns=4)
    gate = GatedCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=gate, limits=limits) as mem:
        for n in range(1, 7):
            assert (await mem.append_turn(token, turn(*texts(n)))).written
        assert len((await mem.snapshot(token)).state.messages) == 12  # pending: 6 turns
        gate.release.set()
        await mem.settle(token)
        state = (await mem.snapshot(token)).state
    assert user_texts(state) == ["q3", "q4", "q5", "q6"]
    assert [m.text for r in gate.requests for m in r.folded] == ["q1", "a1", "q2", "a2"]
    assert state.summary == "q1 | a1 q2 | a2"
    assert_nothing_lost(state, [f"q{n}" for n in range(1, 7)])
    assert_bounds(state, limits)


async def test_a_compaction_overtaken_by_more_than_its_lease_holds_is_dropped(db_url: str) -> None:
    """Past ``OVERTAKEN_TURNS`` turns folded inline beyond it, the model's late result is
    dropped; the window keeps its bound meanwhile and a later overflow starts another."""
    gate = GatedCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=gate) as mem:
        results = [await mem.append_turn(token, turn(*fact(i))) for i in range(1, 26)]
        assert [i for i, r in enumerate(results, 1) if r.pending] == [5, 25]
        assert [i for i, r in enumerate(results, 1) if r.compacted] == [7, 12, 17, 22]
        before = (await mem.snapshot(token)).state
        gate.release.set()
        await mem.settle(token)
        state = await mem.load(token)
    first, second = gate.requests
    assert " | ".join(m.text for m in first.folded) not in state.summary  # dropped
    assert " | ".join(m.text for m in second.folded) in state.summary  # landed
    assert state.summary.startswith(before.summary)  # on the inline folds' summary
    assert user_texts(state) == [fact(24)[0], fact(25)[0]]
    assert_bounds(state)


async def test_a_model_that_fails_after_being_overtaken_leaves_the_inline_fold(
    db_url: str,
) -> None:
    token = new_token()
    failing = ScriptedCompactor(modes=["raise"])
    async with open_memory(db_url, compactor=failing) as mem:
        for i in range(1, 6):
            await mem.append_turn(token, turn(*fact(i)))
        # the compaction task starts after a short delay: overtake it before it runs
        for i in (6, 7):
            await mem.append_turn(token, turn(*fact(i)))
        folded_inline = (await mem.snapshot(token)).state
        await mem.settle(token)
        snapshot = await mem.snapshot(token)
        eighth = await mem.append_turn(token, turn(*fact(8)))
    assert len(failing.requests) == 1
    assert snapshot.state == folded_inline
    assert snapshot.landed is not None and snapshot.landed["status"] == "failed"
    assert not eighth.pending  # the lease is gone; the window fits again: nothing to start


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


async def test_a_compaction_lost_with_its_process_is_restarted_by_the_next_write(
    db_url: str,
) -> None:
    """A process killed (SIGKILL) with its model compaction in flight: once its lease has
    expired, the next write, from another process, starts the compaction again."""
    token = new_token()
    env = {**os.environ, "AIMIND_TEST_GATED_COMPACTOR": "1", "AIMIND_COMPACTION_TIMEOUT_S": "0.5"}
    doomed = await line_writer(db_url, token, "q", env)
    for i in range(1, 6):
        answer = await write_line(doomed, i)
    assert answer == {"written": True, "pending": True}
    doomed.kill()  # SIGKILL with the compaction pending: it never lands
    await doomed.wait()
    model = ScriptedCompactor()
    async with open_memory(db_url, compactor=model) as mem:
        _, head = await mem.store.read(mem.thread_id(token))
        lease = PendingCompaction.of(head.metadata if head else None)
        assert lease is not None and lease.live()  # the dead process's lease, recorded
        await asyncio.sleep((lease.expires_at - utcnow()).total_seconds() + 0.05)
        sixth = await mem.append_turn(token, turn("q 6", "reply 6"))
        assert sixth.pending and not sixth.compacted  # restarted, off the answer's path
        await mem.settle(token)
        state = await mem.load(token)
        last = (await mem.snapshot(token)).last_compaction
    (request,) = model.requests
    assert [m.text for m in request.folded if m.role == "user"] == [f"q {i}" for i in range(1, 5)]
    assert user_texts(state) == ["q 5", "q 6"]
    assert state.pinned_decisions == ["pin 1"] and state.summary.startswith("q 1 reply 1")
    assert last is not None and last["compactor"] == "scripted"
    assert_bounds(state)


async def test_a_live_lease_keeps_other_processes_from_compacting_the_same_window(
    db_url: str,
) -> None:
    """Two services (two processes' worth of locks and copies) writing one session in
    turn, both with a slow model: never two compactions of the same messages at once."""
    token = new_token()
    calls: list[tuple[float, float, frozenset[str]]] = []

    class Slow(ScriptedCompactor):
        async def compact(self, request: CompactionRequest) -> Any:
            began = asyncio.get_running_loop().time()
            await asyncio.sleep(0.3)
            calls.append(
                (began, asyncio.get_running_loop().time(), frozenset(m.id for m in request.folded))
            )
            return await super().compact(request)

    async with (
        open_memory(db_url, compactor=Slow()) as first,
        open_memory(db_url, compactor=Slow()) as second,
    ):
        for i in range(40):
            mem = first if i % 2 else second
            assert (await mem.append_turn(token, turn(*fact(i)))).written
            await asyncio.sleep(0.03)
        await asyncio.gather(first.settle(), second.settle())
        state = await first.load(token)
    assert len(calls) >= 2
    for a, b in itertools.combinations(calls, 2):
        overlap = a[0] < b[1] and b[0] < a[1]
        assert not (overlap and a[2] & b[2]), "one window compacted twice at once"
    assert_bounds(state, pending=True)


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
