"""Model output is text from outside (contract §5): cleaned before storage, and a landing that
fails for any reason is reported, with no conversation text in the log.

- A compaction whose summary and pins carry NUL, lone surrogates or control
  characters lands on both backends, cleaned like message text (Postgres used to
  refuse every such landing, with the text in its error).
- A landing whose write fails is reported ``failed`` to the next run (the
  ``landed`` status a run puts on its stream) and drops its lease, so the next
  overflow starts a compaction again; the log names the error's type only.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from aimind_memory.memory import open_memory
from aimind_memory.memory.text import clean_text
from aimind_memory.memory.writes import LANDED_KEY
from tests.support.fakes import ScriptedChatModel

from .helpers import assert_bounds, new_token, turn

MARKER = "Zanzibar-7731"
"""Conversation text that must never reach a log line."""
DIRTY = f"The user\x00 plans a trip to {MARKER}\ud800 in May\x07, budget\x1b[0m 2000 euros."
DIRTY_PINS = [f"Go to {MARKER}\x00 by train.", "\ud83d\x0b", "Budget\x7f is 2000 euros."]


def _turns(n: int) -> list[tuple[str, str]]:
    """Turns about the trip: what the model's pins say is said (the gate drops a pin nobody
    said, contract §5)."""
    return [
        (
            f"Turn {i}: about {MARKER} by train, day {i}, budget 2000 euros.",
            f"Reply {i} on {MARKER}.",
        )
        for i in range(n)
    ]


def _capture(caplog: pytest.LogCaptureFixture) -> None:
    """Every log line of memory, and what libraries log at INFO and above (their DEBUG
    lines trace raw statements, parameters included: not on in production)."""
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="aimind")


def _no_marker(caplog: pytest.LogCaptureFixture) -> None:
    assert MARKER not in caplog.text
    for record in caplog.records:
        assert MARKER not in record.getMessage()
        assert record.exc_info is None, "a stack trace (and its error text) in the log"


async def test_dirty_model_output_lands_cleaned(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    _capture(caplog)
    model = ScriptedChatModel(script=[{"summary": DIRTY, "pinned_decisions": DIRTY_PINS}])
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        for user, assistant in _turns(5):
            await mem.append_turn(token, turn(user, assistant))
        await mem.settle(token)
        mem.store.forget(mem.thread_id(token))  # read what the database holds
        state = await mem.load(token)
        snapshot = await mem.snapshot(token)
    assert len(model.calls) == 1
    assert state.summary == clean_text(DIRTY)
    assert state.summary == f"The user plans a trip to {MARKER} in May, budget[0m 2000 euros."
    assert state.pinned_decisions == [f"Go to {MARKER} by train.", "Budget is 2000 euros."]
    assert snapshot.landed is not None and snapshot.landed["status"] == "succeeded"
    assert_bounds(state)
    _no_marker(caplog)


async def test_a_landing_that_fails_is_reported_failed_and_logs_no_text(
    db_url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    _capture(caplog)
    model = ScriptedChatModel(script=[{"summary": f"Trip to {MARKER}.", "pinned_decisions": []}])
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        put = mem.backend.threads.put

        async def refuse_landing(thread_id: str, head: Any, *args: Any, **kwargs: Any) -> bool:
            landed = head.metadata.get(LANDED_KEY) or {}
            if landed.get("status") == "succeeded":  # as a database error would: quoting it
                raise RuntimeError(f"cannot store {head.checkpoint['channel_values']}")
            return await put(thread_id, head, *args, **kwargs)

        monkeypatch.setattr(mem.backend.threads, "put", refuse_landing)
        for user, assistant in _turns(5):
            await mem.append_turn(token, turn(user, assistant))
        before = (await mem.snapshot(token)).state
        await mem.settle(token)
        snapshot = await mem.snapshot(token)
        sixth = await mem.append_turn(token, turn("Turn 6: one more.", "Reply 6."))
    assert snapshot.state == before  # nothing lost, nothing half-landed
    assert snapshot.landed is not None and snapshot.landed["status"] == "failed"
    assert snapshot.last_compaction is not None and snapshot.last_compaction["status"] == "failed"
    assert sixth.pending  # the failed compaction's lease is gone: the next overflow starts one
    _no_marker(caplog)
