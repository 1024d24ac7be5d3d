"""The ``agent`` graph's own rules, in process: the chat graph's tool policy (a failure is
a sentence, the round limit ends the turn) and the refusal of a memory thread."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.errors import MemoryThreadError
from aimind_memory.adapters.tools.builtin import MAX_TOOL_ROUNDS, TOOL_FAILED
from aimind_memory.graphs.agent import build_graph
from tests.middleware.conftest import user
from tests.support.fakes import ScriptedChatModel, answering, calling

TOKEN = "agent-graph-session-0001"
PRIVATE = "/srv/private/ledger.sqlite"


@tool
def broken(term: str) -> str:
    """Always fails, with a private path in its error."""
    raise OSError(f"cannot open {PRIVATE}")


@tool
def echo(term: str) -> str:
    """Echo a term."""
    return term


async def test_a_failing_tool_reaches_the_model_as_a_sentence(memory_url: str) -> None:
    chat = ScriptedChatModel(script=[calling("broken", {"term": "x"}), AIMessage("Sorry.")])
    out = await build_graph(chat, [broken]).ainvoke(
        user("Look x up"), context={"session_id": TOKEN}
    )
    (result,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert result.text == TOOL_FAILED and result.status == "error"
    assert PRIVATE not in str(chat.calls)
    state = await (await get_memory()).load(TOKEN)
    assert [m.text for m in state.messages] == ["Look x up", "Sorry."]


async def test_the_tool_round_limit_ends_the_turn(memory_url: str) -> None:
    rounds = iter(range(100))
    chat = answering(lambda messages: calling("echo", {"term": "again"}, f"c{next(rounds)}"))
    out = await build_graph(chat, [echo]).ainvoke(
        user("Loop forever"), context={"session_id": TOKEN}
    )
    assert len(chat.calls) == MAX_TOOL_ROUNDS + 1
    assert chat.offered[-2] == ["echo"] and chat.offered[-1] == []  # the last: no tools
    assert isinstance(out["messages"][-1], AIMessage) and not out["messages"][-1].tool_calls
    assert (await (await get_memory()).load(TOKEN)).is_empty  # no answer text: nothing kept


async def test_the_agent_refuses_a_memory_thread(memory_url: str) -> None:
    memory = await get_memory()
    chat = ScriptedChatModel(script=[])
    with pytest.raises(MemoryThreadError):
        await build_graph(chat, [echo]).ainvoke(
            user("Run on memory"),
            {"configurable": {"thread_id": memory.thread_id(TOKEN)}},
            context={"session_id": TOKEN},
        )
    assert chat.calls == []
