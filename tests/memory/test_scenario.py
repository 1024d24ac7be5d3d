"""The design article's scenario: 12 turns, decisions stated early, remembered at the end."""

from __future__ import annotations

import json

import pytest

from aimind_memory.memory import build_context, open_memory
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
        assert "Turn 9" in state.summary and "orders(id" in state.summary
        assert DECISION_EN not in state.summary  # pinned: not repeated in the summary


SEED_DECISIONS = [
    # the design article's §3 decisions, in its users' phrasing (issue 23: no longer pinned)
    "我们确认：这篇博客不按版本分段写，而是融合成一篇短期记忆设计文章。",
    "文章重点不放在刷新恢复，而是放在短期记忆如何压缩、整理和控制上下文。",
    "用户确认不做长期记忆，也不做多会话历史。",
]
SEED_TURNS = [
    (SEED_DECISIONS[0], "好的，写成一篇融合的设计文章。"),
    (SEED_DECISIONS[1], "明白，重点写压缩、整理和上下文控制。"),
    (SEED_DECISIONS[2], "收到，范围只到当前会话。"),
    ("那标题和大纲怎么调整？", "标题用《AI Mind 的单线程短期记忆设计》，大纲按三层记忆展开。"),
    ("第 5 节写什么？", "写压缩策略：超过 8 条消息后触发 compaction。"),
    ("summary 上限多少？", "最多 2500 字。"),
    ("pinned decisions 呢？", "最多 20 条，每条不超过 300 字。"),
    ("第 8 节的两个例子是哪两个？", "Tasklist Agent 和 Delivery Chain。"),
    ("Delivery 的报告怎么截断？", "上限 8000 字，超出截断并追加提示。"),
    ("hydration 返回哪些字段？", "threadId、messages、summaryPreview、pinnedDecisions、restored。"),
    ("失败时怎么降级？", "普通聊天降级为无记忆聊天，不暴露数据库错误。"),
    ("最后一节写什么？", "总结三件事：恢复、整理过的上下文、最终回答进记忆。"),
]


async def test_the_seed_s_scenario_pins_its_decisions(db_url: str) -> None:
    """The article's own conversation (§3), extractive compactor, on both backends."""
    token = new_token()
    async with open_memory(db_url) as mem:
        for user, assistant in SEED_TURNS:
            await settled(mem, token, turn(user, assistant))
        state = await mem.load(token)
        dto = await mem.hydrate(token)
    assert_bounds(state)
    constraint = SEED_TURNS[6][1]  # "每条不超过 300 字": a bound stated as such, pinned too
    assert state.pinned_decisions == [*SEED_DECISIONS, constraint]
    assert dto["pinnedDecisions"] == [*SEED_DECISIONS, constraint]
    assert "2500" in state.summary and "8000" in state.summary  # the facts, in the summary
