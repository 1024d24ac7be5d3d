"""The ``delivery-chain`` graph: requirement → plan → tasks → parallel reviews → report."""

from aimind_memory.graphs.delivery_chain.graph import build_graph, graph

__all__ = ["build_graph", "graph"]
