"""The chat graph's state: the thread's transcript, this turn, and what the nodes pass along.

``messages`` is the thread's own conversation as its user saw it (contract §8a). It is a
``DeltaChannel``: a checkpoint stores only the messages written in its step, not the
whole list, so a thread's storage grows with its transcript, never with the transcript
times the number of checkpoints — on every stock saver (the server's and Aegra's
``AsyncPostgresSaver`` alike), since the channel, not the saver, decides what is stored.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage, BaseMessage, RemoveMessage, convert_to_messages
from langgraph.channels import DeltaChannel, UntrackedValue
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from typing_extensions import TypedDict  # pydantic needs it for schemas before 3.12

from aimind_memory.adapters.chat_memory.final_turn import RecallHit, ThreadState

AUTO_ID_PREFIX = "auto-"
"""Ids this graph gave to input messages that came without one (not client ids)."""
TRANSCRIPT_MAX_MESSAGES = 200
"""A chat thread shows at most this many messages; the oldest go first."""
TRANSCRIPT_SNAPSHOT_EVERY = 100
"""Updates of ``messages`` (about two a turn) between two full copies of it in a
checkpoint. A read replays the writes since the last copy, walking one checkpoint per
step back to it (``langgraph dev`` walks with one query per checkpoint: its server does
not pass on the savers' one-query walk, ~0.4 ms a checkpoint); each copy costs storage.
At 100 a 100-turn thread of 1,000-character messages takes ~9x its transcript on
``langgraph dev``, and a read there walks at most ~200 checkpoints."""
_AUTO_IDS = uuid.UUID("6f1d0c52-3f7a-4b8e-9a51-2c4e8d7b1a90")
Source = Literal["chat", "tool", "mcp-resource"]


def _auto_id(anchor: str, index: int, message: BaseMessage) -> str:
    """A deterministic id for an id-less input message: the channel replays its writes to
    rebuild the list, and each replay must give the message the same id."""
    seed = f"{anchor}\x00{index}\x00{message.type}\x00{message.content}"
    return f"{AUTO_ID_PREFIX}{uuid.uuid5(_AUTO_IDS, seed).hex}"


def _incoming(anchor: str, right: Any) -> list[BaseMessage]:
    """A write's messages, those without an id given their deterministic auto id."""
    messages = convert_to_messages(right if isinstance(right, list | tuple) else [right])
    return [
        message if message.id else message.model_copy(update={"id": _auto_id(anchor, i, message)})
        for i, message in enumerate(messages)
    ]


def transcript(left: Sequence[Any], writes: Sequence[Any]) -> list[BaseMessage]:
    """The ``DeltaChannel`` reducer: each write folded in, in order, as ``add_messages``
    would (a message with a known id replaces it in place, ``RemoveMessage`` removes one
    or all), in one pass: a read replays every write since the last full copy, so the
    earlier messages are never converted or scanned again."""
    messages: list[BaseMessage | None] = list(convert_to_messages(list(left)))
    at = {m.id: i for i, m in enumerate(messages) if m is not None}
    last = len(messages) - 1
    for write in writes:
        newest = messages[last] if last >= 0 else None
        anchor = str(newest.id) if newest is not None else ""
        for message in _incoming(anchor, write):
            if isinstance(message, RemoveMessage):
                if message.id == REMOVE_ALL_MESSAGES:
                    messages, at = [], {}
                elif (index := at.pop(message.id, None)) is not None:
                    messages[index] = None
            elif (index := at.get(message.id)) is not None:
                messages[index] = message
            else:
                at[message.id] = len(messages)
                messages.append(message)
        last = max((i for i in at.values()), default=-1)
    return [m for m in messages if m is not None]


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
    recalled: Annotated[list[RecallHit] | None, UntrackedValue(list)]
    """What the session's archive holds about this turn's question (contract §5a), read
    with memory; never checkpointed."""
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
    memory_ids: list[str]
    """The memory ids of the turns this thread wrote on its branch (their questions'),
    newest last, as many as the window holds: a run from an earlier checkpoint reads
    them as they were there, to tell what this thread wrote after it from other
    threads' turns (``adapters/chat_memory/forks.py`` ``MEMORY_IDS``)."""
    replaced_ids: list[str]
    """Memory's messages this turn replaces (a regenerated answer, an edited question):
    the model's context leaves them out and the turn's write takes them out of memory."""
