"""Compaction (contract §5): cadence, what is kept, clamping, durable pins, LLM input, events."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from langchain_core.messages import HumanMessage, SystemMessage

from aimind_memory.memory import LLMCompactor, open_memory
from aimind_memory.memory.config.limits import (
    KEEP_TURNS,
    PIN_CHARS,
    PINNED_MAX,
    RECENT_TURNS,
    SUMMARY_CHARS,
)
from tests.support.fakes import ScriptedChatModel

from .helpers import (
    CountingCompactor,
    assert_bounds,
    landed_compactor,
    new_token,
    settled,
    turn,
)

LLM_KEYS = {"previous_summary", "previous_pinned_decisions", "fold", "kept (do not repeat)"}
SAID = (
    "For the record: PostgreSQL in production, releases ship on Friday at 17:00 UTC, pins A, "
    "B and C, decisions " + " ".join(f"{n:02d}" for n in range(45)) + "."
)
"""Every value the scripted models' pins below hold, said in every turn (the gate drops a
pin whose numbers or names neither the turns it folds nor memory say, contract §5)."""


def q(i: int) -> str:
    """Turn ``i``'s question, saying ``SAID``."""
    return f"q{i} {SAID}"


def compaction(summary: str = "Background.", pins: list[str] | None = None) -> dict:
    return {"summary": summary, "pinned_decisions": pins or []}


def llm_payload(call: list) -> dict:
    """The JSON the LLM compactor sent as its one human message."""
    system, human = call
    assert isinstance(system, SystemMessage) and isinstance(human, HumanMessage)
    return json.loads(human.content)


async def test_compaction_keeps_newest_two_turns_and_runs_every_third_turn(db_url: str) -> None:
    counter = CountingCompactor()
    token = new_token()
    compacted_at: list[int] = []
    async with open_memory(db_url, compactor=counter) as mem:
        for i in range(1, 15):
            result = await settled(mem, token, turn(f"question {i}", f"answer {i}"))
            state = await mem.load(token)
            assert_bounds(state)
            if result.compacted:
                compacted_at.append(i)
                assert [m.text for m in state.messages] == [
                    f"question {i - 1}",
                    f"answer {i - 1}",
                    f"question {i}",
                    f"answer {i}",
                ]
                assert len(state.messages) == 2 * KEEP_TURNS
    # the window is 4 turns; keeping 2 leaves room for 3 more before the next fold
    assert compacted_at == [RECENT_TURNS + 1, 8, 11, 14]
    assert [len(r.folded) for r in counter.requests] == [6, 6, 6, 6]
    assert [len(r.kept) for r in counter.requests] == [4, 4, 4, 4]


async def test_no_compaction_while_the_window_fits(db_url: str) -> None:
    counter = CountingCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=counter) as mem:
        for i in range(RECENT_TURNS):
            assert not (await settled(mem, token, turn(f"q{i}", f"a{i}"))).compacted
        state = await mem.load(token)
    assert counter.requests == []
    assert len(state.messages) == 8 and state.summary == "" and state.last_compacted_at is None


async def test_llm_compactor_sees_old_memory_folded_and_kept_and_nothing_else(
    db_url: str,
) -> None:
    model = ScriptedChatModel(
        script=[
            compaction("First summary.", ["Use the same database in production."]),
            compaction(
                "Second summary.",
                ["Use the same database in production.", "Ship at the end of the week."],
            ),
        ]
    )
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        for i in range(1, 9):
            await settled(
                mem,
                token,
                turn(f"user text {i}", f"assistant text {i}", source="tool"),
            )
    first, second = (llm_payload(c) for c in model.calls)
    assert set(first) == LLM_KEYS
    assert first["previous_summary"] == "" and first["previous_pinned_decisions"] == []
    assert first["fold"] == [
        {"role": role, "text": f"{role} text {i}"}
        for i in (1, 2, 3)
        for role in ("user", "assistant")
    ]
    assert first["kept (do not repeat)"] == [
        {"role": role, "text": f"{role} text {i}"} for i in (4, 5) for role in ("user", "assistant")
    ]
    assert second["previous_summary"] == "First summary."
    assert second["previous_pinned_decisions"] == ["Use the same database in production."]
    assert [m["text"] for m in second["fold"]] == [
        f"{role} text {i}" for i in (4, 5, 6) for role in ("user", "assistant")
    ]
    assert [m["text"] for m in second["kept (do not repeat)"]] == [
        f"{role} text {i}" for i in (7, 8) for role in ("user", "assistant")
    ]
    # nothing but those texts: no ids, timestamps, source or runtime data
    for call in model.calls:
        raw = call[1].content
        for leak in ("created_at", "tool", '"id"', "checkpoint", "source"):
            assert leak not in raw.replace("user text", "").replace("assistant text", "")
        assert "do not repeat" in call[0].content


