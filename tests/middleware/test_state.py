"""The agent's own state: kept whole by default (a UI shows the thread), bounded to memory's
window with ``trim_state`` so the agent's checkpointer stops growing with the conversation.

Each checkpoint of a trimmed thread holds at most memory's window of turns, so once the
saver keeps only a thread's latest checkpoint — what ``langgraph.json``'s ``keep_latest``
TTL asks a server for, through the saver's ``aprune`` — the thread's storage is the
same at turn 30 as at turn 10, while a kept thread's has grown with the conversation.
"""

from __future__ import annotations

import itertools

from langchain_core.messages import HumanMessage

from aimind_memory.adapters.chat_memory import ChatMemoryMiddleware
from aimind_memory.memory import open_checkpointer
from aimind_memory.memory.config.limits import RECENT_TURNS
from aimind_memory.memory.storage import backend_of
from bench.common import Backend, conversation, thread_storage
from tests.middleware.conftest import LOOKUP, agent, model, user

MARKS = (10, 30)
TEXTS = [user_text for user_text, _ in itertools.islice(conversation(), MARKS[-1])]
"""Realistic user messages (about 240 characters of varied words): Postgres compresses
what it stores, so repeated text would hide the growth."""


def question(i: int) -> str:
    return TEXTS[i - 1] + (f" {LOOKUP}" if i % 5 == 0 else "")


async def test_trim_state_bounds_what_the_agents_checkpointer_stores(memory_url: str) -> None:
    backend = Backend(backend_of(memory_url), memory_url)
    bytes_at: dict[str, dict[int, int]] = {"kept": {}, "trimmed": {}}
    async with open_checkpointer(memory_url) as saver:
        graphs = {
            "kept": agent(model(), checkpointer=saver),
            "trimmed": agent(model(), ChatMemoryMiddleware(trim_state=True), checkpointer=saver),
        }
        for i in range(1, MARKS[-1] + 1):
            for name, graph in graphs.items():
                config = {"configurable": {"thread_id": f"agent-{name}-0001"}}
                await graph.ainvoke(
                    user(question(i)), config, context={"session_id": f"middleware-{name}-0001"}
                )
                state = (await graph.aget_state(config)).values["messages"]
                humans = [m.text for m in state if isinstance(m, HumanMessage)]
                first = 1 if name == "kept" else max(1, i - RECENT_TURNS + 1)
                assert humans == [question(n) for n in range(first, i + 1)]
            if i in MARKS:
                threads = [f"agent-{name}-0001" for name in graphs]
                await saver.aprune(threads, strategy="keep_latest")
                for name in graphs:
                    stored = thread_storage(backend, [f"agent-{name}-0001"])
                    bytes_at[name][i] = stored["bytes"]
    early, late = MARKS  # (Postgres stores the messages compressed: kept grows less there)
    assert bytes_at["trimmed"][late] <= 1.1 * bytes_at["trimmed"][early]
    assert bytes_at["kept"][late] >= 1.8 * bytes_at["kept"][early]
    assert bytes_at["kept"][late] >= 2.5 * bytes_at["trimmed"][late]
