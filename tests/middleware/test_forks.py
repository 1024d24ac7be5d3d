"""Regenerate and Edit with ``ChatMemoryMiddleware`` (issue 30), in process.

``create_agent`` on a checkpointer on memory's database (as both servers run the
``agent`` graph), forked the way agent-chat-ui forks it (``tests/chat/test_forks.py``
``fork_point``). The real servers: ``tests/server/forks.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.memory import open_checkpointer
from tests.chat.test_forks import fork_point, thread
from tests.middleware.conftest import LOOKUP, agent, model
from tests.support.fakes import ScriptedChatModel

TOKEN = "middleware-forks-0001"


@pytest.fixture
async def served(memory_url: str) -> AsyncIterator[tuple[Any, ScriptedChatModel]]:
    chat = model()
    async with open_checkpointer(memory_url) as saver:
        yield agent(chat, checkpointer=saver), chat


def past_questions(sent: list[BaseMessage]) -> list[str]:
    """The past questions a model call was given (memory's recent turns)."""
    return [m.text for m in sent if isinstance(m, HumanMessage)][:-1]


async def ask(graph: Any, name: str, text: str) -> dict[str, Any]:
    message = {"messages": [{"role": "user", "content": text}]}
    return await graph.ainvoke(message, thread(name), context={"session_id": TOKEN})


async def window() -> list[tuple[str, str]]:
    return [(m.id, m.text) for m in (await (await get_memory()).load(TOKEN)).messages]


def ids_and_texts(messages: list[BaseMessage]) -> list[tuple[str, str]]:
    return [(str(m.id), m.text) for m in messages]


async def test_regenerating_an_answer_after_its_tool_call_replaces_it(
    served: tuple[Any, ScriptedChatModel],
) -> None:
    """The answer's first state follows the tool's: the re-run starts inside the tool loop,
    its model sees one past turn, and memory holds the new answer."""
    graph, chat = served
    await ask(graph, "t", "Which city?")
    out = await ask(graph, "t", f"What does zebra mean? {LOOKUP}")
    old = out["messages"][-1]
    parent = await fork_point(graph, "t", str(old.id))

    out = await graph.ainvoke(None, parent, context={"session_id": TOKEN})

    assert past_questions(chat.calls[-1]) == ["Which city?"]
    assert isinstance(chat.calls[-1][-1], ToolMessage)  # it started inside the tool loop
    new = out["messages"][-1]
    assert new.id != old.id
    shown = [m for m in out["messages"] if m.type == "human" or (m.type == "ai" and m.text)]
    assert await window() == ids_and_texts(shown)


async def test_an_edit_replaces_the_question_and_keeps_another_threads_turn(
    served: tuple[Any, ScriptedChatModel],
) -> None:
    graph, chat = served
    await ask(graph, "t", "Book a table for 4.")
    out = await ask(graph, "t", "At 7 pm.")
    other = await ask(graph, "u", "Unrelated question.")
    parent = await fork_point(graph, "t", str(out["messages"][2].id))

    edited = {"messages": [{"type": "human", "content": "At 8 pm."}]}
    out = await graph.ainvoke(edited, parent, context={"session_id": TOKEN})

    assert past_questions(chat.calls[-1]) == ["Book a table for 4.", "Unrelated question."]
    mine = ids_and_texts(out["messages"])
    assert [text for _, text in mine[2:]] == ["At 8 pm.", "Answer to «At 8 pm.»."]
    assert await window() == [*mine[:2], *ids_and_texts(other["messages"]), *mine[2:]]
