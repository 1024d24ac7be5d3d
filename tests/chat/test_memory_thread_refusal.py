"""Every graph refuses to run on a ``chat:`` thread id (contract §8).

Agent checkpoints on a memory thread would overwrite a session's chat memory with
GraphState. Each graph's first node refuses such a run before anything happens,
and the session's memory is left exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.errors import MemoryThreadError
from aimind_memory.graphs.chat import build_graph as build_chat
from aimind_memory.graphs.delivery_chain import build_graph as build_delivery
from aimind_memory.graphs.tasklist_agent import build_graph as build_tasklist
from tests.chat.helpers import TOKEN, user
from tests.memory.helpers import turn
from tests.support.fakes import ScriptedChatModel

GRAPHS: dict[str, Callable[[], Any]] = {
    "chat": lambda: build_chat(model=ScriptedChatModel(script=[]), tools=[]),
    "tasklist-agent": lambda: build_tasklist(ScriptedChatModel(script=[])),
    "delivery-chain": lambda: build_delivery(ScriptedChatModel(script=[])),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
async def test_every_graph_refuses_a_chat_memory_thread(memory_url: str, name: str) -> None:
    memory = await get_memory()
    await memory.append_turn(TOKEN, turn("We decided on PostgreSQL.", "Noted."))
    before = await memory.load(TOKEN)
    config = {"configurable": {"thread_id": memory.thread_id(TOKEN)}}
    with pytest.raises(MemoryThreadError):
        await GRAPHS[name]().ainvoke(
            {"messages": [user("Plan the launch of the new product line")]},
            config,
            context={"session_id": TOKEN},
        )
    memory.store.forget(memory.thread_id(TOKEN))  # read the database, not the kept copy
    assert await memory.load(TOKEN) == before
