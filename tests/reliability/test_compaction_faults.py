"""The compaction model misbehaves: the turn is kept, the fallback runs, bounds and pins hold."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from aimind_memory.memory import (
    AppendResult,
    FinalTurn,
    LLMCompactor,
    MemoryLimits,
    MemoryService,
    ThreadState,
    open_memory,
)
from aimind_memory.memory.config.model import compaction_model
from harness.faults import assert_bounded
from harness.openai_stub import running_stub, text
from tests.support.fakes import ScriptedChatModel

SESSION = "compaction-faults-0001"
OLD_PIN = "We decided the launch date is 3 March."
GOOD = {"summary": "The user planned a launch.", "pinned_decisions": [OLD_PIN]}
TURNS_TO_SECOND_COMPACTION = 8
"""Turn 5 overflows the 4-turn window (first compaction), turn 8 overflows it again."""


def slow_output(_: Any) -> dict[str, Any]:
    time.sleep(3.0)  # well past AIMIND_COMPACTION_TIMEOUT_S below
    return GOOD


FAULTS: dict[str, Any] = {
    "timeout": slow_output,
    "raises": RuntimeError("provider exploded: sk-secret-in-error"),
    "invalid-json": "{'summary': not json at all",
    "extra-keys": {**GOOD, "rawPrompt": "leak", "graphState": {}},
    "wrong-types": {"summary": 42, "pinned_decisions": "not a list"},
}


SAID = "The launch date is 3 March; decisions " + " ".join(map(str, range(60))) + "."
"""What the model's pins hold, said in every answer (the gate drops a pin nobody said)."""


def turn(i: int) -> FinalTurn:
    return FinalTurn(
        user_text=f"Question {i}: we must keep item {i} small.",
        assistant_text=f"Answer {i}. {SAID}",
        status="completed",
    )


@dataclass
class Played:
    result: AppendResult
    events: list[dict[str, Any]]
    """Its run's status events, then the one the next run's stream reports."""
    compactor: str | None
    """The compactor that folded the window this turn overflowed, once it landed."""


async def run_turns(mem: MemoryService, first: int, last: int) -> list[Played]:
    """One turn at a time, each after the compaction the previous one started landed."""
    out = []
    for i in range(first, last + 1):
        events: list[dict[str, Any]] = []
        result = await mem.append_turn(SESSION, turn(i), on_status=events.append)
        await mem.settle(SESSION)
        snapshot = await mem.snapshot(SESSION)
        used = None
        if result.pending:
            events.append(snapshot.landed)
            used = snapshot.last_compaction["compactor"]
        out.append(Played(result, events, used))
    return out


async def check_fallback(mem: MemoryService, played: list[Played]) -> ThreadState:
    """Every turn stored; each failed model compaction was folded by the fallback."""
    assert all(p.result.written for p in played)
    compactions = [p for p in played if p.result.pending]
    assert compactions, "the faulty model was asked to compact"
    for p in compactions:
        assert p.compactor == "extractive"
        assert [e["status"] for e in p.events] == ["started", "failed"]
    state = await mem.load(SESSION)
    assert_bounded(state)
    assert OLD_PIN in state.pinned_decisions, "pins from before survive a failed compaction"
    return state


@pytest.mark.parametrize("fault", sorted(FAULTS))
async def test_faulty_compaction_model_keeps_turns(
    fault: str, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIMIND_COMPACTION_TIMEOUT_S", "0.5")
    model = ScriptedChatModel(script=[GOOD, FAULTS[fault]], loop_last=True)
    async with open_memory(db_url, compactor=model) as mem:
        assert mem.limits.compaction_timeout_s == 0.5
        first = await run_turns(mem, 1, 5)
        assert first[-1].compactor == "llm"
        # three more failing compactions in a row: memory keeps moving, never freezes
        faulty = await run_turns(mem, 6, 5 + 3 * 3)
        state = await check_fallback(mem, faulty)
    assert len(model.calls) == 1 + 3
    user_texts = [m.text for m in state.messages if m.role == "user"]
    assert user_texts[-1] == turn(14).user_text
    assert "sk-secret" not in state.model_dump_json()


async def test_over_long_model_output_is_clamped_not_rejected(db_url: str) -> None:
    limits = MemoryLimits()
    huge = {
        "summary": "A very long summary sentence. " * 500,
        "pinned_decisions": [f"Decision {i}: " + "x" * 1_000 for i in range(60)],
    }
    model = ScriptedChatModel(script=[GOOD, huge])
    async with open_memory(db_url, compactor=model) as mem:
        results = await run_turns(mem, 1, TURNS_TO_SECOND_COMPACTION)
        state = await mem.load(SESSION)
    assert [p.compactor for p in results if p.result.pending] == ["llm", "llm"]
    assert_bounded(state, limits)
    assert len(state.summary) <= limits.summary_chars
    assert len(state.pinned_decisions) == limits.pinned_max
    assert all(len(p) <= limits.pin_chars for p in state.pinned_decisions)
    assert state.pinned_decisions[-1].startswith("Decision 59:"), "the newest pins are kept"


def _stub_replies(*replies: Any) -> Callable[[dict[str, Any]], Any]:
    queue = list(replies)
    return lambda body: queue.pop(0) if len(queue) > 1 else queue[0]


async def test_invalid_json_over_the_wire_falls_back(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ChatOpenAI's real structured-output path receiving a broken JSON document."""
    from harness.openai_stub import json_reply

    with running_stub(_stub_replies(json_reply(GOOD), text('{"summary": "cut off'))) as stub:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        model = compaction_model()
        assert model is not None
        async with open_memory(db_url, compactor=model) as mem:
            assert isinstance(mem.compactor, LLMCompactor)
            await run_turns(mem, 1, 5)
            faulty = await run_turns(mem, 6, TURNS_TO_SECOND_COMPACTION)
            await check_fallback(mem, faulty)
        assert len(stub.requests) == 2
