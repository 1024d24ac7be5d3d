"""The ``tasklist-agent`` graph: plan a goal into a reviewed tasklist (human in the loop)."""

from aimind_memory.graphs.tasklist_agent.graph import (
    agent_config,
    build_graph,
    compile_agent,
    graph,
    new_thread_id,
)
from aimind_memory.graphs.tasklist_agent.nodes import (
    extract_turn,
    final_summary,
    summary_message_id,
)

__all__ = [
    "agent_config",
    "build_graph",
    "compile_agent",
    "extract_turn",
    "final_summary",
    "graph",
    "new_thread_id",
    "summary_message_id",
]
