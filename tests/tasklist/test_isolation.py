"""The agent's thread keeps its state; chat memory gets only the goal and the summary."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver

from aimind_memory.graphs.chat import build_graph as build_chat_graph
from aimind_memory.graphs.tasklist_agent import agent_config, new_thread_id
from aimind_memory.graphs.tasklist_agent.graph import THREAD_PREFIX
from aimind_memory.memory import MemoryService, assert_no_forbidden_fields
from aimind_memory.memory.models import PIN_PROVENANCE_CHANNEL
from tests.support.fakes import ScriptedChatModel
from tests.tasklist.support import (
    CONTEXT,
    READY,
    TOKEN,
    AgentRun,
    payload,
    raw_thread_bytes,
    stored_thread_ids,
    task,
)

GOAL = "Prepare the migration of our billing database to Postgres 17"
TITLE_MARK = "TITLE-MARK-a81c"
ACCEPT_MARK = "ACCEPT-MARK-5e2d"
NOTE_MARK = "NOTEMARK9b07"
INSTRUCT_MARK = "INSTRUCT-MARK-c4f0"


def marked_plan(revision: int) -> dict:
    return {
        "tasks": [
            task("T1", f"Snapshot the database {TITLE_MARK}", f"restore tested {ACCEPT_MARK}"),
            task("T2", f"Rehearse cut-over r{revision}", "under 10 minutes", ["T1", NOTE_MARK]),
        ]
    }


async def test_markers_in_artifact_acceptance_and_interrupts_never_reach_memory(
    saver: BaseCheckpointSaver, memory: MemoryService, db_url: str
) -> None:
    run = AgentRun(saver, [READY, marked_plan(1), marked_plan(2)])
    first = payload(await run.start(GOAL))
    assert NOTE_MARK in str(first["notes"]) and ACCEPT_MARK in str(first["tasklist"])
    await run.resume({"action": "respond", "text": f"rehearse twice {INSTRUCT_MARK}"})
    done = await run.resume({"action": "approve"})
    assert done["status"] == "final"
    assert TITLE_MARK in done["artifact"] and ACCEPT_MARK in done["artifact"]

    markers = (TITLE_MARK, ACCEPT_MARK, NOTE_MARK, INSTRUCT_MARK)
    agent_bytes = raw_thread_bytes(db_url, run.thread_id)
    assert all(m.encode() in agent_bytes for m in markers)  # the search does find them
    memory_bytes = raw_thread_bytes(db_url, memory.thread_id(TOKEN))
    assert GOAL.encode() in memory_bytes and done["summary"].encode() in memory_bytes
    for marker in markers:
        assert marker.encode() not in memory_bytes, marker
    for word in (b"artifact", b"tasklist-review", b"allowedActions", b"depends_on"):
        assert word not in memory_bytes

    dto = await memory.hydrate(TOKEN)
    assert_no_forbidden_fields(dto)
    assert [m["text"] for m in dto["messages"]] == [GOAL, done["summary"]]
    assert not any(marker in str(dto) for marker in markers)


async def test_following_chat_turn_sees_the_tasklist_turn(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [READY, {"tasks": [task("T1", "Dump", "dump restores")]}])
    await run.start(GOAL)
    done = await run.resume("approve")

    chat_model = ScriptedChatModel(script=["You approved a one-task plan."])
    chat = build_chat_graph(model=chat_model, tools=[]).copy(update={"checkpointer": saver})
    config = {"configurable": {"thread_id": "chat-ui-thread-1"}}
    answer = await chat.ainvoke(
        {"messages": [{"role": "user", "content": "What did we just plan?"}]},
        config,
        context=CONTEXT,
    )
    assert answer["messages"][-1].text == "You approved a one-task plan."
    sent = chat_model.calls[0]
    dialogue = [(type(m), m.text) for m in sent if isinstance(m, HumanMessage | AIMessage)]
    assert dialogue == [
        (HumanMessage, GOAL),
        (AIMessage, done["summary"]),
        (HumanMessage, "What did we just plan?"),
    ]
    assert not any("Dump" in m.text for m in sent)  # the artifact is not in the chat context
    assert len((await memory.load(TOKEN)).messages) == 4


async def test_agent_and_memory_threads_are_distinct_in_one_database(
    saver: BaseCheckpointSaver, memory: MemoryService, db_url: str
) -> None:
    run = AgentRun(saver, [READY, {"tasks": [task("T1", "Dump", "dump restores")]}])
    await run.start(GOAL)
    assert run.thread_id.startswith(THREAD_PREFIX)
    assert stored_thread_ids(db_url) == {run.thread_id}  # paused: only the agent's thread

    await run.resume("approve")
    memory_thread = memory.thread_id(TOKEN)
    assert stored_thread_ids(db_url) == {run.thread_id, memory_thread}
    assert memory_thread.startswith("chat:") and not run.thread_id.startswith("chat:")

    agent_state = await run.graph.aget_state(run.config)
    assert agent_state.values["artifact"] and agent_state.values["status"] == "final"
    memory_state = await memory.graph.aget_state({"configurable": {"thread_id": memory_thread}})
    assert set(memory_state.values) <= {
        "messages",
        "summary",
        "pins",
        "pinned_decisions",
        "last_compacted_at",
        "unpinned",
        "replaced",
        PIN_PROVENANCE_CHANNEL,
    }


def test_library_threads_are_agent_threads_never_chat_threads() -> None:
    first, second = new_thread_id(), new_thread_id()
    assert first != second and first.startswith("tasklist-agent:")
    assert agent_config(first)["configurable"]["thread_id"] == first
    with pytest.raises(ValueError):
        agent_config("chat:" + "0" * 64)


async def test_planner_sees_the_chat_memory_of_the_session(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    from aimind_memory.memory import FinalTurn

    earlier = FinalTurn(
        user_text="We decided to use Postgres 17, never MySQL.",
        assistant_text="Noted: Postgres 17.",
        status="completed",
        source="chat",
    )
    await memory.append_turn(TOKEN, earlier)
    run = AgentRun(saver, [READY, {"tasks": [task("T1", "Dump", "dump restores")]}])
    await run.start(GOAL)
    for call in run.model.calls:  # readiness and draft both get §7's context
        texts = [m.text for m in call]
        assert "We decided to use Postgres 17, never MySQL." in texts
        assert GOAL in texts[-1]
