"""A small graph for the run-queue tests: a node that sleeps, then an optional question.

Input ``{"label": "A", "sleep": 1.0, "ask": false}``. ``log`` gathers the labels of
the runs that finished their work on the thread, in order; ``started`` the wall
time each run's work began. With ``ask`` the run pauses at a human interrupt and
logs ``"<label>:<answer>"`` once resumed.
"""

from __future__ import annotations

import asyncio
import operator
import time
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class QueueState(TypedDict, total=False):
    label: str
    sleep: float
    ask: bool
    log: Annotated[list[str], operator.add]
    started: Annotated[list[float], operator.add]


async def work(state: QueueState) -> dict[str, Any]:
    started = time.time()
    await asyncio.sleep(state.get("sleep", 0.0))
    return {"log": [state["label"]], "started": [started]}


def ask(state: QueueState) -> dict[str, Any]:
    answer = interrupt(f"continue {state['label']}?")
    return {"log": [f"{state['label']}:{answer}"]}


def _after_work(state: QueueState) -> str:
    return "ask" if state.get("ask") else END


builder = StateGraph(QueueState)
builder.add_node("work", work)
builder.add_node("ask", ask)
builder.add_edge(START, "work")
builder.add_conditional_edges("work", _after_work, ["ask", END])
builder.add_edge("ask", END)
graph = builder.compile()
