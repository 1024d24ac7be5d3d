"""A chat thread's storage grows with its transcript, on the stock savers (contract §8a).

The thread's ``messages`` is a ``DeltaChannel``: a checkpoint keeps only its step's
writes. These tests run the chat graph on the stock ``AsyncSqliteSaver`` and on the
stock ``AsyncPostgresSaver`` (what Aegra uses), not on our server saver, so the bound
holds wherever the graph runs. With a full copy of the list in every checkpoint a
100-turn thread of 1,000-character messages takes about 150 times its transcript.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from aimind_memory.adapters.chat_memory.runtime import close_memory
from aimind_memory.graphs.chat import build_graph
from aimind_memory.graphs.chat.state import TRANSCRIPT_MAX_MESSAGES
from aimind_memory.memory.storage import backend_of, sqlite_path
from tests.chat.helpers import TOKEN, raw_storage_bytes, user
from tests.support.fakes import ScriptedChatModel

TURNS = 100
MESSAGE_CHARS = 1_000
MAX_STORAGE_PER_TRANSCRIPT = 10


@asynccontextmanager
async def stock_saver(url: str) -> AsyncIterator[BaseCheckpointSaver]:
    """The saver as released, on its own tables: nothing of ours in between."""
    if backend_of(url) == "sqlite":
        path = sqlite_path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            await saver.setup()
            yield saver
    else:
        async with AsyncPostgresSaver.from_conn_string(url) as saver:
            await saver.setup()
            yield saver


@pytest.fixture
async def memory_elsewhere(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """Chat memory in process memory, so the saver's tables hold only the agent thread."""
    monkeypatch.setenv("AIMIND_DATABASE_URL", "memory")
    yield
    await close_memory()


def _long(prefix: str, n: int) -> str:
    return (f"{prefix} {n}: " + "lorem ipsum dolor sit amet " * 40)[:MESSAGE_CHARS]


def _answer(messages: list[BaseMessage]) -> AIMessage:
    return AIMessage(_long("answer", len(messages)))


def _transcript_bytes(messages: list[Any]) -> int:
    return sum(len(str(m.content).encode()) + len(str(m.id).encode()) for m in messages)


async def test_a_100_turn_thread_takes_at_most_10x_its_transcript(
    db_url: str, memory_elsewhere: None
) -> None:
    model = ScriptedChatModel(script=[_answer], loop_last=True)
    async with stock_saver(db_url) as saver:
        graph = build_graph(model=model, tools=[]).builder.compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "agent-thread-storage"}}
        empty = len(raw_storage_bytes(db_url))
        for n in range(1, TURNS + 1):
            await graph.ainvoke(
                {"messages": [user(_long("question", n), f"q-{n}")]},
                config,
                context={"session_id": TOKEN},
            )
        state = await graph.aget_state(config)
        history = [s async for s in graph.aget_state_history(config, limit=10)]
    messages = state.values["messages"]
    assert len(messages) == TRANSCRIPT_MAX_MESSAGES == 2 * TURNS
    assert [m.id for m in messages[::2]] == [f"q-{n}" for n in range(1, TURNS + 1)]
    # the recent checkpoints (agent-chat-ui reads 10) rebuild the list from their writes
    assert [m.id for m in history[0].values["messages"]] == [m.id for m in messages]
    final_ids = [m.id for m in messages]
    for snapshot in history:  # each an earlier point of the same conversation
        ids = [m.id for m in snapshot.values["messages"]]
        assert len(ids) >= 2 * TURNS - 4 and ids == final_ids[: len(ids)]
    grown = len(raw_storage_bytes(db_url)) - empty
    transcript = _transcript_bytes(messages)
    assert grown <= MAX_STORAGE_PER_TRANSCRIPT * transcript, (grown, transcript)
