"""ChatOpenAI's real HTTP wire path against the loopback stub (contract §11).

The graph builds its model from the environment exactly as in production; only
``OPENAI_BASE_URL`` points at the stub. Covered: a streamed tool-call round trip
and LLM compaction through ``json_schema`` structured output.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk
from langchain_openai import ChatOpenAI

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.models import chat_model
from aimind_memory.adapters.tools.builtin import local_tools
from aimind_memory.graphs.chat import build_graph
from aimind_memory.memory import LLMCompactor, open_memory
from aimind_memory.memory.config.model import MODEL_MAX_RETRIES, MODEL_TIMEOUT_S, compaction_model
from harness.openai_stub import OpenAIStub, Reply, json_reply, text, tool_call
from tests.chat.helpers import TOKEN, status_events, user
from tests.memory.helpers import turn

STUB_SUMMARY = "The user is planning a web launch; STUB-SUMMARY-MARKER."
STUB_PINS = ["We will use PostgreSQL in production.", "第一版不做移动端。"]
QUESTIONS = ["question 0: PostgreSQL in production?", "question 1", "question 2"]
"""The first says what the model pins (the gate drops a pin nobody said, contract §5)."""


def question(n: int) -> str:
    return QUESTIONS[n] if n < len(QUESTIONS) else f"question {n}"


@pytest.fixture
def provider(openai_stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch) -> OpenAIStub:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_stub.base_url)
    monkeypatch.setenv("AIMIND_MODEL", "stub-chat-model")
    monkeypatch.setenv("AIMIND_COMPACTION_MODEL", "stub-compaction-model")
    return openai_stub


def test_env_configures_chat_openai(provider: OpenAIStub) -> None:
    model = chat_model()
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "stub-chat-model"
    assert model.openai_api_base == provider.base_url
    assert model.request_timeout == MODEL_TIMEOUT_S
    assert model.max_retries == MODEL_MAX_RETRIES
    compactor = compaction_model()
    assert isinstance(compactor, ChatOpenAI)
    assert compactor.model_name == "stub-compaction-model"
    assert compactor.temperature == 0


async def test_streamed_tool_call_round_trip(provider: OpenAIStub, memory_url: str) -> None:
    provider.replies += [
        tool_call("calculator", {"expression": "6 * 7"}, "call_calc_1"),
        text("Six times seven is 42."),
    ]
    graph = build_graph(tools=local_tools())  # the model comes from the environment
    question = "What is 6 times 7?"

    tokens: list[str] = []
    async for chunk, meta in graph.astream(
        {"messages": [user(question)]}, context={"session_id": TOKEN}, stream_mode="messages"
    ):
        if isinstance(chunk, AIMessageChunk) and meta["langgraph_node"] == "agent" and chunk.text:
            tokens.append(str(chunk.text))

    assert "".join(tokens) == "Six times seven is 42."
    assert len(tokens) > 1  # streamed token by token, not in one piece
    first, second = provider.requests
    assert first["model"] == "stub-chat-model" and first["stream"] is True
    assert "calculator" in [t["function"]["name"] for t in first["tools"]]
    # the second request carries the model's tool call back, then the tool's answer to it
    call, reply = second["messages"][-2:]
    assert call["role"] == "assistant" and not call["content"]
    assert [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in call["tool_calls"]
    ] == [("call_calc_1", "calculator", {"expression": "6 * 7"})]
    assert reply == {"role": "tool", "content": "42", "tool_call_id": "call_calc_1"}
    state = await (await get_memory()).load(TOKEN)
    assert [m.text for m in state.messages] == [question, "Six times seven is 42."]


async def test_llm_compaction_through_structured_output(provider: OpenAIStub, db_url: str) -> None:
    def responder(body: dict[str, Any]) -> Reply:
        assert body["response_format"]["type"] == "json_schema"
        return json_reply({"summary": STUB_SUMMARY, "pinned_decisions": STUB_PINS})

    provider.responder = responder
    events: list[dict[str, Any]] = []
    async with open_memory(db_url) as memory:  # compactor=None: the configured model
        assert isinstance(memory.compactor, LLMCompactor)
        for n in range(5):
            await memory.append_turn(
                TOKEN, turn(question(n), f"answer {n}"), on_status=events.append
            )
        state = await memory.load(TOKEN)  # waits for the compaction the fifth turn started
        landed = (await memory.snapshot(TOKEN)).landed  # what the next run's stream reports

    assert state.summary == STUB_SUMMARY
    assert state.pinned_decisions == STUB_PINS
    assert [m.text for m in state.messages] == ["question 3", "answer 3", "question 4", "answer 4"]
    assert [e["status"] for e in status_events([("custom", e) for e in [*events, landed]])] == [
        "started",
        "succeeded",
    ]
    (request,) = provider.requests
    assert request["model"] == "stub-compaction-model"
    assert request["temperature"] == 0
    schema = request["response_format"]["json_schema"]["schema"]
    assert sorted(schema["properties"]) == ["pinned_decisions", "replaced_decisions", "summary"]
    assert schema["additionalProperties"] is False
    payload = json.loads(request["messages"][-1]["content"])
    assert [m["text"] for m in payload["fold"]] == [
        t for n in range(3) for t in (question(n), f"answer {n}")
    ]
