"""Recall in any agent (contract §5a, §13a): the middleware's recall block for the latest
user message, and the ``recall_memory`` tool for agents that prefer to ask."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from aimind_memory.adapters.chat_memory import ChatMemoryMiddleware
from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.memory.views.context import RECALL_HEADER
from tests.chat.helpers import drop_archive
from tests.middleware.conftest import agent, user
from tests.support.fakes import answering, calling

TOKEN = "middleware-recall-0001"
OTHER = "middleware-recall-0002"
FACT = "The spare key is taped under the blue flowerpot on the balcony."
ASK_TOOL = "[[ask the archive]]"


def reply(messages: list[BaseMessage]) -> AIMessage:
    """Ask ``recall_memory`` once for an ``[[ask the archive]]`` question, else answer."""
    last = messages[-1]
    if isinstance(last, HumanMessage) and ASK_TOOL in last.text:
        return calling("recall_memory", {"query": "spare key flowerpot"}, "call-recall")
    if isinstance(last, ToolMessage):
        return AIMessage(f"The archive said: {last.text}")
    return AIMessage("Noted.")


async def chat(graph, token: str, texts: list[str]) -> None:
    for text in texts:
        await graph.ainvoke(user(text), context={"session_id": token})


SMALL_TALK = [f"Small talk number {i}." for i in range(6)]


async def test_the_model_gets_a_recall_block_for_the_latest_message(memory_url: str) -> None:
    model = answering(reply)
    graph = agent(model)
    await chat(graph, TOKEN, [FACT, *SMALL_TALK])
    await graph.ainvoke(user("Where is the spare key?"), context={"session_id": TOKEN})
    blocks = [m.text for m in model.calls[-1] if m.text.startswith(RECALL_HEADER)]
    assert len(blocks) == 1 and "flowerpot" in blocks[0]
    await graph.ainvoke(user("Where is the spare key?"), context={"session_id": OTHER})
    assert not any("flowerpot" in m.text for m in model.calls[-1])  # another session's


async def test_the_recall_memory_tool_searches_this_sessions_archive(memory_url: str) -> None:
    model = answering(reply)
    graph = agent(model, ChatMemoryMiddleware(recall_tool=True))
    await chat(graph, TOKEN, [FACT, *SMALL_TALK])
    await chat(graph, OTHER, SMALL_TALK)
    out = await graph.ainvoke(user(f"{ASK_TOOL} please"), context={"session_id": TOKEN})
    tool_answer = [m for m in out["messages"] if isinstance(m, ToolMessage)][-1]
    assert tool_answer.name == "recall_memory"
    assert "flowerpot" in tool_answer.text and tool_answer.text.startswith(RECALL_HEADER)
    other = await graph.ainvoke(user(f"{ASK_TOOL} please"), context={"session_id": OTHER})
    assert "flowerpot" not in [m for m in other["messages"] if isinstance(m, ToolMessage)][-1].text
    memory = await get_memory()
    state = await memory.load(TOKEN)
    assert not any(m.text.startswith(RECALL_HEADER) for m in state.messages)  # tool data


async def test_without_the_option_the_agent_has_no_recall_tool(memory_url: str) -> None:
    model = answering(reply)
    await chat(agent(model), TOKEN, ["hello"])
    assert "recall_memory" not in [t.name for t in model.bound_tools]


async def test_a_failing_archive_never_fails_the_agent(memory_url: str) -> None:
    model = answering(reply)
    graph = agent(model, ChatMemoryMiddleware(recall_tool=True))
    await chat(graph, TOKEN, [FACT, *SMALL_TALK])
    await drop_archive(memory_url)
    out = await graph.ainvoke(user("Where is the spare key?"), context={"session_id": TOKEN})
    assert out["messages"][-1].text == "Noted."
    assert not any(m.text.startswith(RECALL_HEADER) for m in model.calls[-1])
    out = await graph.ainvoke(user(f"{ASK_TOOL} now"), context={"session_id": TOKEN})
    tool_answer = [m for m in out["messages"] if isinstance(m, ToolMessage)][-1]
    assert tool_answer.text == "This conversation's memory cannot be searched right now."
