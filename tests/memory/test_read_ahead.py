"""Reading each turn ahead (``ReadsAhead``): the offline compactor reads a turn after its
write, and the fold the next turn's write will make, off the answer's path, so that fold
is cheap (benchmark 19).

A user must notice nothing but speed: the turn is written before any reading starts, what
memory holds is the same with or without it, a reading that fails loses nothing and logs
no text, and closing memory cancels one under way (nothing waits for it). Both backends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import pytest

from aimind_memory.memory import ExtractiveCompactor, MemoryService, open_memory
from aimind_memory.memory.compaction import CompactionRequest, ReadsAhead
from aimind_memory.memory.models import ChatThreadMessage, ExplainedOutput

from .helpers import new_token, turn

CONVERSATION = [
    ("Let's use PostgreSQL for the orders service.", "Agreed: PostgreSQL for orders."),
    ("We decided to deploy on Kubernetes in the Frankfurt region.", "Noted, Frankfurt it is."),
    ("How many replicas do we start with?", "Three replicas is a good start."),
    ("Actually, switch to MySQL.", "Switching the orders service to MySQL."),
    ("Set the retry limit to 5.", "Retry limit set to 5."),
    ("The weather in Berlin is grey today.", "Grey skies are common there in December."),
    ("Make the retry limit 8 instead.", "Retry limit raised to 8."),
]


class Reader(ExtractiveCompactor):
    """The offline compactor, recording what it was given to read and when."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[list[tuple[str, str]]] = []
        self.upcoming: list[list[str] | None] = []  # the texts each upcoming fold folds
        self.folded: list[list[str]] = []  # the texts each fold folded
        self.reading = False

    async def read_ahead(
        self, turn: Sequence[ChatThreadMessage], upcoming: CompactionRequest | None
    ) -> None:
        self.read.append([(m.role, m.text) for m in turn])
        self.upcoming.append([m.text for m in upcoming.folded] if upcoming else None)
        self.reading = True
        try:
            await super().read_ahead(turn, upcoming)
        finally:
            self.reading = False

    def compact_sync(self, request: CompactionRequest) -> ExplainedOutput:
        if not self.reading:  # a fold, not a reading
            self.folded.append([m.text for m in request.folded])
        return super().compact_sync(request)


class NoReading(ExtractiveCompactor):
    """The offline compactor with reading ahead turned off (not a ``ReadsAhead``)."""

    read_ahead = None  # type: ignore[assignment]


async def _play(mem: MemoryService, token: str) -> None:
    for user, assistant in CONVERSATION:
        await mem.append_turn(token, turn(user, assistant))
        await mem.compactions.read_all()


def test_the_offline_compactor_reads_ahead_and_a_model_does_not() -> None:
    assert isinstance(ExtractiveCompactor(), ReadsAhead)
    assert not isinstance(NoReading(), ReadsAhead)


async def test_each_turn_is_read_once_after_its_write_returns(db_url: str) -> None:
    reader, token = Reader(), new_token()
    async with open_memory(db_url, compactor=reader) as mem:
        for i, (user, assistant) in enumerate(CONVERSATION[:3]):
            assert (await mem.append_turn(token, turn(user, assistant))).written
            assert len(reader.read) == i  # written and answered before its reading starts
            await mem.settle(token)
            assert len(reader.read) == i  # memory's settling does not wait for it
            await mem.compactions.read_all()
            assert reader.read[-1] == [("user", user), ("assistant", assistant)]
    assert len(reader.read) == 3


async def test_memory_holds_the_same_with_or_without_reading_ahead(db_url: str) -> None:
    plain, ahead = new_token(), new_token()
    async with open_memory(db_url, compactor=NoReading()) as mem:
        await _play(mem, plain)
        without = await mem.load(plain)
    reader = Reader()
    async with open_memory(db_url, compactor=reader) as mem:
        await _play(mem, ahead)
        with_reading = await mem.load(ahead)
    assert len(reader.read) == len(CONVERSATION)
    assert without.summary and without.pinned_decisions  # the conversation folded
    assert with_reading.summary == without.summary
    assert with_reading.pinned_decisions == without.pinned_decisions
    assert [p.why for p in with_reading.pins] == [p.why for p in without.pins]
    assert [(r.text, r.why) for r in with_reading.replaced] == [
        (r.text, r.why) for r in without.replaced
    ]


class Failing(ExtractiveCompactor):
    async def read_ahead(
        self, turn: Sequence[ChatThreadMessage], upcoming: CompactionRequest | None
    ) -> None:
        raise ValueError(f"could not read {turn[0].text}")


async def test_a_failed_reading_loses_nothing_and_logs_no_text(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    token = new_token()
    with caplog.at_level(logging.WARNING, logger="aimind"):
        async with open_memory(db_url, compactor=Failing()) as mem:
            await _play(mem, token)
            state = await mem.load(token)
    assert state.summary and CONVERSATION[0][0] in state.pinned_decisions  # folded
    assert [m.text for m in state.messages][-2:] == list(CONVERSATION[-1])  # written
    failures = [r.getMessage() for r in caplog.records if "reading a turn ahead" in r.message]
    assert failures and all(m == "reading a turn ahead failed (ValueError)" for m in failures)
    assert not any("PostgreSQL" in r.getMessage() for r in caplog.records)


class Stuck(ExtractiveCompactor):
    async def read_ahead(
        self, turn: Sequence[ChatThreadMessage], upcoming: CompactionRequest | None
    ) -> None:
        await asyncio.Event().wait()


async def test_closing_memory_cancels_a_reading_that_does_not_finish(db_url: str) -> None:
    token = new_token()

    async def session() -> None:
        async with open_memory(db_url, compactor=Stuck()) as mem:
            assert (await mem.append_turn(token, turn("Ship it on Friday.", "Ok."))).written
            await asyncio.sleep(0.1)  # the reading has started, and is stuck

    await asyncio.wait_for(session(), 5)  # closing cancelled it
    async with open_memory(db_url) as mem:
        texts = [m.text for m in (await mem.load(token)).messages]
    assert texts == ["Ship it on Friday.", "Ok."]


async def test_the_fold_the_next_turn_makes_is_read_before_that_turn(db_url: str) -> None:
    """After each turn, the reading names the fold the next turn's write will make, and
    None when that write will not fold: every fold was read ahead, message for message."""
    reader, token = Reader(), new_token()
    folds_at: list[int] = []
    async with open_memory(db_url, compactor=reader) as mem:
        for n, (user, assistant) in enumerate(CONVERSATION):
            if (await mem.append_turn(token, turn(user, assistant))).compacted:
                folds_at.append(n)
            await mem.compactions.read_all()
    assert folds_at and len(reader.folded) == len(folds_at)
    expected = [
        reader.folded[folds_at.index(n + 1)] if n + 1 in folds_at else None
        for n in range(len(CONVERSATION) - 1)
    ]
    assert reader.upcoming[:-1] == expected  # the last turn has no next one to compare
