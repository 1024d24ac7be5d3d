"""The tasklist agent's own GraphState: on its own thread, never in chat memory."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict  # pydantic needs it for schemas before 3.12

Status = Literal[
    "planning",
    "clarifying",
    "drafting",
    "reviewing",
    "revising",
    "approved",
    "final",
    "blocked",
    "rejected",
    "failed",
]


class TasklistInput(TypedDict):
    """What a caller sends: messages; the latest user message is the goal."""

    messages: Annotated[list[AnyMessage], add_messages]


class TasklistOutput(TypedDict, total=False):
    """What a caller gets back: the summary message, the outcome and the artifact."""

    messages: Annotated[list[AnyMessage], add_messages]
    status: Status
    summary: str
    artifact: str | None
    tasklist: dict[str, Any] | None


class TasklistState(TypedDict, total=False):
    """The agent's own GraphState (plain JSON values, so checkpoints hold no pickled classes)."""

    messages: Annotated[list[AnyMessage], add_messages]
    goal: str
    """The goal exactly as the user typed it: the only user text memory gets."""
    goal_message_id: str | None
    goal_context: str
    """The goal with referenced documents appended: for the model only."""
    clarifications: list[str]
    question: str
    status: Status
    tasklist: dict[str, Any] | None
    notes: list[str]
    revisions: int
    instruction: str
    decision: str
    summary: str
    artifact: str | None
    asked_in_run: str
    """The run that led to the review or the question now waiting (see ``nodes``)."""
