"""A tool round trip stores exactly the question and the final answer (contract §6).

A scripted model calls a local tool (marker in its args and result), the
document reader (marker in the resource), and the real stdio MCP server's tool
and resource (marker in their results). None of those markers may appear in the
raw checkpoint bytes of the database, nor in the hydration DTO.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.tools.builtin import local_tools
from aimind_memory.adapters.tools.mcp.client import load_mcp_tools
from aimind_memory.graphs.chat import build_graph
from tests.chat.conftest import MCP_MARKER, RESOURCE_MARKER
from tests.chat.helpers import TOKEN, raw_storage_bytes, user
from tests.support.fakes import ScriptedChatModel

ARGS_MARKER = "TOOL-ARGS-MARKER-a41e"
RESULT_MARKER = "TOOL-RESULT-MARKER-b52f"
QUESTION = "Where is order QUESTION-MARKER-0001 and what does the glossary say?"
ANSWER = "Your order ships Friday; the glossary entry is about zebras. FINAL-ANSWER-MARKER"


@tool
def order_status(order_ref: str) -> str:
    """Look up an order."""
    return f"order {order_ref}: shipping Friday, internal note {RESULT_MARKER}"


def _final(messages: list[BaseMessage]) -> AIMessage:
    """The last step: only answers once every tool result really came back."""
    results = "\n".join(str(m.content) for m in messages if isinstance(m, ToolMessage))
    for marker in (RESULT_MARKER, RESOURCE_MARKER, MCP_MARKER):
        assert marker in results, f"tool result with {marker} never reached the model"
    return AIMessage(ANSWER)


async def test_memory_gets_only_question_and_final_answer(
    memory_url: str, docs: Path, mcp_config: Path
) -> None:
    model = ScriptedChatModel(
        script=[
            AIMessage(
                "",
                tool_calls=[
                    {"name": "order_status", "args": {"order_ref": ARGS_MARKER}, "id": "c1"},
                    {"name": "read_resource", "args": {"name": "secret-plan.md"}, "id": "c2"},
                    {"name": "lookup_term", "args": {"term": "zebra"}, "id": "c3"},
                ],
            ),
            AIMessage(
                "",
                tool_calls=[
                    {"name": "mcp_resource", "args": {"uri": "aimind://glossary"}, "id": "c4"}
                ],
            ),
            _final,
        ]
    )
    tools = [*local_tools(), order_status, *await load_mcp_tools()]
    graph = build_graph(model=model, tools=tools)

    updates: list[dict[str, Any]] = []
    async for update in graph.astream(
        {"messages": [user(QUESTION)]}, context={"session_id": TOKEN}, stream_mode="updates"
    ):
        updates.append(update)

    tool_updates = [u["tools"] for u in updates if "tools" in u]
    assert len(tool_updates) == 2
    assert tool_updates[-1]["source"] == "mcp-resource"
    assert len(model.calls) == 3

    memory = await get_memory()
    state = await memory.load(TOKEN)
    assert [(m.role, m.text) for m in state.messages] == [
        ("user", QUESTION),
        ("assistant", ANSWER),
    ]

    raw = raw_storage_bytes(memory_url)
    assert b"QUESTION-MARKER-0001" in raw and b"FINAL-ANSWER-MARKER" in raw  # we read real rows
    dto = json.dumps(await memory.hydrate(TOKEN), ensure_ascii=False)
    assert "FINAL-ANSWER-MARKER" in dto
    for marker in (ARGS_MARKER, RESULT_MARKER, RESOURCE_MARKER, MCP_MARKER):
        assert marker.encode() not in raw, f"{marker} leaked into stored memory"
        assert marker not in dto, f"{marker} leaked into the hydration DTO"


async def test_referenced_resource_reaches_model_not_memory(memory_url: str, docs: Path) -> None:
    question = "Summarise @docs/secret-plan.md for me."
    model = ScriptedChatModel(script=[AIMessage("It is a short plan.")])
    graph = build_graph(model=model, tools=[])

    await graph.ainvoke({"messages": [user(question)]}, context={"session_id": TOKEN})

    sent = model.calls[0][-1]
    assert RESOURCE_MARKER in str(sent.content)
    state = await (await get_memory()).load(TOKEN)
    assert [m.text for m in state.messages] == [question, "It is a short plan."]
    assert RESOURCE_MARKER.encode() not in raw_storage_bytes(memory_url)
