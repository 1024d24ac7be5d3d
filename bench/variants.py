"""The four ways to remember a turn that the bench compares, each timed per turn.

- ``ours``: ``MemoryService.load`` + ``append_turn`` (bounded window, compaction
  every third turn, one checkpoint per turn, pruned).
- ``bare``: the floor inside the checkpointer abstraction — one ``aget_tuple`` and
  one ``aput`` of the same state, nothing else (no lock, no pruning, no validation).
- ``graph``: the common LangGraph way — a ``MessagesState`` graph holding the whole
  conversation, one ``ainvoke`` per turn on the same saver.
- ``article``: the article's way — our service with ``KEEP_TURNS == RECENT_TURNS``,
  so it compacts on every turn past the window.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from aimind_memory.memory import FinalTurn, MemoryLimits, MemoryService
from aimind_memory.memory.storage import Head
from aimind_memory.memory.storage.store import next_head, thread_config

ARTICLE_LIMITS = MemoryLimits(keep_turns=4, recent_turns=4)
VARIANTS = ("ours", "bare", "graph", "article")


class MemoryTurns:
    """A run's memory work on one session: the read for the model's context
    (``snapshot``) and the turn's write (``append_turn``).

    A compaction the write starts runs after it, as in a run. Ours lets it land
    before the next turn, outside the timed turn, as it does between a user's turns
    (its own cost is benchmark 7's). ``compaction_on_path`` times it within the turn
    instead: the article's design, which compacts before the answer.
    """

    def __init__(self, mem: MemoryService, token: str, *, compaction_on_path: bool = False) -> None:
        self.mem = mem
        self.token = token
        self.thread_id = mem.thread_id(token)
        self.compaction_on_path = compaction_on_path
        self.compacted: list[bool] = []

    async def turn(self, user: str, assistant: str) -> float:
        t0 = time.perf_counter()
        await self.mem.snapshot(self.token)
        result = await self.mem.append_turn(
            self.token, FinalTurn(user_text=user, assistant_text=assistant, status="completed")
        )
        if self.compaction_on_path:
            await self.mem.settle(self.token)
        elapsed = time.perf_counter() - t0
        await self.mem.settle(self.token)  # the next turn comes after it landed
        await self.mem.compactions.read_all()  # … and after the turn was read ahead
        if not result.written:
            raise RuntimeError(f"turn not written: {result.skipped}")
        self.compacted.append(result.compacted or result.pending)
        return elapsed


class BareSaverTurns:
    """``aget_tuple`` + ``aput`` of a given state on one thread: the saver's own floor."""

    def __init__(self, saver: BaseCheckpointSaver[str], thread_id: str) -> None:
        self.saver = saver
        self.thread_id = thread_id

    async def turn(self, channels: dict[str, Any]) -> float:
        t0 = time.perf_counter()
        previous = await self.saver.aget_tuple(thread_config(self.thread_id))
        parent = Head(previous.checkpoint, dict(previous.metadata)) if previous else None
        head, new_versions = next_head(self.saver, channels, parent)
        config = thread_config(self.thread_id)
        if parent:
            config["configurable"]["checkpoint_id"] = parent.id
        await self.saver.aput(config, head.checkpoint, head.metadata, new_versions)  # type: ignore[arg-type]
        return time.perf_counter() - t0


@dataclass
class ReplyContext:
    """Run context carrying the scripted reply, so nothing extra lands in the checkpoint."""

    reply: str = ""


async def _respond(state: MessagesState, runtime: Runtime[ReplyContext]) -> dict[str, Any]:
    return {"messages": [AIMessage(runtime.context.reply)]}


def messages_graph(
    saver: BaseCheckpointSaver[str],
) -> CompiledStateGraph[MessagesState, ReplyContext, MessagesState, MessagesState]:
    """One model node over ``MessagesState`` (``add_messages``): the whole history persists."""
    builder = StateGraph(MessagesState, context_schema=ReplyContext)
    builder.add_node("model", _respond)
    builder.add_edge(START, "model")
    builder.add_edge("model", END)
    return builder.compile(checkpointer=saver)


class GraphTurns:
    """One ``ainvoke`` per turn of a ``MessagesState`` graph on one thread."""

    def __init__(self, saver: BaseCheckpointSaver[str], thread_id: str) -> None:
        self.graph = messages_graph(saver)
        self.thread_id = thread_id

    async def turn(self, user: str, assistant: str) -> float:
        config: RunnableConfig = {"configurable": {"thread_id": self.thread_id}}
        t0 = time.perf_counter()
        await self.graph.ainvoke(
            {"messages": [HumanMessage(user)]}, config, context=ReplyContext(assistant)
        )
        return time.perf_counter() - t0
