"""Memory never stores an id it cannot store, and no bad id freezes a thread (contract §12.2).

PostgreSQL's ``jsonb`` and ``text`` reject NUL and lone surrogates; SQLite's JSON
metadata cannot encode a lone surrogate. With a model compactor, the lease of the
compaction that runs after the turn copies the window's message ids into checkpoint
metadata: a NUL in one client message id made that write fail, and every later write
of the session too (each builds the same lease from the same window), until the user
cleared memory. Runs on both backends, with a real model compactor (the LLM compactor
over a scripted chat model).
"""

from __future__ import annotations

import re

from aimind_memory.memory import ThreadState, open_memory
from aimind_memory.memory.models import ChatThreadMessage, utcnow
from tests.support.fakes import answering

from .helpers import assert_bounds, new_token, settled, turn, user_texts

BAD_IDS = ("nul\x00id", "lone\ud800surrogate", "bell\x07id", "new\nline", "\x00")
"""Ids a client (or a graph) may hand memory: NUL, a lone surrogate, control characters."""
STORABLE = re.compile(r"[^\x00-\x1f\x7f-\x9f\ud800-\udfff]+")


def _model_compactor() -> object:
    """A chat model that summarises every request (the LLM compactor's wire path)."""
    return answering(
        lambda messages: {"summary": f"{len(messages)} messages folded", "pinned_decisions": []}
    )


def _assert_storable(state: ThreadState) -> None:
    for message in state.messages:
        assert STORABLE.fullmatch(message.id), repr(message.id)


async def test_unstorable_message_ids_never_freeze_memory(db_url: str) -> None:
    token = new_token()
    turns = [
        turn(f"question {i}", f"answer {i}", user_id=f"{bad}u{i}", assistant_id=f"{bad}a{i}")
        for i, bad in enumerate(BAD_IDS * 2)
    ]
    async with open_memory(db_url, compactor=_model_compactor()) as mem:
        results = [await settled(mem, token, t) for t in turns]
        retried = await mem.append_turn(token, turns[-1])  # a retry of the same turn
        state = await mem.load(token)
        dto = await mem.hydrate(token)
        compactions = (await mem.snapshot(token)).last_compaction
    assert [r.skipped for r in results] == [None] * len(turns)
    assert any(r.pending for r in results), "a model compaction ran after some turn"
    assert compactions is not None and compactions["status"] == "succeeded"
    assert retried.skipped == "duplicate", "a retry is still known by its (cleaned) ids"
    assert_bounds(state)
    _assert_storable(state)
    assert user_texts(state)[-1] == f"question {len(turns) - 1}"
    assert all(STORABLE.fullmatch(m["id"]) for m in dto["messages"])


async def test_a_window_holding_an_unstorable_id_heals_on_the_next_write(db_url: str) -> None:
    """A window stored with NULs in its ids and texts (an earlier version did: the blob
    takes them, the lease's metadata does not) is read back storable, so the next
    writes, and the compaction they start, go through."""
    token = new_token()
    now = utcnow()
    old = [
        ChatThreadMessage.model_construct(
            id=f"old\x00{i}", role=("user", "assistant")[i % 2], text=f"old\x00 {i}", created_at=now
        )
        for i in range(8)
    ]
    async with open_memory(db_url, compactor=_model_compactor()) as mem:
        await mem.store.write(mem.thread_id(token), ThreadState.model_construct(messages=old), None)
        mem.store.forget(mem.thread_id(token))
        results = [await settled(mem, token, turn(f"new {i}", f"reply {i}")) for i in range(4)]
        state = await mem.load(token)
    assert [r.written for r in results] == [True] * 4
    assert any(r.pending for r in results)
    assert_bounds(state)
    _assert_storable(state)
    assert user_texts(state)[-1] == "new 3"
    assert not any("\x00" in m.text for m in state.messages)
