"""The chat graph's state: the conversation view, this turn, and what the nodes pass along."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage, BaseMessage, convert_to_messages
from langgraph.channels import UntrackedValue
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict  # pydantic needs it for schemas before 3.12

from adapters.final_turn import ThreadState

AUTO_ID_PREFIX = "auto-"
"""Ids this graph gave to input messages that came without one (not client ids)."""
Source = Literal["chat", "tool", "mcp-resource"]


def turn_messages(left: Sequence[Any], right: Sequence[Any] | Any) -> list[BaseMessage]:
    """``add_messages``, but input messages without an id get a recognisable auto id."""
    incoming = [
        message
        if message.id
        else message.model_copy(update={"id": f"{AUTO_ID_PREFIX}{uuid.uuid4().hex}"})
        for message in convert_to_messages(right if isinstance(right, list | tuple) else [right])
    ]
    return add_messages(left, incoming)  # type: ignore[return-value]


class ChatInput(TypedDict):
    """What a client sends: messages; only the latest human message is used."""

    messages: Annotated[list[AnyMessage], turn_messages]


class MemoryContext(TypedDict):
    """What chat memory gave the model this turn, in plain JSON (for Studio and clients)."""

    available: bool
    """False when the run had no session or memory could not be read."""
    summaryLength: int
    pinnedDecisions: list[str]
    recentTurns: int


class ChatOutput(TypedDict, total=False):
    """The conversation as memory holds it plus this turn (question, tool loop, answer),
    and what memory gave the model."""

    messages: Annotated[list[AnyMessage], turn_messages]
    memory_context: MemoryContext


class ChatState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], turn_messages]
    """What a client shows: memory's recent turns (stored ids), then this turn's messages."""
    memory: Annotated[ThreadState | None, UntrackedValue(ThreadState)]
    """This turn's memory, read once per run; never checkpointed on the agent's thread."""
    memory_context: MemoryContext
    turn_id: str
    """The id of this turn's question in ``messages``: the turn's own messages follow it."""
    user_text: str
    model_text: str
    source: Source
    tool_rounds: int