async def test_only_summary_and_pins_come_from_the_model(db_url: str) -> None:
    model = ScriptedChatModel(script=[compaction("Model summary.", ["Model pin."])])
    token = new_token()
    before = datetime.now(UTC)
    async with open_memory(db_url, compactor=model) as mem:
        for i in range(1, 5):
            await settled(mem, token, turn(f"q{i}", f"a{i}", user_id=f"u{i}", assistant_id=f"a{i}"))
        kept = (await mem.load(token)).messages[-4:]
        result = await settled(mem, token, turn("q5", "a5", user_id="u5", assistant_id="a5"))
        state = await mem.load(token)
        used = await landed_compactor(mem, token)
    assert result.pending and not result.compacted  # folded after the write, by the model
    assert used == "llm"
    assert state.summary == "Model summary." and state.pinned_decisions == ["Model pin."]
    assert state.messages[:2] == kept[2:]  # the kept slice is local and verbatim (ids too)
    assert [m.id for m in state.messages] == ["u4", "a4", "u5", "a5"]
    assert state.last_compacted_at is not None
    assert before - timedelta(seconds=1) <= state.last_compacted_at <= datetime.now(UTC)


async def test_model_output_with_extra_keys_is_rejected_for_the_extractive_fallback(
    db_url: str,
) -> None:
    model = ScriptedChatModel(
        script=[
            {
                "summary": "Model summary.",
                "pinned_decisions": ["Model pin."],
                "messages": [],
                "last_compacted_at": None,
            }
        ]
    )
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        for i in range(1, 6):
            result = await settled(mem, token, turn(f"We must do thing {i}.", f"ok {i}"))
        state = await mem.load(token)
        used = await landed_compactor(mem, token)
        status = (await mem.snapshot(token)).last_compaction["status"]
    assert result.written and used == "extractive" and status == "failed"
    assert state.summary != "Model summary." and "Model pin." not in state.pinned_decisions
    assert state.pinned_decisions == [f"We must do thing {i}." for i in (1, 2, 3)]
    assert len(state.messages) == 4


async def test_over_limit_model_output_is_clamped_not_rejected(db_url: str) -> None:
    long_summary = "This sentence is background. " * 300  # ~8,700 chars
    pins = [f"Decision number {i:02d}: " + "detail " * 80 for i in range(45)]
    model = ScriptedChatModel(script=[compaction(long_summary, pins)])
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        for i in range(1, 6):
            await settled(mem, token, turn(q(i), f"a{i}"))
        state = await mem.load(token)
        assert await landed_compactor(mem, token) == "llm"
    assert_bounds(state)
    assert 0 < len(state.summary) <= SUMMARY_CHARS
    assert state.summary.endswith("background.")  # cut at a sentence boundary
    assert long_summary.startswith(state.summary)
    assert len(state.pinned_decisions) == PINNED_MAX
    # newest 20 kept, each trimmed to at most 300 chars
    assert [p[:18] for p in state.pinned_decisions] == [
        f"Decision number {i:02d}" for i in range(25, 45)
    ]
    assert all(len(p) <= PIN_CHARS for p in state.pinned_decisions)


async def test_clamping_is_deterministic(db_url: str) -> None:
    output = compaction(
        "Sentence one is here. " * 200, [("pin " * 200) + str(i) for i in range(30)]
    )
    states = []
    for _ in range(2):
        model = ScriptedChatModel(script=[dict(output)])
        token = new_token()
        async with open_memory(db_url, compactor=model) as mem:
            for i in range(5):
                await settled(mem, token, turn(f"q{i}", f"a{i}"))
            states.append(await mem.load(token))
    assert states[0].summary == states[1].summary
    assert states[0].pinned_decisions == states[1].pinned_decisions


async def test_old_pin_survives_a_model_that_omits_it(db_url: str) -> None:
    model = ScriptedChatModel(
        script=[
            compaction("S1.", ["We use PostgreSQL in production."]),
            compaction("S2.", ["Releases ship on Friday."]),
            compaction("S3.", []),
        ]
    )
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        for i in range(1, 12):
            await settled(mem, token, turn(q(i), f"a{i}"))
        state = await mem.load(token)
    assert len(model.calls) == 3
    assert state.summary == "S3."
    assert state.pinned_decisions == [
        "We use PostgreSQL in production.",
        "Releases ship on Friday.",
    ]


async def test_equivalent_or_superseding_pin_replaces_the_old_one(db_url: str) -> None:
    model = ScriptedChatModel(
        script=[
            compaction("S1.", ["We use PostgreSQL in production.", "Deploy on Friday"]),
            compaction(
                "S2.", ["we use postgresql in production", "Deploy on Friday at 17:00 UTC."]
            ),
        ]
    )
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        for i in range(1, 9):
            await settled(mem, token, turn(q(i), f"a{i}"))
        state = await mem.load(token)
    assert state.pinned_decisions == [
        "we use postgresql in production",
        "Deploy on Friday at 17:00 UTC.",
    ]


