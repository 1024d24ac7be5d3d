"""The user's corrections (contract §9a): pin, edit, unpin, replace the summary — writes like
turns, which later compactions (inline or landing late) keep, on both backends."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from aimind_memory.memory import CompactionOutput, CompactionRequest, build_context, open_memory
from aimind_memory.memory.config.limits import PIN_EXCERPT_CHARS, MemoryLimits
from aimind_memory.memory.errors import (
    AIMindError,
    PinLimitError,
    PinNotFoundError,
    PinSourceError,
    PinTextError,
    SummaryTextError,
)

from .helpers import GatedCompactor, new_token, settled, turn

REMEMBER = "The client's budget ceiling is 40,000 EUR."


def context_text(state) -> str:
    return "\n".join(
        str(m.content) for m in build_context(state, system_prompt="s", latest_user_text="q")
    )


async def test_a_user_pin_is_in_the_next_context_and_survives_every_compaction(
    db_url: str,
) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("hello", "hi", user_id="u1", assistant_id="a1"))
        pin = await mem.pin(token, REMEMBER, message_id="u1")
        assert pin.origin == "user" and pin.sources[0].message_id == "u1"
        assert REMEMBER in context_text(await mem.load(token))
        for i in range(30):  # many folds, each pinning a decision of its own
            await mem.append_turn(
                token, turn(f"We decided to order {i + 2} extra chairs for room {i}.", "Noted.")
            )
        state = await mem.load(token)
    assert state.pins[0] == pin  # never evicted for a compactor's pin, same id and place
    assert len(state.pins) == MemoryLimits().pinned_max


async def test_a_pin_from_a_message_older_than_the_window_names_it_as_described(
    db_url: str,
) -> None:
    """The page shows the whole conversation; memory keeps its window. A pin from an older
    message is sourced from what the user says of it; one in the window from memory's copy,
    whatever is said. The source is stored, and stays through later compactions."""
    token = new_token()
    said_at = datetime(2024, 3, 3, 14, 5, tzinfo=UTC)
    long_words = "We weighed three venues. " * 8 + "In the end the harbour hall won."
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("hello", "hi", user_id="u1", assistant_id="a1"))
        old = await mem.pin(
            token,
            "The venue is the harbour hall.",
            message_id="old-7",
            role="assistant",
            created_at=said_at,
            excerpt=long_words,
        )
        verbatim = await mem.pin(token, "Bring the projector.", message_id="old-8", role="user")
        unnamed = await mem.pin(token, "Doors open at six.", message_id="old-9")
        windowed = await mem.pin(
            token, "hello", message_id="u1", role="assistant", excerpt="not what was said"
        )
        future = await mem.pin(
            token,
            "Catering by noon.",
            message_id="old-10",
            role="user",
            created_at=datetime(2999, 1, 1, tzinfo=UTC),
        )
        with pytest.raises(PinSourceError, match="user"):
            await mem.pin(token, "x", message_id="m", role="system")  # type: ignore[arg-type]
        with pytest.raises(PinSourceError, match="id"):
            await mem.pin(token, "x", role="user")
        for i in range(12):  # compactions fold the window: the sources stay
            await mem.append_turn(token, turn(f"We decided to add agenda item {i}.", "Noted."))
        stored = {p.id: p for p in await mem.pins(token)}

    (source,) = old.sources
    assert (source.message_id, source.role, source.created_at) == ("old-7", "assistant", said_at)
    # centred on the sentence the pin restates (the message's end), cut at a word
    assert source.excerpt.startswith("…We weighed three venues.")
    assert source.excerpt.endswith("In the end the harbour hall won.")
    assert len(source.excerpt) <= PIN_EXCERPT_CHARS
    (source,) = verbatim.sources
    assert (source.role, source.excerpt, source.created_at) == (
        "user",
        "Bring the projector.",
        None,
    )
    assert unnamed.sources == ()  # no role: not named, as before
    (source,) = windowed.sources  # memory's own copy wins
    assert (source.message_id, source.role, source.excerpt) == ("u1", "user", "hello")
    assert future.sources[0].created_at == future.pinned_at  # never said after it was pinned
    for pin in (old, verbatim, windowed, future):
        assert stored[pin.id].sources == pin.sources


async def test_pins_refuse_bad_text_and_a_full_set_of_user_pins(db_url: str) -> None:
    limits = MemoryLimits(pinned_max=3)
    token = new_token()
    async with open_memory(db_url, limits=limits) as mem:
        with pytest.raises(PinTextError):
            await mem.pin(token, "   ")
        with pytest.raises(PinTextError):
            await mem.pin(token, "x" * (limits.pin_chars + 1))
        pins = [await mem.pin(token, f"Rule {n}: no meetings on day {n}.") for n in range(3)]
        again = await mem.pin(token, "rule 0: no meetings on day 0")  # the same pin
        with pytest.raises(PinLimitError) as refused:
            await mem.pin(token, "Rule 4: no meetings on day 4.")
        with pytest.raises(PinNotFoundError):
            await mem.unpin(token, "pin-does-not-exist")
        with pytest.raises(SummaryTextError):
            await mem.set_summary(token, "s" * (limits.summary_chars + 1))
        assert [p.id for p in await mem.pins(token)] == [p.id for p in pins]
    assert again.id == pins[0].id
    assert isinstance(refused.value, AIMindError)
    assert "unpin" in str(refused.value)


async def test_edit_keeps_the_id_and_makes_the_pin_the_users(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("We decided to book the table for 4 people.", "Done."))
        for i in range(4):
            await mem.append_turn(token, turn(f"q{i}", f"a{i}"))
        (pin,) = await mem.pins(token)
        edited = await mem.edit_pin(token, pin.id, "Book the table for 6 people.")
        state = await mem.load(token)
    assert pin.origin == "extractive"
    assert (edited.id, edited.origin, edited.sources) == (pin.id, "user", pin.sources)
    assert state.pinned_decisions == ["Book the table for 6 people."]
    assert "for 4 people" not in "\n".join(state.pinned_decisions)


async def test_an_edit_keeps_the_stored_provenance_and_an_unpin_drops_it(db_url: str) -> None:
    """Stored, the pins' sources are a channel of their own: an edit of a pin's text leaves
    it as it was (it does not write every pin's excerpts again) and a fresh reader sees each
    pin with its sources; an unpin takes the pin's excerpts out of the latest checkpoint."""
    token = new_token()
    said = "We decided to book the table for 4 people."
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn(said, "Done."))
        await mem.append_turn(token, turn("We decided the venue is Lisbon.", "Noted."))
        for i in range(4):
            await mem.append_turn(token, turn(f"q{i}", f"a{i}"))
        table, venue = await mem.pins(token)
        thread_id = mem.thread_id(token)
        before = await mem.backend.threads.latest(thread_id, None)
        await mem.edit_pin(token, table.id, "Book the table for 6 people.")
        after = await mem.backend.threads.latest(thread_id, None)
    versions = [h.checkpoint["channel_versions"] for h in (before, after)]
    assert versions[0]["pin_provenance"] == versions[1]["pin_provenance"]
    assert versions[0]["pins"] != versions[1]["pins"]
    async with open_memory(db_url) as reader:  # no kept copy: decoded from the rows
        stored = {p.id: p for p in await reader.pins(token)}
        assert stored[table.id].sources == table.sources and table.sources
        assert stored[table.id].text == "Book the table for 6 people."
        assert stored[venue.id].sources == venue.sources and venue.sources
        await reader.unpin(token, table.id)
        latest = await reader.backend.threads.latest(thread_id, None)
    assert said not in repr(latest.checkpoint["channel_values"])


