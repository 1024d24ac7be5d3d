"""A model compaction lands after its run: its outcome is on the next run's stream.

Through the real ``ChatOpenAI`` wire path (the loopback stub): the fifth turn's
run reports ``started`` and ends without waiting for the compaction model; the
compaction then fails (the model answers something that is not JSON), the
extractive fallback folds the window, and the sixth run's stream opens with the
``failed`` status and the counts memory now has (contract §5).
"""

from __future__ import annotations

from typing import Any

import pytest

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.graphs.chat import build_graph
from harness.openai_stub import OpenAIStub, Reply, text
from tests.chat.helpers import TOKEN, status_events, user


@pytest.fixture
def provider(openai_stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch) -> OpenAIStub:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_stub.base_url)
    return openai_stub


async def test_a_failed_compaction_is_reported_on_the_next_run(
    provider: OpenAIStub, memory_url: str
) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        if body.get("response_format"):  # the compaction's structured output
            return text("{this is not the JSON document asked for")
        return text(f"Answer number {len(provider.requests)}.")

    provider.responder = responder
    graph = build_graph(tools=[])  # the chat model comes from the environment: the stub

    async def run(question: str) -> list[dict[str, Any]]:
        chunks = [
            chunk
            async for chunk in graph.astream(
                {"messages": [user(question)]},
                context={"session_id": TOKEN},
                stream_mode=["custom"],
            )
        ]
        return status_events(chunks)

    for i in range(1, 5):
        assert await run(f"Question {i}?") == []
    started = await run("Question 5?")
    assert [e["status"] for e in started] == ["started"]
    memory = await get_memory()
    await memory.settle(TOKEN)  # the compaction ran after the fifth run had ended
    state = await memory.load(TOKEN)
    reported = await run("Question 6?")
    assert reported == [
        {
            "type": "thread-memory-status",
            "status": "failed",
            "summaryLength": len(state.summary),
            "pinnedDecisionCount": len(state.pinned_decisions),
        }
    ]
    after = await memory.load(TOKEN)
    assert [m.text for m in after.messages if m.role == "user"] == [
        "Question 4?",
        "Question 5?",
        "Question 6?",
    ]
