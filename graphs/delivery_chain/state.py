"""The delivery chain's state: what a run keeps on its own thread (never in chat memory).

Stage outputs live in ``artifacts`` as RuntimeArtifacts, failures in
``stage_errors``; both merge writes from the parallel reviewers and are reset by
the first stage, so a run on a reused thread starts from nothing.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

RESET = "__reset__"


def merge_or_reset(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Merge parallel stage writes; a write holding ``RESET`` replaces the channel instead.

    The first stage resets, so a run on a reused thread never sees the last run's outputs.
    """
    right = right or {}
    if right.get(RESET):
        return {k: v for k, v in right.items() if k != RESET}
    return {**(left or {}), **right}


def fresh(values: dict[str, Any] | None = None) -> dict[str, Any]:
    return {RESET: True, **(values or {})}


class DeliveryInput(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    requirement: str
    """Inline text, may hold ``@docs/<name>`` references; else the latest human message."""


class DeliveryOutput(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    status: str
    report: str


class DeliveryState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    requirement: str | None
    user_text: str
    user_message_id: str | None
    requirement_text: str
    rubrics: dict[str, str]
    artifacts: Annotated[dict[str, dict[str, Any]], merge_or_reset]
    stage_errors: Annotated[dict[str, dict[str, str | None]], merge_or_reset]
    status: str
    report: str
    report_message_id: str
    progress_message_id: str
    """The AI message showing the stages done so far; the report takes its place."""
