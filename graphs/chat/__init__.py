"""The ``chat`` graph (SPEC §1, §7): the session's memory as context, tools, one memory write."""

from graphs.chat.graph import build_graph, graph

__all__ = ["build_graph", "graph"]
