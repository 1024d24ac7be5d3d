"""The chat graph's state: the thread's transcript, this turn, and what the nodes pass along.

``messages`` is the thread's own conversation as its user saw it (SPEC §8a). It is a
``DeltaChannel``: a checkpoint stores only the messages written in its step, not the
whole list, so a thread's storage grows with its transcript, never with the transcript
times the number of checkpoints — on every stock saver (the server's and Aegra's
``AsyncPostgresSaver`` alike), since the channel, not the saver, decides what is stored.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage, BaseMessage, convert_to_messages
from langgraph.channels import DeltaChannel, UntrackedValue
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict  # pydantic needs it for schemas before 3.12

from adapters.final_turn import ThreadState

AUTO_ID_PREFIX = "auto-"
"""Ids this graph gave to input messages that came without one (not client ids)."""
TRANSCRIPT_MAX_MESSAGES = 200
"""A chat thread shows at most this many messages; the oldest go first."""
TRANSCRIPT_SNAPSHOT_EVERY = 100
"""Updates of ``messages`` between two full copies of it in a checkpoint: the cost of
reading a thread (the writes since the last copy are replayed) against its storage."""
_AUTO_IDS = uuid.UUID("6f1d0c52-3f7a-4b8e-9a51-2c4e8d7b1a90")
Source = Literal["chat", "tool", "mcp-resource"]


def _auto_id(anchor: str, index: int, message: BaseMessage) -> str:
    """A deterministic id for an id-less input message: the channel replays its writes to
    rebuild the list, and each replay must give the message the same id."""
    seed = f"{anchor}\x00{index}\x00{message.type}\x00{message.content}"
    return f"{AUTO_ID_PREFIX}{uuid.uuid5(_AUTO_IDS, seed).hex}"


def turn_messages(left: Sequence[Any], right: Sequence[Any] | Any) -> list[BaseMessage]:
    """``add_messages``, but input messages without an id get a recognisable auto id."""
    anchor = str(left[-1].id) if left else ""
    incoming = [
        message if message.id else message.model_copy(update={"id": _auto_id(anchor, i, message)})
        for i, message in enumerate(
            convert_to_messages(right if isinstance(right, list | tuple) else [right])
        )
    ]
    return add_messages(left, incoming)  # type: ignore[return-value]


def transcript(left: Sequence[Any], writes: Sequence[Any]) -> list[BaseMessage]:
    """The ``DeltaChannel`` reducer: every write folded in, in order (batching-invariant)."""
    messages = list(left)
    for write in writes:
        messages = turn_messages(messages, write)
    return messages


Messages = Annotated[
    list[AnyMessage], DeltaChannel(transcript, snapshot_frequency=TRANSCRIPT_SNAPSHOT_EVERY)
]


class ChatInput(TypedDict):
    """What a client sends: messages; only the latest human message is used."""

    messages: Messages


class MemoryContext(TypedDict):
    """What chat memory gave the model this turn, in plain JSON (for Studio and clients)."""

    available: bool
    """False when the run had no session or memory could not be read."""
    summaryLength: int
    pinnedDecisions: list[str]
    recentTurns: int


class ChatOutput(TypedDict, total=False):
    """The thread's transcript and what memory gave the model."""

    messages: Messages
    memory_context: MemoryContext


class ChatState(TypedDict, total=False):
    messages: Messages
    """The thread's transcript (user-visible text), then this turn's tool loop while it runs."""
    memory: Annotated[ThreadState | None, UntrackedValue(ThreadState)]
    """This turn's memory, read once per run; never checkpointed on the agent's thread."""
    memory_context: MemoryContext
    turn_id: str
    """The id of this turn's question in ``messages``: the turn's own messages follow it."""
    transcript_end: str
    """The id of the transcript's last message when the latest turn ended: what a run's
    input adds comes after it."""
    model_text: str
    """The question with its referenced documents, for the model; "" when it has none."""
    source: Source
    tool_rounds: int
