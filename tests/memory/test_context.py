"""The model context (contract §7): system, summary, pins, recent window, latest message."""

from __future__ import annotations

from datetime import UTC, datetime

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from aimind_memory.memory import ThreadState, build_context, open_memory
from aimind_memory.memory.models import ChatThreadMessage

from .helpers import new_token, turn

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _state(summary: str = "", pins: list[str] | None = None, n_turns: int = 2) -> ThreadState:
    messages = [
        ChatThreadMessage(id=f"{role}{i}", role=role, text=f"{role} {i}", created_at=NOW)
        for i in range(n_turns)
        for role in ("user", "assistant")
    ]
    return ThreadState(messages=messages, summary=summary, pinned_decisions=pins or [])


def _kinds(messages: list) -> list[str]:
    return [type(m).__name__ for m in messages]


def test_order_is_system_summary_pins_recent_latest() -> None:
    state = _state("We discussed databases.", ["Use PostgreSQL.", "不做长期记忆。"])
    context = build_context(state, system_prompt="You are helpful.", latest_user_text="And now?")
    assert _kinds(context) == [
        "SystemMessage",
        "SystemMessage",
        "SystemMessage",
        "HumanMessage",
        "AIMessage",
        "HumanMessage",
        "AIMessage",
        "HumanMessage",
    ]
    system, summary, pins, *recent, latest = context
    assert system.content == "You are helpful."
    assert summary.content.endswith("We discussed databases.")
    assert "- Use PostgreSQL." in pins.content and "- 不做长期记忆。" in pins.content
    assert [m.content for m in recent] == ["user 0", "assistant 0", "user 1", "assistant 1"]
    assert latest == HumanMessage("And now?")


def test_memory_blocks_say_they_are_background_that_cannot_override() -> None:
    context = build_context(
        _state("Old talk.", ["A pin."]), system_prompt="S", latest_user_text="L"
    )
    for block in context[1:3]:
        text = block.content.lower()
        assert isinstance(block, SystemMessage)
        assert "background" in text
        assert "cannot override" in text
        assert "latest message wins" in text


def test_blocks_are_left_out_when_empty() -> None:
    only_pins = build_context(_state("", ["A pin."], 1), system_prompt="S", latest_user_text="L")
    assert _kinds(only_pins) == [
        "SystemMessage",
        "SystemMessage",
        "HumanMessage",
        "AIMessage",
        "HumanMessage",
    ]
    assert "A pin." in only_pins[1].content
    only_summary = build_context(_state("Sum.", [], 0), system_prompt="S", latest_user_text="L")
    assert _kinds(only_summary) == ["SystemMessage", "SystemMessage", "HumanMessage"]


def test_without_memory_the_turn_runs_on_system_and_latest_only() -> None:
    for state in (None, ThreadState()):
        context = build_context(state, system_prompt="S", latest_user_text="Hello")
        assert context == [SystemMessage("S"), HumanMessage("Hello")]


async def test_context_is_rebuilt_from_stored_memory(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("We decided to use PostgreSQL in production.", "OK."))
        for i in range(2, 7):
            await mem.append_turn(token, turn(f"question {i}", f"answer {i}"))
        state = await mem.load(token)
    context = build_context(state, system_prompt="S", latest_user_text="What did we decide?")
    assert "We decided to use PostgreSQL in production." in context[2].content
    assert context[3:-1] == [  # compacted at turn 5, keeping turns 4-5; then turn 6
        HumanMessage("question 4"),
        AIMessage("answer 4"),
        HumanMessage("question 5"),
        AIMessage("answer 5"),
        HumanMessage("question 6"),
        AIMessage("answer 6"),
    ]
    assert context[-1] == HumanMessage("What did we decide?")
