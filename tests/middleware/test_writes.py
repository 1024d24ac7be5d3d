"""What reaches memory (contract §4, §6, §13a): one turn per finished run — the question and the
final answer's text, never tool data — and nothing from a run that failed, had no session
or ran on a memory thread; a memory failure never fails the agent."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langgraph.types import Command

from aimind_memory.adapters.chat_memory import ChatMemoryMiddleware
from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.errors import MemoryThreadError
from aimind_memory.memory import open_checkpointer, open_memory
from tests.chat.helpers import raw_storage_bytes, status_events
from tests.middleware.conftest import (
    ARGS_MARKER,
    LOOKUP,
    RESULT_MARKER,
    agent,
    lookup,
    model,
    reply,
    user,
)
from tests.support.fakes import ScriptedChatModel, calling

TOKEN = "middleware-writes-0001"


async def test_a_tool_turn_stores_the_question_and_the_final_text_only(memory_url: str) -> None:
    chat = model()
    out = await agent(chat).ainvoke(
        user(f"What does zebra mean? {LOOKUP}"), context={"session_id": TOKEN}
    )
    assert [type(m).__name__ for m in out["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]
    state = await (await get_memory()).load(TOKEN)
    assert [(m.role, m.text) for m in state.messages] == [
        ("user", f"What does zebra mean? {LOOKUP}"),
        ("assistant", out["messages"][-1].text),
    ]
    assert [m.id for m in state.messages] == [out["messages"][0].id, out["messages"][-1].id]
    stored = raw_storage_bytes(memory_url)
    assert stored  # the turn is there, and nothing of the tool call
    assert ARGS_MARKER.encode() not in stored
    assert RESULT_MARKER.encode() not in stored


async def test_one_run_writes_one_turn(memory_url: str) -> None:
    graph = agent(model())
    for i in range(3):
        await graph.ainvoke(user(f"Turn {i}"), context={"session_id": TOKEN})
    state = await (await get_memory()).load(TOKEN)
    assert [m.text for m in state.messages if m.role == "user"] == ["Turn 0", "Turn 1", "Turn 2"]


async def test_no_session_runs_and_writes_nothing(memory_url: str) -> None:
    chat = model()
    out = await agent(chat).ainvoke(user("Hello without a session"))
    assert out["messages"][-1].text == "Answer to «Hello without a session»."
    assert [m.text for m in chat.calls[-1][1:]] == ["Hello without a session"]
    await get_memory()  # the tables exist…
    assert raw_storage_bytes(memory_url) == b""  # …and hold nothing


async def test_a_model_error_mid_run_writes_nothing(memory_url: str) -> None:
    graph = agent(model())
    await graph.ainvoke(user("A turn that is kept"), context={"session_id": TOKEN})
    memory = await get_memory()
    before = await memory.load(TOKEN)
    failing = ScriptedChatModel(
        script=[calling("lookup", {"term": "zebra"}), RuntimeError("provider down")]
    )
    with pytest.raises(RuntimeError, match="provider down"):
        await agent(failing).ainvoke(
            user(f"This turn fails after its tool {LOOKUP}"), context={"session_id": TOKEN}
        )
    assert len(failing.calls) == 2  # it failed after the tool ran, mid-run
    memory.store.forget(memory.thread_id(TOKEN))  # read the database, not the kept copy
    assert await memory.load(TOKEN) == before


async def test_a_memory_thread_id_is_refused(memory_url: str) -> None:
    memory = await get_memory()
    await agent(model()).ainvoke(user("We decided on PostgreSQL."), context={"session_id": TOKEN})
    before = await memory.load(TOKEN)
    chat = model()
    with pytest.raises(MemoryThreadError):
        await agent(chat).ainvoke(
            user("Run on the memory thread"),
            {"configurable": {"thread_id": memory.thread_id(TOKEN)}},
            context={"session_id": TOKEN},
        )
    assert chat.calls == []
    memory.store.forget(memory.thread_id(TOKEN))
    assert await memory.load(TOKEN) == before


async def test_memory_that_cannot_open_never_fails_the_agent(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")  # the database cannot be created under it
    chat = model()
    graph = agent(chat, ChatMemoryMiddleware(f"sqlite:///{blocked / 'db' / 'memory.sqlite'}"))
    chunks = [
        chunk
        async for chunk in graph.astream(
            user("Still answered?"), context={"session_id": TOKEN}, stream_mode=["custom", "values"]
        )
    ]
    values = [value for mode, value in chunks if mode == "values"]
    assert values[-1]["messages"][-1].text == "Answer to «Still answered?»."
    assert [e["status"] for e in status_events(chunks)] == ["failed"]


async def test_each_middleware_writes_to_its_own_database(tmp_path: Path, memory_url: str) -> None:
    """``database_url`` per instance: two agents in one process, two databases."""
    other_url = f"sqlite:///{tmp_path / 'other' / 'memory.sqlite'}"
    first = agent(model(), ChatMemoryMiddleware(memory_url))
    second = agent(model(), ChatMemoryMiddleware(other_url))
    await first.ainvoke(user("Stored in the first"), context={"session_id": TOKEN})
    await second.ainvoke(user("Stored in the second"), context={"session_id": TOKEN})
    for url, text in ((memory_url, "Stored in the first"), (other_url, "Stored in the second")):
        async with open_memory(url) as memory:
            state = await memory.load(TOKEN)
        assert [m.text for m in state.messages if m.role == "user"] == [text]


async def test_an_interrupted_run_writes_nothing_until_it_is_resumed(memory_url: str) -> None:
    """A human review pauses the run before its tool: nothing is written; the resumed run
    writes the turn once."""
    review = HumanInTheLoopMiddleware(interrupt_on={"lookup": True})
    chat = model()
    async with open_checkpointer(memory_url) as saver:
        graph = create_agent(
            chat, [lookup], middleware=[ChatMemoryMiddleware(), review], checkpointer=saver
        )
        config = {"configurable": {"thread_id": "agent-review-0001"}}
        paused = await graph.ainvoke(
            user(f"Look zebra up {LOOKUP}"), config, context={"session_id": TOKEN}
        )
        assert paused["__interrupt__"]
        memory = await get_memory()
        assert (await memory.load(TOKEN)).is_empty
        done = await graph.ainvoke(
            Command(resume={"decisions": [{"type": "approve"}]}),
            config,
            context={"session_id": TOKEN},
        )
    assert done["messages"][-1].text == "Answer to «Look zebra up» (looked up)."
    state = await memory.load(TOKEN)
    assert [m.text for m in state.messages] == [
        f"Look zebra up {LOOKUP}",
        done["messages"][-1].text,
    ]


def test_the_reply_rule_is_what_the_tests_assume() -> None:
    """A guard for the fixtures: the lookup question calls the tool once, then answers."""
    from langchain_core.messages import HumanMessage, ToolMessage

    first = reply([HumanMessage(f"x {LOOKUP}")])
    assert first.tool_calls and first.tool_calls[0]["args"] == {"term": ARGS_MARKER}
    answer = reply([HumanMessage(f"x {LOOKUP}"), first, ToolMessage("r", tool_call_id="c")])
    assert answer.text == "Answer to «x» (looked up)." and not answer.tool_calls
