"""The ``chat`` graph: agent (memory context, model) ↔ tools → final-turn adapter.

Only the latest human message of the input is used; the model sees contract §7's
context (system, summary, pins, recent turns, latest message) plus this turn's
own tool loop, never history the client sent. The final node writes the
question and the final answer to chat memory; a run that fails or is cancelled
never reaches it, so it writes nothing.

``graph`` is exported without a checkpointer (``langgraph dev`` brings its own).
``build_graph(model=..., tools=...)`` injects a model and tools for tests.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from aimind_memory.adapters.chat_memory.final_turn import FINAL_TURN_NODE
from aimind_memory.adapters.chat_memory.runtime import SessionContext
from aimind_memory.graphs.chat.nodes import (
    AGENT_NODE,
    TOOLS_NODE,
    ChatNodes,
    after_agent,
    final_turn,
)
from aimind_memory.graphs.chat.state import ChatInput, ChatOutput, ChatState

GRAPH_NAME = "chat"


def build_graph(
    model: BaseChatModel | None = None, tools: Sequence[BaseTool] | None = None
) -> CompiledStateGraph[ChatState, SessionContext, ChatInput, ChatOutput]:
    """The chat graph; ``model``/``tools`` default to the provider and local + MCP tools."""
    nodes = ChatNodes(model, tools)
    builder = StateGraph(
        ChatState,
        context_schema=SessionContext,
        input_schema=ChatInput,
        output_schema=ChatOutput,
    )
    # ignore: LangGraph's StateNode types no (state, config, runtime) node; it runs them.
    builder.add_node(AGENT_NODE, nodes.agent)  # type: ignore[arg-type]
    builder.add_node(TOOLS_NODE, nodes.tools)
    builder.add_node(FINAL_TURN_NODE, final_turn)  # type: ignore[arg-type]
    builder.add_edge(START, AGENT_NODE)
    builder.add_conditional_edges(AGENT_NODE, after_agent, [TOOLS_NODE, FINAL_TURN_NODE, END])
    builder.add_edge(TOOLS_NODE, AGENT_NODE)
    builder.add_edge(FINAL_TURN_NODE, END)
    return builder.compile(name=GRAPH_NAME)


graph = build_graph()
"""For ``langgraph.json``: no checkpointer of its own (the server brings one)."""
