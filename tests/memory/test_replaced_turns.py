"""A turn that replaces earlier ones (a regenerated answer, an edited question; issue 30).

``append_turn(..., replaces=ids)`` takes the turns those ids name out of the window in
the compare-and-put that writes the new turn: the window then holds the new turn, not
the old, and the turns other threads wrote in between stay. A turn already folded
into the summary stays there; the new one is written as usual. Both backends.
"""

from __future__ import annotations

import asyncio

from aimind_memory.memory import open_memory

from .helpers import GatedCompactor, assert_bounds, new_token, turn


def window(state) -> list[tuple[str, str]]:
    return [(m.id, m.text) for m in state.messages]


async def test_a_regenerated_answer_replaces_the_old_one_and_other_threads_turns_stay(
    db_url: str,
) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(
            token, turn("plan the trip", "to Lisbon", user_id="u1", assistant_id="a1")
        )
        await mem.append_turn(token, turn("other tab", "hello", user_id="x1", assistant_id="x2"))
        await mem.append_turn(
            token, turn("which hotel?", "Hotel A", user_id="u2", assistant_id="a2")
        )
        again = turn("which hotel?", "Hotel B", user_id="u2", assistant_id="a2-regen")
        result = await mem.append_turn(token, again, replaces=["u2", "a2"])
        state = await mem.load(token)
    assert result.written and result.replaced == 1
    assert result.message_ids == ("u2", "a2-regen")
    assert window(state) == [
        ("u1", "plan the trip"),
        ("a1", "to Lisbon"),
        ("x1", "other tab"),
        ("x2", "hello"),
        ("u2", "which hotel?"),
        ("a2-regen", "Hotel B"),
    ]
    assert_bounds(state)


async def test_naming_one_message_of_a_turn_replaces_the_whole_turn(db_url: str) -> None:
    """An edited question: the old question and its answer go, the new turn comes."""
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(
            token, turn("book for 4", "booked for 4", user_id="q", assistant_id="a")
        )
        result = await mem.append_turn(token, turn("book for 6", "booked for 6"), replaces=["q"])
        state = await mem.load(token)
    assert result.replaced == 1 and len(result.message_ids) == 2
    assert [m.text for m in state.messages] == ["book for 6", "booked for 6"]
    assert [m.id for m in state.messages] == list(result.message_ids)  # memory's own ids


async def test_a_replacing_write_done_twice_leaves_one_turn(db_url: str) -> None:
    """A final node that runs again (a retried run) replaces its own first write."""
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("which hotel?", "Hotel A", user_id="u", assistant_id="a"))
        again = turn("which hotel?", "Hotel B", user_id="u", assistant_id="b")
        for _ in range(2):
            assert (await mem.append_turn(token, again, replaces=["u", "a"])).written
        state = await mem.load(token)
    assert window(state) == [("u", "which hotel?"), ("b", "Hotel B")]


async def test_a_turn_already_folded_stays_folded_and_the_new_one_is_written(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("The venue is Hall 7.", "Hall 7.", user_id="old"))
        for n in range(4):  # the fifth turn folds the oldest three
            await mem.append_turn(token, turn(f"filler {n}", f"ok {n}"))
        assert "old" not in {m.id for m in (await mem.load(token)).messages}
        result = await mem.append_turn(
            token,
            turn("The venue is Hall 7.", "Hall 9, actually.", user_id="old"),
            replaces=["old"],
        )
        state = await mem.load(token)
    assert result.written and result.replaced == 0
    assert "Hall 7" in state.summary  # folded before: the summary keeps it
    assert [m.text for m in state.messages[-2:]] == ["The venue is Hall 7.", "Hall 9, actually."]
    assert_bounds(state)


async def test_replacing_a_turn_a_pending_compaction_folds_still_lets_it_land(db_url: str) -> None:
    """The model is folding the replaced turn when it is replaced: its result still lands
    (the replaced turn is then in the summary, like any folded turn) and the window's
    bound comes back."""
    gate = GatedCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=gate) as mem:
        for n in range(1, 6):
            await mem.append_turn(
                token, turn(f"q{n}", f"a{n}", user_id=f"u{n}", assistant_id=f"a{n}")
            )
        await asyncio.wait_for(gate.asked.wait(), 10)  # folding turns 1-3
        again = turn("q2", "a2 again", user_id="u2", assistant_id="a2-regen")
        assert (await mem.append_turn(token, again, replaces=["u2", "a2"])).replaced == 1
        gate.release.set()
        await mem.settle(token)
        snapshot = await mem.snapshot(token)
    state = snapshot.state
    assert snapshot.landed is not None and snapshot.landed["status"] == "succeeded"
    assert window(state) == [
        ("u4", "q4"),
        ("a4", "a4"),
        ("u5", "q5"),
        ("a5", "a5"),
        ("u2", "q2"),
        ("a2-regen", "a2 again"),
    ]
    assert state.summary == "q1 | a1 | q2 | a2 | q3 | a3"
    assert_bounds(state)
