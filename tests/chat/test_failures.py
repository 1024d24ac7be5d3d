"""Failure paths: a broken memory store never changes the answer; broken runs write nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.tools.builtin import MAX_TOOL_ROUNDS, calculator
from aimind_memory.graphs.chat import build_graph
from tests.chat.helpers import TOKEN, raw_storage_bytes, status_events, user
from tests.memory.helpers import turn
from tests.support.fakes import ScriptedChatModel

ANSWER = "The answer does not depend on memory."


class StoreDown(RuntimeError):
    pass


def _break_store(threads: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    async def down(*args: Any, **kwargs: Any) -> Any:
        raise StoreDown("connection refused")

    for name in ("latest", "put", "delete"):
        monkeypatch.setattr(threads, name, down)


async def test_memory_store_down_run_succeeds_and_reports_failed(
    memory_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = await get_memory()
    await memory.append_turn(TOKEN, turn("earlier question", "earlier answer"))
    model = ScriptedChatModel(script=[AIMessage(ANSWER)])
    graph = build_graph(model=model, tools=[])
    with monkeypatch.context() as patch:
        _break_store(memory.backend.threads, patch)
        memory.store.forget(memory.thread_id(TOKEN))  # a warm copy would hide the outage
        chunks = [
            chunk
            async for chunk in graph.astream(
                {"messages": [user("Does memory matter?")]},
                context={"session_id": TOKEN},
                stream_mode=["values", "custom"],
            )
        ]
    final = [event for mode, event in chunks if mode == "values"][-1]
    assert final["messages"][-1].content == ANSWER
    events = status_events(chunks)
    assert [e["status"] for e in events] == ["failed"]
    assert set(events[0]) == {"type", "status", "summaryLength", "pinnedDecisionCount"}
    assert [type(m).__name__ for m in model.calls[0]] == ["SystemMessage", "HumanMessage"]
    state = await memory.load(TOKEN)  # the store is back: nothing was half-written
    assert [m.text for m in state.messages] == ["earlier question", "earlier answer"]


async def test_failing_run_writes_nothing(memory_url: str) -> None:
    model = ScriptedChatModel(
        script=[
            AIMessage(
                "", tool_calls=[{"name": "calculator", "args": {"expression": "1+1"}, "id": "c1"}]
            ),
            RuntimeError("provider exploded mid-turn"),
        ]
    )
    graph = build_graph(model=model, tools=[calculator])
    with pytest.raises(RuntimeError, match="provider exploded"):
        await graph.ainvoke({"messages": [user("What is 1+1?")]}, context={"session_id": TOKEN})
    memory = await get_memory()
    assert (await memory.load(TOKEN)).is_empty
    assert b"What is 1+1?" not in raw_storage_bytes(memory_url)


async def test_cancelled_run_writes_nothing(memory_url: str) -> None:
    started, never = asyncio.Event(), asyncio.Event()

    @tool
    async def slow_lookup(query: str) -> str:
        """A tool that hangs until the run is cancelled."""
        started.set()
        await never.wait()
        return "unreachable"

    model = ScriptedChatModel(
        script=[
            AIMessage("", tool_calls=[{"name": "slow_lookup", "args": {"query": "x"}, "id": "c1"}]),
            AIMessage("should never be written"),
        ]
    )
    graph = build_graph(model=model, tools=[slow_lookup])
    run = asyncio.create_task(
        graph.ainvoke({"messages": [user("Cancel me")]}, context={"session_id": TOKEN})
    )
    await asyncio.wait_for(started.wait(), 30)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert (await (await get_memory()).load(TOKEN)).is_empty


async def test_resubmitted_run_with_same_ids_writes_once(memory_url: str) -> None:
    model = ScriptedChatModel(
        script=[AIMessage("first answer", id="ai-msg-1"), AIMessage("retry answer", id="ai-msg-2")]
    )
    graph = build_graph(model=model, tools=[])
    message = user("Please remember this once.", message_id="client-msg-1")
    for _ in range(2):
        out = await graph.ainvoke({"messages": [message]}, context={"session_id": TOKEN})
        assert out["messages"][0].id == "client-msg-1"
    assert len(model.calls) == 2  # both runs really ran
    state = await (await get_memory()).load(TOKEN)
    assert [(m.id, m.text) for m in state.messages] == [
        ("client-msg-1", "Please remember this once."),
        ("ai-msg-1", "first answer"),
    ]


async def test_id_less_retry_with_same_texts_writes_once(memory_url: str) -> None:
    model = ScriptedChatModel(script=[AIMessage("same answer")], loop_last=True)
    graph = build_graph(model=model, tools=[])
    for _ in range(2):
        await graph.ainvoke({"messages": [user("same question")]}, context={"session_id": TOKEN})
    state = await (await get_memory()).load(TOKEN)
    assert [m.text for m in state.messages] == ["same question", "same answer"]


async def test_tool_loop_is_bounded(memory_url: str) -> None:
    """A model that never stops calling tools ends after MAX_TOOL_ROUNDS, writing nothing."""

    def stubborn(messages: list[Any]) -> AIMessage:
        call = {"name": "calculator", "args": {"expression": "1+1"}, "id": f"c{len(messages)}"}
        return AIMessage("", tool_calls=[call])

    model = ScriptedChatModel(script=[stubborn], loop_last=True)
    graph = build_graph(model=model, tools=[calculator])
    out = await graph.ainvoke({"messages": [user("loop forever")]}, context={"session_id": TOKEN})
    assert len(model.calls) == MAX_TOOL_ROUNDS + 1
    assert sum(isinstance(m, ToolMessage) for m in out["messages"]) == MAX_TOOL_ROUNDS
    assert (await (await get_memory()).load(TOKEN)).is_empty
