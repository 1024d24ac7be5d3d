"""The ``agent`` graph (contract §13a): a LangChain v1 ``create_agent`` agent on chat memory."""

from graphs.agent.graph import build_graph, graph

__all__ = ["build_graph", "graph"]
