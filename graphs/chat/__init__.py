"""The ``chat`` graph (contract §1, §7): memory as context, tools, one memory write."""

from aimind_memory.graphs.chat.graph import build_graph, graph

__all__ = ["build_graph", "graph"]
