"""The design article's scenario: 12 turns, decisions stated early, remembered at the end."""

from __future__ import annotations

import json

import pytest

from memory import build_context, open_memory
from tests.support.fakes import ScriptedChatModel

from .helpers import assert_bounds, landed_compactor, new_token, settled, turn

DECISION_EN = "We decided to use PostgreSQL in production."
DECISION_ZH = "我们决定不做长期记忆。"
TURNS = [
    (DECISION_EN, "Understood: PostgreSQL in production."),
    (DECISION_ZH, "好的，不做长期记忆。"),
    ("Can you sketch the orders table?", "orders(id, customer_id, total, created_at)."),
    *[(f"Turn {i}: what about topic {i}?", f"About topic {i}: some notes.") for i in range(4, 13)],
]


def scripted_model() -> ScriptedChatModel:
    """Three compactions (turns 5, 8, 11); the later ones omit pins, as models do."""
    return ScriptedChatModel(
        script=[
            {
                "summary": "The user chose PostgreSQL for production, ruled out long-term "
                "memory and asked for an orders table.",
                "pinned_decisions": [DECISION_EN, DECISION_ZH],
            },
            {
                "summary": "Project set-up decided; topics 4-6 discussed.",
                "pinned_decisions": [DECISION_EN],
            },
            {"summary": "Project set-up decided; topics 4-9 discussed.", "pinned_decisions": []},
        ]
    )


@pytest.mark.parametrize("kind", ["llm", "extractive"])
async def test_twelve_turns_keep_early_decisions(db_url: str, kind: str) -> None:
    model = scripted_model() if kind == "llm" else None
    token = new_token()
    written: list[tuple[str, str]] = []
    compactors: list[str] = []
    async with open_memory(db_url, compactor=model) as mem:
        for user, assistant in TURNS:
            result = await settled(mem, token, turn(user, assistant))
            assert result.written
            if result.compacted or result.pending:  # folded now, or landed since
                compactors.append(await landed_compactor(mem, token))
            written.append((user, assistant))
            state = await mem.load(token)
            assert_bounds(state)
            # the window is always the newest turns, verbatim
            n = len(state.messages) // 2
            assert [m.text for m in state.messages] == [t for pair in written[-n:] for t in pair]
        state = await mem.load(token)
        dto = await mem.hydrate(token)
    assert compactors == [kind] * 3  # turns 5, 8 and 11: about every third turn
    assert state.summary.strip()
    assert DECISION_EN in state.pinned_decisions and DECISION_ZH in state.pinned_decisions
    assert state.pinned_decisions == [DECISION_EN, DECISION_ZH]
    assert [m.text for m in state.messages] == [t for pair in TURNS[-3:] for t in pair]
    assert dto["pinnedDecisions"] == [DECISION_EN, DECISION_ZH] and dto["restored"]
    pins_block = build_context(state, system_prompt="S", latest_user_text="Recap?")[2].content
    assert DECISION_EN in pins_block and DECISION_ZH in pins_block
    if model is not None:
        first = json.loads(model.calls[0][1].content)
        assert [m["text"] for m in first["fold"] if m["role"] == "user"] == [
            DECISION_EN,
            DECISION_ZH,
            TURNS[2][0],
        ]
        third = json.loads(model.calls[2][1].content)
        assert third["previous_pinned_decisions"] == [DECISION_EN, DECISION_ZH]
    else:
        assert "Turn 9" in state.summary and "PostgreSQL" in state.summary