async def test_pins_of_equal_strength_past_the_cap_evict_the_oldest_first(db_url: str) -> None:
    """None of these pins reads as a decision, so all rank alike: the oldest go first.
    (A stated decision outranks them: tests/memory/test_pins.py.)"""
    first = [f"Old decision {i:02d}." for i in range(20)]
    model = ScriptedChatModel(
        script=[compaction("S1.", first), compaction("S2.", ["New decision A.", "New decision B."])]
    )
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        for i in range(1, 6):
            await settled(mem, token, turn(q(i), f"a{i}"))
        assert (await mem.load(token)).pinned_decisions == first
        for i in range(6, 9):
            await settled(mem, token, turn(f"q{i}", f"a{i}"))
        state = await mem.load(token)
    assert state.pinned_decisions == [*first[2:], "New decision A.", "New decision B."]


async def test_llm_compactor_runs_at_temperature_zero() -> None:
    class WarmModel(ScriptedChatModel):
        temperature: float = 0.7

    compactor = LLMCompactor(WarmModel(script=[compaction()]))
    assert compactor.model.temperature == 0


async def test_status_events_started_and_succeeded_with_counts(db_url: str) -> None:
    """``started`` in the run that overflows the window; ``succeeded`` on the next run's
    stream, once the model compaction has landed."""
    model = ScriptedChatModel(
        script=[
            compaction("Summary one.", ["Pin A.", "Pin B."]),
            compaction("Summary two, longer.", ["Pin C."]),
        ]
    )
    events: list[dict] = []
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        for i in range(1, 10):
            # what a run sees: a compaction that landed since the last turn, then its own
            if landed := (await mem.snapshot(token)).landed:
                events.append(landed)
            if i == 9:
                break
            await settled(mem, token, turn(q(i), f"a{i}"), on_status=events.append)
            if i == 4:
                assert events == []  # no compaction, no status
        state = await mem.load(token)
    assert events == [
        {
            "type": "thread-memory-status",
            "status": "started",
            "summaryLength": 0,
            "pinnedDecisionCount": 0,
        },
        {
            "type": "thread-memory-status",
            "status": "succeeded",
            "summaryLength": len("Summary one."),
            "pinnedDecisionCount": 2,
        },
        {
            "type": "thread-memory-status",
            "status": "started",
            "summaryLength": len("Summary one."),
            "pinnedDecisionCount": 2,
        },
        {
            "type": "thread-memory-status",
            "status": "succeeded",
            "summaryLength": len(state.summary),
            "pinnedDecisionCount": 3,
        },
    ]


async def test_a_broken_status_listener_does_not_break_the_write(db_url: str) -> None:
    def listener(event: dict) -> None:
        raise RuntimeError("listener bug")

    token = new_token()
    async with open_memory(db_url) as mem:
        for i in range(1, 6):
            result = await settled(mem, token, turn(f"q{i}", f"a{i}"), on_status=listener)
            assert result.written
        assert len((await mem.load(token)).messages) == 4


async def test_extractive_compactor_pins_english_and_chinese_decisions(db_url: str) -> None:
    decisions = [
        "We decided to use PostgreSQL in production.",
        "We will ship on Friday.",
        "We won't add a cache.",
        "You must not log tokens.",
        "Never store raw prompts.",
        "Always answer in English.",
        "Agreed: keep the API stable.",
        "Don't touch the billing code.",
        "我们决定不做长期记忆。",
        "必须使用中文回答。",
        "不要保存原始提示词。",
        "我们约定每周五发布。",
    ]
    chatter = "The weather is nice today. Should we always do this?"
    token = new_token()
    async with open_memory(db_url) as mem:  # no model configured: extractive
        for i in range(0, len(decisions), 2):
            await settled(
                mem,
                token,
                turn(f"{decisions[i]} {chatter} {decisions[i + 1]}", "Noted, I always will."),
            )
        for i in range(4):
            await settled(mem, token, turn(f"filler {i}", "ok"))
        state = await mem.load(token)
    assert state.pinned_decisions == decisions
    assert "The weather is nice today." not in state.pinned_decisions
    assert "Should we always do this?" not in state.pinned_decisions  # questions are not pins
    # an acknowledgement is not a decision (an assistant's stated decision would be pinned)
    assert "Noted, I always will." not in state.pinned_decisions
    assert state.summary and len(state.summary) <= SUMMARY_CHARS


async def test_extractive_summary_stays_bounded_over_many_folds(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        for i in range(60):
            await settled(mem, token, turn(f"Topic {i}: " + "lorem ipsum " * 30, "ok " * 50))
            assert_bounds(await mem.load(token))
        state = await mem.load(token)
    assert SUMMARY_CHARS - 400 < len(state.summary) <= SUMMARY_CHARS
    assert "Topic 56:" in state.summary  # the newest folded turn (of 60, 2 kept + 1 new)
    assert "Topic 0:" not in state.summary  # the oldest background went first
