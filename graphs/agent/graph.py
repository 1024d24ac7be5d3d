"""The ``agent`` graph: ``create_agent`` with the project's tools and ``ChatMemoryMiddleware``.

What contract §13a offers any LangChain v1 agent, served beside the three graphs: the
model sees contract §7's context rebuilt from the session's chat memory plus this
turn's tool loop, and each finished turn (question and final answer) is written to
memory. The agent's own thread keeps its messages, as ``create_agent`` does, for a
client to show. A run on a ``chat:`` thread is refused before the model is called.

``graph`` is exported without a checkpointer (``langgraph dev`` brings its own).
``build_graph(model=..., tools=...)`` injects a model and tools for tests (given
tools replace the local ones and turn the MCP tools off).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.graph.state import CompiledStateGraph

from aimind_memory.adapters.chat_memory import ChatMemoryMiddleware
from aimind_memory.adapters.chat_memory.runtime import SessionContext
from aimind_memory.adapters.models import chat_model
from aimind_memory.adapters.tools.builtin import local_tools
from aimind_memory.graphs.agent.prompts import SYSTEM_PROMPT
from aimind_memory.graphs.agent.tools import ProjectToolsMiddleware

GRAPH_NAME = "agent"


def build_graph(
    model: BaseChatModel | None = None, tools: Sequence[BaseTool] | None = None
) -> CompiledStateGraph[Any, SessionContext, Any, Any]:
    """The agent; ``model``/``tools`` default to the provider's and the local + MCP tools."""
    middleware: list[AgentMiddleware[Any, SessionContext]] = [
        ChatMemoryMiddleware(),  # each middleware has its own state schema
        ProjectToolsMiddleware(mcp=tools is None),
    ]
    return create_agent(
        model or chat_model(),
        list(tools) if tools is not None else local_tools(),
        system_prompt=SYSTEM_PROMPT,
        middleware=middleware,
        context_schema=SessionContext,
        name=GRAPH_NAME,
    )


graph = build_graph()
"""For ``langgraph.json``: no checkpointer of its own (the server brings one)."""