@dataclass
class HeldModel:
    """A model compactor playing ``outputs`` in turn, each once ``release`` is set."""

    outputs: list[CompactionOutput]
    name: str = "held-model"
    release: asyncio.Event = field(default_factory=asyncio.Event)
    asked: asyncio.Event = field(default_factory=asyncio.Event)

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        self.asked.set()
        await self.release.wait()
        return self.outputs.pop(0)


async def test_an_unpinned_pin_stays_gone_when_a_late_model_compaction_returns_it(
    db_url: str,
) -> None:
    """The user unpins while a model compaction runs; the model, shown the pin before,
    returns it again: it stays unpinned, and the model's other work lands."""
    model = HeldModel(
        [
            CompactionOutput(summary="S1.", pinned_decisions=["We use PostgreSQL in production."]),
            CompactionOutput(
                summary="S2.",
                pinned_decisions=["We use PostgreSQL in production.", "Releases ship on Friday."],
            ),
        ]
    )
    model.release.set()
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        # the turns say what the model pins (the gate drops a pin nobody said, contract §5)
        said = {0: "We use PostgreSQL in production.", 5: "Releases ship on Friday."}
        for i in range(5):
            await settled(mem, token, turn(said.get(i, f"q{i}"), f"a{i}"))
        (wrong,) = await mem.pins(token)
        model.release.clear()
        model.asked.clear()
        for i in range(5, 8):
            await mem.append_turn(token, turn(said.get(i, f"q{i}"), f"a{i}"))
        await model.asked.wait()
        await mem.unpin(token, wrong.id)
        model.release.set()
        await mem.settle(token)
        state = await mem.load(token)
    assert state.pinned_decisions == ["Releases ship on Friday."]
    assert state.summary == "S2."
    assert state.unpinned == ["we use postgresql in production"]


async def test_a_compaction_landing_after_edits_keeps_them(db_url: str) -> None:
    compactor = GatedCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=compactor) as mem:
        for i in range(5):
            await mem.append_turn(token, turn(f"q{i}", f"a{i}"))
        await compactor.asked.wait()  # pending, shown no pins
        mine = await mem.pin(token, REMEMBER)
        await mem.set_summary(token, "The user's own summary.")
        compactor.release.set()
        await mem.settle(token)
        state = await mem.load(token)
    assert state.pinned_decisions == [REMEMBER, "gated pin 1"]
    assert state.pins[0] == mine
    assert state.summary.splitlines()[0].endswith("The user's own summary.")
    assert "q0" in state.summary  # the folded turns went onto the user's summary
    assert [m.text for m in state.messages] == ["q3", "a3", "q4", "a4"]


