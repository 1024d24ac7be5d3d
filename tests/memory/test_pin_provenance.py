"""Where each pin came from (contract §9a): who pinned it, when, from which messages — kept
with the pin, under a stable id, through later compactions, on both backends."""

from __future__ import annotations

import json

import pytest

from aimind_memory.memory import MemoryService, open_memory
from aimind_memory.memory.compaction.pins import excerpt
from aimind_memory.memory.config.limits import PIN_EXCERPT_CHARS
from aimind_memory.memory.models import legacy_pin_id
from aimind_memory.memory.storage.store import LAST_COMPACTION_KEY, next_head

from .helpers import GatedCompactor, new_token, settled, turn

DECISION = "We decided to host the offsite in Lisbon on May 14."


async def test_an_extractive_pin_names_the_message_that_said_it(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(
            token, turn("Where should the offsite be?", "Lisbon or Porto both work.")
        )
        await mem.append_turn(
            token, turn(f"Thanks. {DECISION}", "Noted.", user_id="u-lisbon", assistant_id="a1")
        )
        for i in range(3):
            await mem.append_turn(token, turn(f"filler question {i}", f"filler answer {i}"))
        (pin,) = await mem.pins(token)
        first_id = pin.id
        # more turns, more compactions: the pin keeps its id and its provenance
        for i in range(6):
            await mem.append_turn(token, turn(f"later question {i}", f"later answer {i}"))
        (again,) = await mem.pins(token)
        state = await mem.load(token)

    assert pin.text == DECISION
    assert pin.origin == "extractive"
    assert pin.pinned_at is not None
    (source,) = pin.sources
    assert (source.message_id, source.role) == ("u-lisbon", "user")
    assert DECISION in source.excerpt
    assert again == pin and again.id == first_id
    assert state.pinned_decisions == [DECISION]


async def test_a_model_pin_names_the_messages_it_folded(db_url: str) -> None:
    compactor = GatedCompactor()
    compactor.release.set()
    token = new_token()
    async with open_memory(db_url, compactor=compactor) as mem:
        for i in range(5):
            await settled(mem, token, turn(f"q{i}", f"a{i}", user_id=f"u{i}", assistant_id=f"a{i}"))
        (pin,) = await mem.pins(token)
    (request,) = compactor.requests
    assert pin.origin == "model"
    assert [s.message_id for s in pin.sources] == [m.id for m in request.folded]
    assert [s.message_id for s in pin.sources] == ["u0", "a0", "u1", "a1", "u2", "a2"]
    assert [s.excerpt for s in pin.sources[:2]] == ["q0", "a0"]


def test_an_excerpt_is_short_and_shows_where_the_pin_was_said() -> None:
    long = "word " * 100 + DECISION + " more" * 50
    cut = excerpt(long, DECISION)
    assert len(cut) <= PIN_EXCERPT_CHARS
    assert cut.startswith("…word ") and cut.endswith("more…")
    before, after = cut.split(DECISION)  # centred: as much of the message before it as after
    assert abs(len(before) - len(after)) <= 8, (before, after)
    assert excerpt("short text") == "short text"
    assert len(excerpt("x" * 500)) == PIN_EXCERPT_CHARS


def test_an_excerpt_of_a_restated_pin_shows_the_sentence_that_says_it() -> None:
    """A model restates what it pins: its excerpt of a long assistant message is the
    sentence saying most of the pin's words, not the message's first characters."""
    reply = (
        "[offline model] No OPENAI_API_KEY is set, so this is a deterministic offline reply. "
        + "Some context that says nothing much at all. " * 6
        + "We will keep PostgreSQL as the main database for billing. "
        + "More words follow here to fill the message. " * 6
    )
    cut = excerpt(reply, "PostgreSQL stays the main database")
    assert "We will keep PostgreSQL as the main database for billing." in cut, cut
    assert not cut.startswith("[offline model]")
    # A pin of two sentences starts where its first is said.
    said = "Turn 15: we decided the app ships every two weeks. " + "The reason is long. " * 12
    cut = excerpt(said, "Decided: the app ships every two weeks. The reason is long.")
    assert cut.startswith("Turn 15: we decided the app ships every two weeks."), cut
    zh = "前面说了很多别的事情。" * 12 + "我们决定主数据库改用MySQL。" + "后面还有别的内容。" * 12
    assert "我们决定主数据库改用MySQL。" in excerpt(zh, "主数据库用 MySQL")


def test_an_excerpt_of_a_pin_said_last_ends_with_the_message() -> None:
    long = "word " * 100 + 'She said "we fly to Lisbon."'
    cut = excerpt(long, "we fly to Lisbon.")
    assert PIN_EXCERPT_CHARS - 8 <= len(cut) <= PIN_EXCERPT_CHARS
    assert cut.startswith("…") and cut.endswith('Lisbon."')
    for shift in range(5):  # wherever the cut falls, the excerpt starts at a word
        cut = excerpt("x" * shift + " deterministic" * 20 + " we fly to Lisbon.", "we fly")
        assert cut.startswith("…deterministic "), cut


async def _as_the_previous_release(mem: MemoryService, token: str, compactor: str) -> None:
    """Store the session's memory as the previous release did: pin texts, no records."""
    thread_id = mem.thread_id(token)
    channels = {
        "messages": [],
        "summary": "Earlier: the team picked a venue.",
        "pinned_decisions": ["We picked the Lisbon venue."],
        "last_compacted_at": "2026-11-01T10:00:00+00:00",
    }
    metadata = {LAST_COMPACTION_KEY: {"status": "succeeded", "compactor": compactor, "at": ""}}
    head, versions = next_head(mem.backend.saver, channels, None, metadata)
    assert await mem.backend.threads.put(thread_id, head, None, versions, prune=False)


@pytest.mark.parametrize(("compactor", "origin"), [("extractive", "extractive"), ("llm", "model")])
async def test_pins_stored_before_pins_had_records_get_what_can_be_known(
    db_url: str, compactor: str, origin: str
) -> None:
    """A memory thread written by the previous release (texts only) still reads: each pin
    gets one id from the first read on (the next write stores its record), the time of
    the thread's last compaction and who made it."""
    token = new_token()
    async with open_memory(db_url) as mem:
        await _as_the_previous_release(mem, token, compactor)
        (pin,) = await mem.pins(token)
        await mem.append_turn(token, turn("next", "ok"))
        (after,) = await mem.pins(token)
        exported = await mem.export(token)

    assert pin.id == legacy_pin_id("We picked the Lisbon venue.") == after.id
    assert pin.origin == origin == after.origin
    assert pin.pinned_at is not None and pin.pinned_at.isoformat().startswith("2026-11-01")
    assert pin.sources == ()
    assert exported["pins"][0]["id"] == pin.id
    assert exported["summary"] == "Earlier: the team picked a venue."
    assert json.loads(json.dumps(exported)) == exported  # one JSON document
