"""The ``delivery-chain`` graph: requirement → plan → tasks → parallel reviews → report.

Each stage is a subagent (a structured-output model call) whose output stays
in this graph's state as a RuntimeArtifact. The review, risk and boundary
reviewers fan out and run concurrently. Progress goes to the custom stream as
``workflow-progress`` events (``index`` is 1-based, ``total`` counts every stage).
Only the requirement and the final report reach chat memory, through the shared
final-turn adapter (memory caps the report at 8,000 chars with the §6 marker); a failed
run writes nothing and tells the user which stage failed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from aimind_memory.adapters.chat_memory.final_turn import FINAL_TURN_NODE, final_turn_node
from aimind_memory.adapters.chat_memory.runtime import SessionContext
from aimind_memory.graphs.delivery_chain.nodes import (
    FAIL_NODE,
    GRAPH_NAME,
    DeliveryChain,
    extract_turn,
)
from aimind_memory.graphs.delivery_chain.prompts import REVIEWERS
from aimind_memory.graphs.delivery_chain.stages import LOAD, PLAN, SYNTHESIZE, TASK
from aimind_memory.graphs.delivery_chain.state import DeliveryInput, DeliveryOutput, DeliveryState


def _route(next_node: str | list[str]) -> Callable[[DeliveryState], str | list[str]]:
    def route(state: DeliveryState) -> str | list[str]:
        return FAIL_NODE if state.get("stage_errors") else next_node

    return route


def build_graph(
    model: BaseChatModel | None = None,
    *,
    models: Mapping[str, BaseChatModel] | None = None,
    checkpointer: Any = None,
) -> CompiledStateGraph[DeliveryState, SessionContext, DeliveryInput, DeliveryOutput]:
    """The delivery chain; ``models`` maps a stage name (see STAGES) to its own model.

    Without models each stage asks the model provider at run time, so the
    exported graph follows ``OPENAI_API_KEY`` (or runs offline).
    """
    chain = DeliveryChain(model, models)
    builder = StateGraph(
        DeliveryState,
        context_schema=SessionContext,
        input_schema=DeliveryInput,
        output_schema=DeliveryOutput,
    )
    # ignore: LangGraph's StateNode types no (state, config, runtime) node; it runs them.
    builder.add_node(LOAD, chain.load)  # type: ignore[arg-type]
    builder.add_node(PLAN, chain.plan)  # type: ignore[arg-type]
    builder.add_node(TASK, chain.task)
    for name in REVIEWERS:
        builder.add_node(name, chain.reviewer(name))
    builder.add_node(SYNTHESIZE, chain.synthesize)
    builder.add_node(FAIL_NODE, chain.fail)
    builder.add_node(FINAL_TURN_NODE, final_turn_node(extract_turn))  # type: ignore[arg-type]

    builder.add_edge(START, LOAD)
    builder.add_conditional_edges(LOAD, _route(PLAN), [PLAN, FAIL_NODE])
    builder.add_conditional_edges(PLAN, _route(TASK), [TASK, FAIL_NODE])
    builder.add_conditional_edges(TASK, _route(list(REVIEWERS)), [*REVIEWERS, FAIL_NODE])
    builder.add_edge(list(REVIEWERS), SYNTHESIZE)
    builder.add_conditional_edges(SYNTHESIZE, _route(FINAL_TURN_NODE), [FINAL_TURN_NODE, FAIL_NODE])
    builder.add_edge(FAIL_NODE, FINAL_TURN_NODE)
    builder.add_edge(FINAL_TURN_NODE, END)
    return builder.compile(checkpointer=checkpointer, name=GRAPH_NAME)


graph = build_graph()
