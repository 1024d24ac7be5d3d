"""``thread-memory-status`` on the agent's custom stream (contract §5), and a model compaction
that runs after the run that started it."""

from __future__ import annotations

import asyncio
from typing import Any

from aimind_memory.adapters.chat_memory import ChatMemoryMiddleware
from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.memory.views.context import SUMMARY_HEADER
from tests.chat.helpers import status_events
from tests.memory.helpers import GatedCompactor
from tests.middleware.conftest import agent, model, user

TOKEN = "middleware-stream-0001"


async def run(graph: Any, text: str) -> tuple[list[dict[str, Any]], str]:
    """One ``astream`` run: its status events and its answer."""
    chunks = [
        chunk
        async for chunk in graph.astream(
            user(text), context={"session_id": TOKEN}, stream_mode=["custom", "values"]
        )
    ]
    answer = [v for mode, v in chunks if mode == "values"][-1]["messages"][-1].text
    return status_events(chunks), answer


async def test_an_inline_compaction_reports_on_the_stream(memory_url: str) -> None:
    graph = agent(model())
    for i in range(1, 5):
        events, answer = await run(graph, f"We decided item {i} costs {i} euros.")
        assert events == [] and answer.startswith("Answer to")
    events, _ = await run(graph, "Question 5?")
    state = await (await get_memory()).load(TOKEN)
    assert [e["status"] for e in events] == ["started", "succeeded"]
    assert events[-1] == {
        "type": "thread-memory-status",
        "status": "succeeded",
        "summaryLength": len(state.summary),
        "pinnedDecisionCount": len(state.pinned_decisions),
    }
    assert state.pinned_decisions and len(state.messages) == 4


async def test_a_model_compaction_lands_after_its_run_and_the_next_run_reports_it(
    memory_url: str,
) -> None:
    compactor = GatedCompactor()
    chat = model()
    graph = agent(chat, ChatMemoryMiddleware(compactor=compactor))
    for i in range(1, 5):
        await run(graph, f"Question {i}?")
    # The fifth turn starts a compaction the model has not answered: the run ends anyway.
    events, answer = await asyncio.wait_for(run(graph, "Question 5?"), 30)
    assert answer == "Answer to «Question 5?»."
    assert [e["status"] for e in events] == ["started"]
    await asyncio.wait_for(compactor.asked.wait(), 30)
    compactor.release.set()
    memory = await get_memory(compactor=compactor)  # the middleware's service
    await memory.settle(TOKEN)
    state = await memory.load(TOKEN)
    assert "Question 1?" in state.summary and state.pinned_decisions == ["gated pin 1"]
    events, _ = await run(graph, "Question 6?")
    assert events == [
        {
            "type": "thread-memory-status",
            "status": "succeeded",
            "summaryLength": len(state.summary),
            "pinnedDecisionCount": 1,
        }
    ]
    summary = [m.text for m in chat.calls[-1] if m.text.startswith(SUMMARY_HEADER)]
    assert summary == [f"{SUMMARY_HEADER}\n{state.summary}"]
