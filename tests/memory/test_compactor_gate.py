"""Issue 44's table through the public ``Compactor`` protocol, on both backends, after the
turn (the default) and inline (contract §5, "Memory never trusts a compactor").

A compactor given to ``open_memory`` folds turns 1-3 well, then answers the fold of turns
4-6 with a row's output. Whatever it returned: nothing bad is stored (summary and pins),
nothing is lost (turns 4-6's database, budget and city are in memory — the extractive
compactor folded them when the output was refused — and the good fold's summary and pin
are intact), the compaction is reported ``failed`` when refused (the status event and
``last_compaction``), and one log line gives the reason, never the text.
"""

from __future__ import annotations

import logging

import pytest

from aimind_memory.memory import open_memory

from .gate_cases import (
    GOOD_PIN,
    ROWS,
    TURNS,
    Row,
    RowCompactor,
    assert_logged_once,
    assert_nothing_bad_and_nothing_lost,
    play,
)
from .helpers import new_token


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="aimind")
    return caplog


@pytest.mark.parametrize("inline", [False, True], ids=["after-the-turn", "inline"])
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
async def test_what_a_compactor_returns_never_lands_unchecked(
    row: Row, inline: bool, db_url: str, logs: pytest.LogCaptureFixture
) -> None:
    compactor = RowCompactor(row, inline=inline)
    token = new_token()
    async with open_memory(db_url, compactor=compactor) as mem:
        events = await play(mem, token)
        mem.store.forget(mem.thread_id(token))  # read what the database holds
        snapshot = await mem.snapshot(token)
    state = snapshot.state
    assert len(compactor.requests) == 2
    assert [m.text for m in compactor.requests[1].folded][::2] == [u for u, _ in TURNS[3:6]]
    assert_nothing_bad_and_nothing_lost(state, row)
    status = "failed" if row.failed else "succeeded"
    assert [e["status"] for e in events] == ["started", status]
    assert snapshot.last_compaction is not None
    assert snapshot.last_compaction["status"] == status
    assert snapshot.last_compaction["compactor"] == ("extractive" if row.failed else compactor.name)
    assert_logged_once(logs, row)


async def test_a_model_pin_says_it_is_the_model_s_and_what_it_cites(db_url: str) -> None:
    """contract §5, "Memory says why": a model's pin names the model and its sources."""
    compactor = RowCompactor(next(r for r in ROWS if r.name == "pin-amount-never-said"))
    token = new_token()
    async with open_memory(db_url, compactor=compactor) as mem:
        await play(mem, token)
        pins = await mem.pins(token)
    model_pins = [p for p in pins if p.origin == "model"]
    assert [p.text for p in model_pins] == [GOOD_PIN, "We use PostgreSQL as the database."]
    for pin in model_pins:
        assert pin.sources
        assert pin.why == f"the model's pin, citing {len(pin.sources)} messages"


async def test_the_default_compactor_is_its_own_fallback_and_no_gate_reads_it(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a model, memory's own extractive compactor folds: its output is made of the
    conversation's words, so its folds skip the gate a model's output passes (the gate
    here would refuse anything) and are reported ``succeeded``, never ``failed``."""
    import aimind_memory.memory.compaction.run as run

    def refuse_all(*_: object) -> None:
        raise AssertionError("the gate read memory's own output")

    monkeypatch.setattr(run, "admit", refuse_all)
    token = new_token()
    async with open_memory(db_url) as mem:
        assert mem.compactor is mem.fallback and mem.compactor.name == "extractive"
        events = await play(mem, token)
        snapshot = await mem.snapshot(token)
    assert [e["status"] for e in events] == ["started", "succeeded"], events
    assert "We decided to use PostgreSQL as the database." in snapshot.state.pinned_decisions
    assert snapshot.last_compaction is not None
    assert snapshot.last_compaction["status"] == "succeeded"
    assert snapshot.last_compaction["compactor"] == "extractive"
