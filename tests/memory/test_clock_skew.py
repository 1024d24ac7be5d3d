"""A writer whose clock is behind never writes a turn that is reported written and lost.

LangGraph takes a thread's latest checkpoint to be the one with the greatest id, and
ids are time-based. A second server whose clock is 5 s (or an hour) behind wrote
children that sorted before their parents: ``append_turn`` said ``written=True`` and
the next read never saw the turn. Memory's ids now always sort after the parent's
(contract §8). Here a normal writer (this process) and a skewed one (another process)
take turns on one session; every turn either reports must be in memory, in order.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from aimind_memory.memory import MemoryLimits, open_memory

from .helpers import line_writer, new_token, turn, user_texts, write_line

ROUNDS = 6
WIDE = MemoryLimits(recent_turns=4 * ROUNDS)
"""A window wide enough that no turn is folded: each one must be found verbatim."""


@pytest.mark.parametrize("skew_s", [5.0, 3600.0], ids=["5s-behind", "1h-behind"])
async def test_a_writer_with_a_slow_clock_loses_no_turn(db_url: str, skew_s: float) -> None:
    token = new_token()
    env = {**os.environ, "AIMIND_RECENT_TURNS": str(WIDE.recent_turns)}
    skewed = await line_writer(db_url, token, "skewed", env, skew_s)
    assert skewed.stdin is not None and skewed.stdout is not None
    reported: list[tuple[str, bool]] = []
    async with open_memory(db_url, limits=WIDE) as mem:
        for i in range(ROUNDS):
            normal = await mem.append_turn(token, turn(f"normal {i}", f"reply {i}"))
            reported.append((f"normal {i}", normal.written))
            reported.append((f"skewed {i}", (await write_line(skewed, i))["written"]))
    skewed.stdin.close()
    assert await asyncio.wait_for(skewed.wait(), 60) == 0
    async with open_memory(db_url, limits=WIDE) as fresh:  # nothing kept in process
        stored = user_texts(await fresh.load(token))
    assert all(written for _, written in reported), reported
    assert stored == [text for text, _ in reported]
