"""The ``tasklist-agent`` graph: goal → readiness → draft → human review → final summary.

``read_goal → judge ⇄ clarify → draft ⇄ review → conclude → final_turn``; a message
sent while the review or the question waits goes from ``read_goal`` to where its
answer leads.
The plan, its markdown artifact, review rounds and interrupts live in this
graph's own state, on its own thread (a server thread, or ``tasklist-agent:<uuid>``
in library use) — never on a ``chat:`` memory thread. Only ``final_turn`` talks
to chat memory, once, after every interrupt: on ``final`` or ``blocked`` it
writes the goal and the short text summary, nothing else (contract §4, §6).
"""

from __future__ import annotations

import uuid

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from aimind_memory.adapters.chat_memory.final_turn import (
    FINAL_TURN_NODE,
    final_turn_node,
    refuse_memory_thread,
)
from aimind_memory.adapters.chat_memory.runtime import SessionContext
from aimind_memory.graphs.tasklist_agent.nodes import SOURCE, TasklistNodes, extract_turn, route
from aimind_memory.graphs.tasklist_agent.state import TasklistInput, TasklistOutput, TasklistState

THREAD_PREFIX = "tasklist-agent:"


def build_graph(
    model: BaseChatModel | None = None, *, checkpointer: BaseCheckpointSaver[str] | None = None
) -> CompiledStateGraph[TasklistState, SessionContext, TasklistInput, TasklistOutput]:
    """The tasklist agent; without a checkpointer unless given (the server brings its own).

    ``model`` overrides the provider's model (tests pass a scripted fake).
    """
    nodes = TasklistNodes(model)
    builder = StateGraph(
        TasklistState,
        context_schema=SessionContext,
        input_schema=TasklistInput,
        output_schema=TasklistOutput,
    )
    # ignore: LangGraph's StateNode types no (state, config, runtime) node; it runs them.
    builder.add_node("read_goal", nodes.read_goal)  # type: ignore[arg-type, call-overload]
    builder.add_node("judge", nodes.judge)  # type: ignore[arg-type, call-overload]
    builder.add_node("clarify", nodes.clarify)  # type: ignore[arg-type, call-overload]
    builder.add_node("draft", nodes.draft)  # type: ignore[arg-type, call-overload]
    builder.add_node("review", nodes.review)  # type: ignore[arg-type, call-overload]
    builder.add_node("conclude", nodes.conclude)
    builder.add_node(FINAL_TURN_NODE, final_turn_node(extract_turn))  # type: ignore[arg-type]
    builder.add_edge(START, "read_goal")
    answered = ["judge", "clarify", "draft", "review"]  # a message may answer what waits
    builder.add_conditional_edges("read_goal", route(*answered), [*answered, "conclude"])
    builder.add_conditional_edges(
        "judge", route("clarify", "draft"), ["clarify", "draft", "conclude"]
    )
    builder.add_conditional_edges(
        "clarify", route("judge", "draft", "clarify"), ["judge", "draft", "clarify", "conclude"]
    )
    builder.add_conditional_edges("draft", route("review"), ["review", "conclude"])
    builder.add_conditional_edges(
        "review", route("review", "draft"), ["review", "draft", "conclude"]
    )
    builder.add_edge("conclude", FINAL_TURN_NODE)
    builder.add_edge(FINAL_TURN_NODE, END)
    return builder.compile(checkpointer=checkpointer, name=SOURCE)


graph = build_graph()
"""For ``langgraph.json``: no checkpointer of its own (the server brings one)."""


# --- library use ---------------------------------------------------------------------------


def new_thread_id() -> str:
    """A fresh agent thread id for library use: ``tasklist-agent:<uuid>``."""
    return f"{THREAD_PREFIX}{uuid.uuid4()}"


def agent_config(thread_id: str | None = None) -> RunnableConfig:
    """Run config on an agent thread (a new one by default); ``chat:`` ids are refused."""
    thread_id = thread_id or new_thread_id()
    refuse_memory_thread({"configurable": {"thread_id": thread_id}})
    return {"configurable": {"thread_id": thread_id}}


def compile_agent(
    checkpointer: BaseCheckpointSaver[str], *, model: BaseChatModel | None = None
) -> CompiledStateGraph[TasklistState, SessionContext, TasklistInput, TasklistOutput]:
    """The agent compiled with ``checkpointer`` (e.g. ``memory.open_checkpointer(url)``'s saver).

    Pair it with ``agent_config()`` and pass ``context={"session_id": token}``.
    """
    return build_graph(model, checkpointer=checkpointer)
