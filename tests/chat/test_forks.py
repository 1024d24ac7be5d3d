"""Regenerate and Edit leave memory matching the screen (issue 30), in process.

The chat graph on a checkpointer on memory's database (as both servers run it), forked
the way agent-chat-ui forks it: from the parent of the checkpoint where the message was
first seen among the thread's 10 newest states (``@langchain/langgraph-sdk``
``getMessagesMetadata``). Regenerate: no input; Edit: a new question without an id.
The real servers, with agent-chat-ui's exact requests: ``tests/server/test_forks.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.graph.state import CompiledStateGraph

from aimind_memory.adapters.chat_memory.forks import MEMORY_IDS
from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.tools.builtin import calculator
from aimind_memory.graphs.chat import build_graph
from aimind_memory.graphs.chat.state import ChatState
from aimind_memory.memory import open_checkpointer
from tests.chat.helpers import TOKEN, user
from tests.support.fakes import ScriptedChatModel, answering, calling

HISTORY_LIMIT = 10
"""agent-chat-ui reads this many states of a thread (``fetchStateHistory: true``)."""


class Answers:
    """A model whose every answer is new ("answer 3 to: ..."), recording how many past
    turns each call was given (the human messages before the question)."""

    def __init__(self) -> None:
        self.count = 0
        self.model = ScriptedChatModel(script=[self.answer], loop_last=True)

    def answer(self, messages: list[BaseMessage]) -> AIMessage:
        self.count += 1
        return AIMessage(f"answer {self.count} to: {messages[-1].content}")

    def past_turns(self) -> list[str]:
        """The past questions the latest call was given (memory's recent turns)."""
        sent = self.model.calls[-1]
        return [str(m.content) for m in sent[:-1] if isinstance(m, HumanMessage)]


@pytest.fixture
async def graph(memory_url: str) -> AsyncIterator[tuple[CompiledStateGraph, Answers]]:
    answers = Answers()
    async with open_checkpointer(memory_url) as saver:
        compiled = build_graph(model=answers.model, tools=[]).builder.compile(checkpointer=saver)
        yield compiled, answers


def thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


async def ask(graph: CompiledStateGraph, name: str, text: str, message_id: str | None) -> Any:
    return await graph.ainvoke(
        {"messages": [user(text, message_id)]}, thread(name), context={"session_id": TOKEN}
    )


async def fork_point(graph: CompiledStateGraph, name: str, message_id: str) -> dict[str, Any]:
    """The config agent-chat-ui sends for ``message_id``: ``firstSeenState.parent_checkpoint``."""
    states = [s async for s in graph.aget_state_history(thread(name), limit=HISTORY_LIMIT)]
    seen = [s for s in states if any(m.id == message_id for m in s.values.get("messages", []))]
    assert seen, f"{message_id} is not among the thread's {HISTORY_LIMIT} newest states"
    parent = seen[-1].parent_config
    assert parent is not None
    return parent


async def regenerate(graph: CompiledStateGraph, name: str, answer_id: str) -> Any:
    parent = await fork_point(graph, name, answer_id)
    return await graph.ainvoke(None, parent, context={"session_id": TOKEN})


async def edit(graph: CompiledStateGraph, name: str, question_id: str, text: str) -> Any:
    parent = await fork_point(graph, name, question_id)
    edited = {"messages": [{"type": "human", "content": text}]}
    return await graph.ainvoke(edited, parent, context={"session_id": TOKEN})


async def window() -> list[str]:
    return [m.text for m in (await (await get_memory()).load(TOKEN)).messages]


def shown(out: dict[str, Any]) -> list[str]:
    return [str(m.content) for m in out["messages"]]


async def test_regenerate_replaces_the_answer_and_the_model_does_not_see_the_old_one(
    graph: tuple[CompiledStateGraph, Answers],
) -> None:
    chat, answers = graph
    await ask(chat, "t", "Which city?", "q1")
    out = await ask(chat, "t", "Which hotel?", "q2")
    old = out["messages"][-1]
    assert await window() == [
        "Which city?",
        "answer 1 to: Which city?",
        "Which hotel?",
        old.content,
    ]

    out = await regenerate(chat, "t", old.id)

    assert answers.past_turns() == ["Which city?"]  # not the answer it replaces
    assert out["memory_context"]["recentTurns"] == 1
    assert shown(out) == [
        "Which city?",
        "answer 1 to: Which city?",
        "Which hotel?",
        "answer 3 to: Which hotel?",
    ]
    assert await window() == shown(out)


async def test_edit_replaces_the_question_and_its_answer(
    graph: tuple[CompiledStateGraph, Answers],
) -> None:
    chat, answers = graph
    await ask(chat, "t", "Book a table for 4.", "q1")
    await ask(chat, "t", "At 7 pm.", "q2")

    out = await edit(chat, "t", "q2", "At 8 pm.")

    assert answers.past_turns() == ["Book a table for 4."]
    assert shown(out) == [
        "Book a table for 4.",
        "answer 1 to: Book a table for 4.",
        "At 8 pm.",
        "answer 3 to: At 8 pm.",
    ]
    assert await window() == shown(out)


async def test_editing_the_first_question_takes_every_later_turn_of_the_thread(
    graph: tuple[CompiledStateGraph, Answers],
) -> None:
    chat, answers = graph
    await ask(chat, "t", "Plan a trip to Rome.", "q1")
    await ask(chat, "t", "For three days.", "q2")

    out = await edit(chat, "t", "q1", "Plan a trip to Lisbon.")

    assert answers.past_turns() == []
    assert (
        await window()
        == shown(out)
        == ["Plan a trip to Lisbon.", "answer 3 to: Plan a trip to Lisbon."]
    )


async def test_other_threads_turns_in_between_stay(
    graph: tuple[CompiledStateGraph, Answers],
) -> None:
    """Memory is the session's: a turn another thread wrote after the edited one stays,
    through a regenerate and an edit alike."""
    chat, answers = graph
    await ask(chat, "t", "Which city?", "q1")
    out = await ask(chat, "t", "Which hotel?", "q2")
    await ask(chat, "other", "Unrelated tab question.", "x1")
    other = ["Unrelated tab question.", "answer 3 to: Unrelated tab question."]

    out = await regenerate(chat, "t", out["messages"][-1].id)
    assert answers.past_turns() == ["Which city?", "Unrelated tab question."]
    assert await window() == [*shown(out)[:2], *other, *shown(out)[2:]]

    out = await edit(chat, "t", "q2", "Which hostel?")
    assert answers.past_turns() == ["Which city?", "Unrelated tab question."]
    assert shown(out)[2:] == ["Which hostel?", "answer 5 to: Which hostel?"]
    assert await window() == [*shown(out)[:2], *other, *shown(out)[2:]]


async def test_regenerating_an_answer_after_its_tool_call_replaces_it(memory_url: str) -> None:
    """The answer's first state follows the tool's: the re-run starts inside the tool loop
    (memory read again there), its model sees one past turn, and memory holds the new
    answer."""

    def rule(messages: list[BaseMessage]) -> AIMessage:
        last = messages[-1]
        if isinstance(last, HumanMessage) and "2+2" in str(last.content):
            return calling("calculator", {"expression": "2+2"}, f"call-{len(model.calls)}")
        return AIMessage(f"answer {len(model.calls)}: {last.content}")

    model = answering(rule)
    async with open_checkpointer(memory_url) as saver:
        chat = build_graph(model=model, tools=[calculator]).builder.compile(checkpointer=saver)
        await ask(chat, "t", "Which city?", "q1")
        out = await ask(chat, "t", "What is 2+2?", "q2")
        old = out["messages"][-1]
        out = await regenerate(chat, "t", old.id)
    sent = model.calls[-1]
    assert isinstance(sent[-1], ToolMessage)  # it started inside the tool loop
    assert [str(m.content) for m in sent if isinstance(m, HumanMessage)] == [
        "Which city?",
        "What is 2+2?",
    ]
    assert out["messages"][-1].id != old.id
    assert out["memory_context"]["recentTurns"] == 1
    assert await window() == shown(out)


async def test_ordinary_turns_read_no_checkpoints_and_a_fork_reads_them_once(
    graph: tuple[CompiledStateGraph, Answers], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lookup costs nothing while a thread has the session to itself, one read when
    another thread wrote since its last turn, and one read on a fork."""
    chat, _ = graph
    saver = (await get_memory()).backend.saver
    reads: list[int] = []
    listing = saver.alist

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(1)
        return listing(*args, **kwargs)

    monkeypatch.setattr(saver, "alist", counted)
    for n in range(3):
        await ask(chat, "t", f"with an id {n}", f"a{n}")
        await ask(chat, "t", f"without an id {n}", None)
    assert reads == []
    await ask(chat, "u", "another thread", "u0")
    await ask(chat, "t", "back to the first", "t0")
    assert len(reads) == 2  # each thread's turn after the other's
    out = await ask(chat, "t", "last question", "t1")
    assert len(reads) == 2
    await regenerate(chat, "t", out["messages"][-1].id)
    assert len(reads) == 3


async def test_a_thread_keeps_the_memory_ids_of_its_questions(
    graph: tuple[CompiledStateGraph, Answers],
) -> None:
    """Its newest turns, as many as the window can hold while a compaction is pending."""
    chat, _ = graph
    memory = await get_memory()
    ids: list[str] = []
    for n in range(8):
        await ask(chat, "t", f"question {n}", f"q{n}" if n % 2 else None)
        ids.append((await memory.load(TOKEN)).messages[-2].id)
    values: ChatState = (await chat.aget_state(thread("t"))).values  # type: ignore[assignment]
    kept = memory.limits.pending_max_messages // 2
    assert values[MEMORY_IDS] == ids[-kept:]  # type: ignore[literal-required]
