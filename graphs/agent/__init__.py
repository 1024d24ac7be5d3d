"""The ``agent`` graph (contract §13a): a LangChain v1 ``create_agent`` agent on chat memory."""

from aimind_memory.graphs.agent.graph import build_graph, graph

__all__ = ["build_graph", "graph"]
