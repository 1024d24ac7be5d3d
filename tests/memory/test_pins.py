"""Pins (contract §5): decisions from either side, restatements once, the weakest evicted first."""

from __future__ import annotations

from aimind_memory.memory import ExtractiveCompactor, open_memory
from aimind_memory.memory.compaction import CompactionRequest, merge_pins
from aimind_memory.memory.compaction.analysis.decisions import UNRECOGNISED, pin_strength
from aimind_memory.memory.config.limits import PINNED_MAX, MemoryLimits
from aimind_memory.memory.models import ChatThreadMessage, utcnow

from .helpers import LIMITS, new_token, turn


def fold(*pairs: tuple[str, str], pins: list[str] | None = None) -> list[str]:
    """The pins one extractive compaction makes of these (role, text) messages."""
    messages = [
        ChatThreadMessage(id=f"m{i}", role=role, text=text, created_at=utcnow())
        for i, (role, text) in enumerate(pairs)
    ]
    request = CompactionRequest("", pins or [], messages, [])
    return ExtractiveCompactor(LIMITS).compact_sync(request).pinned_decisions


def test_a_decision_stated_by_the_assistant_is_pinned() -> None:
    assert fold(
        ("user", "Which host should we use, Fly.io or Render?"),
        ("assistant", "Agreed: we deploy to Fly.io and keep the database on Neon."),
    ) == ["Agreed: we deploy to Fly.io and keep the database on Neon."]
    assert fold(("user", "你觉得呢？"), ("assistant", "收到，后端统一用 Node.js 18。")) == [
        "收到，后端统一用 Node.js 18。"
    ]


def test_a_confirmation_that_restates_a_decision_is_not_pinned_twice() -> None:
    assert fold(
        ("user", "We decided to use PostgreSQL in production."),
        ("assistant", "Understood: PostgreSQL in production."),
        ("user", "我们决定不做长期记忆。"),
        ("assistant", "好的，不做长期记忆。"),
    ) == ["We decided to use PostgreSQL in production.", "我们决定不做长期记忆。"]
    # nor when the decision was pinned by an earlier compaction
    assert (
        fold(
            ("user", "Remember: we decided to use PostgreSQL in production."),
            pins=["We decided to use PostgreSQL in production."],
        )
        == []
    )
    # a new number is a new decision
    assert fold(("user", "We must remember item 7."), pins=["We must remember item 6."]) == [
        "We must remember item 7."
    ]


def test_a_decision_that_is_the_second_sentence_of_its_message_is_pinned() -> None:
    assert fold(
        ("user", "Thanks, that helps a lot! Let's go with the 2 pm flight on Saturday.")
    ) == ["Let's go with the 2 pm flight on Saturday."]
    assert fold(("user", "谢谢你的建议！我们选定杭州作为团建地点。")) == [
        "我们选定杭州作为团建地点。"
    ]


def test_pins_the_model_did_not_phrase_as_decisions_rank_lowest() -> None:
    assert pin_strength("Database: PostgreSQL") == UNRECOGNISED
    assert pin_strength("We decided to use PostgreSQL.") > pin_strength("I'll call Ana at 6.")
    assert pin_strength("I'll call Ana at 6 tomorrow.") > UNRECOGNISED


def test_past_the_cap_the_weakest_pin_goes_first_not_the_oldest() -> None:
    weak = [f"Note {i:02d}" for i in range(PINNED_MAX - 1)]
    decision = "We decided to ship on Friday."
    old = [decision, *weak]
    merged = merge_pins(old, ["We settled on Luna as the puppy's name.", "Note 99"], LIMITS)
    assert len(merged) == PINNED_MAX
    assert decision in merged  # the oldest pin, but a stated decision
    assert "We settled on Luna as the puppy's name." in merged
    assert "Note 00" not in merged  # the oldest of the weakest went


def test_a_weaker_new_pin_never_evicts_a_stated_decision() -> None:
    decisions = [f"We decided to keep rule {i}." for i in range(PINNED_MAX)]
    assert merge_pins(decisions, ["Background: rule list"], LIMITS) == decisions


def test_among_equals_the_oldest_goes_first() -> None:
    limits = MemoryLimits(pinned_max=3)
    old = ["We decided on rule 1.", "We decided on rule 2.", "We decided on rule 3."]
    assert merge_pins(old, ["We decided on rule 4."], limits) == [*old[1:], "We decided on rule 4."]


async def test_chatter_with_decision_words_does_not_push_decisions_out(db_url: str) -> None:
    """The issue's failure: noise pinned past the cap evicted real decisions. Not any more."""
    token = new_token()
    chatter = [
        ("I always love our talks!", "You must be so proud of the kids."),
        ("Don't worry about me, haha.", "I'm always here for you, Mel!"),
        ("Never mind, it's fine.", "It must have been special at your wedding."),
    ]
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("We decided to use PostgreSQL in production.", "Noted."))
        for i in range(30):
            user, assistant = chatter[i % len(chatter)]
            await mem.append_turn(token, turn(f"{user} ({i})", f"{assistant} ({i})"))
        state = await mem.load(token)
    assert state.pinned_decisions == ["We decided to use PostgreSQL in production."]