POSTGRES = "We decided to use Postgres for the database."
MYSQL = "We decided to use MySQL for the database."


async def test_a_pin_made_and_edited_while_a_compaction_runs_keeps_its_new_wording(
    db_url: str,
) -> None:
    """A model compaction is pending (it was shown no pins); the user pins the decision
    ("Remember") and corrects it. The model, which folded the message that said it, pins
    the old wording: it lands without bringing it back beside the correction."""
    model = HeldModel(
        [CompactionOutput(summary="The database was chosen.", pinned_decisions=[POSTGRES])]
    )
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        await mem.append_turn(token, turn(POSTGRES, "Noted.", user_id="u0"))
        for i in range(1, 5):
            await mem.append_turn(token, turn(f"q{i}", f"a{i}"))
        await model.asked.wait()  # pending, shown no pins
        mine = await mem.pin(token, POSTGRES, message_id="u0")
        edited = await mem.edit_pin(token, mine.id, MYSQL)
        model.release.set()
        await mem.settle(token)
        state = await mem.load(token)
    assert state.pinned_decisions == [MYSQL]
    assert state.pins == [edited]
    assert state.summary == "The database was chosen."


async def test_a_pin_an_inline_fold_made_and_the_user_edited_stays_edited_when_the_model_lands(
    db_url: str,
) -> None:
    """Turns outrun a held model compaction: the inline (extractive) fold pins the decision,
    the user corrects that pin, then the model lands with the old wording (and says it
    again in a follow-up fold, if one runs)."""
    said = CompactionOutput(summary="The database was chosen.", pinned_decisions=[POSTGRES])
    model = HeldModel([said, said])
    token = new_token()
    limits = MemoryLimits()
    async with open_memory(db_url, compactor=model) as mem:
        await mem.append_turn(token, turn(POSTGRES, "Noted."))
        for i in range(1, 5):
            await mem.append_turn(token, turn(f"q{i}", f"a{i}"))
        await model.asked.wait()
        i = 5
        while not (await mem.pins(token)):  # until the window passes its bound: an inline fold
            await mem.append_turn(token, turn(f"q{i}", f"a{i}"))
            i += 1
            assert i < limits.pending_max_messages, "no inline fold pinned the decision"
        (folded,) = await mem.pins(token)
        assert folded.text == POSTGRES and folded.origin == "extractive"
        await mem.edit_pin(token, folded.id, MYSQL)
        model.release.set()
        await mem.settle(token)
        state = await mem.load(token)
    assert state.pinned_decisions == [MYSQL]
    assert state.pins[0].id == folded.id and state.pins[0].origin == "user"


async def test_set_summary_is_the_base_new_turns_fold_onto(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.set_summary(token, "Project Falcon: a CRM for dentists, launching in June.")
        for i in range(5):
            await mem.append_turn(
                token, turn(f"Ana Silva from Porto called about invoice {i}.", "OK.")
            )
        state = await mem.load(token)
        cleared = await mem.set_summary(token, "   ")
    assert "Project Falcon: a CRM for dentists, launching in June." in state.summary
    assert "Ana Silva" in state.summary
    assert cleared.summary == ""


async def test_edits_race_turns_and_each_other_without_losing_any(db_url: str) -> None:
    """Two services (two processes' worth) edit and write one session at once."""
    token = new_token()
    roomy = MemoryLimits(recent_turns=8)  # no fold: every turn stays in the window
    async with (
        open_memory(db_url, limits=roomy) as one,
        open_memory(db_url, limits=roomy) as two,
    ):
        await asyncio.gather(
            *(one.append_turn(token, turn(f"turn {i}", f"answer {i}")) for i in range(6)),
            *(two.pin(token, f"Rule {i}: keep meeting notes for {i} weeks.") for i in range(6)),
        )
        state = await one.load(token)
        turns = await two.load(token)
    assert sorted(p.text for p in state.pins if p.origin == "user") == sorted(
        f"Rule {i}: keep meeting notes for {i} weeks." for i in range(6)
    )
    assert turns.pins == state.pins
    assert sorted(m.text for m in state.messages if m.role == "user") == [
        f"turn {i}" for i in range(6)
    ]


async def test_export_is_the_whole_memory_with_provenance(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("We decided to launch on March 3.", "Noted."))
        for i in range(4):
            await mem.append_turn(token, turn(f"q{i}", f"a{i}"))
        await mem.pin(token, REMEMBER)
        exported = await mem.export(token)
        await mem.forget(token)
        after = await mem.export(token)
    assert exported["threadId"] == mem.thread_id(token)
    assert [p["origin"] for p in exported["pins"]] == ["extractive", "user"]
    assert exported["pins"][0]["sources"][0]["excerpt"] == "We decided to launch on March 3."
    assert exported["pinnedDecisions"] == ["We decided to launch on March 3.", REMEMBER]
    assert [m["text"] for m in exported["messages"]] == ["q2", "a2", "q3", "a3"]
    assert after["pins"] == [] and after["summary"] == "" and after["messages"] == []
