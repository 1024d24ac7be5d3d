"""Pydantic models at the memory boundary: persisted state, turns, compaction output."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memory.limits import MESSAGE_ID_MAX_CHARS
from memory.text import storable_id, storable_text

Role = Literal["user", "assistant"]
Source = Literal["chat", "tool", "mcp-resource", "tasklist-agent", "delivery-chain"]
WRITABLE_STATUSES: frozenset[str] = frozenset({"completed", "final", "blocked"})


def utcnow() -> datetime:
    return datetime.now(UTC)


def _storable_id(value: Any) -> Any:
    """Before validation: an id no backend could store becomes its stand-in. On stored
    messages too, so a window an earlier version wrote with one heals when read."""
    return storable_id(value) if isinstance(value, str) else value


class ChatThreadMessage(BaseModel):
    """One persisted message: user-visible plain text and nothing else (SPEC §3)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=MESSAGE_ID_MAX_CHARS)
    role: Role
    text: str
    created_at: datetime

    @field_validator("id", mode="before")
    @classmethod
    def _storable_id(cls, value: Any) -> Any:
        return _storable_id(value)

    @field_validator("text", mode="before")
    @classmethod
    def _storable_text(cls, value: Any) -> Any:
        """Without the characters no backend stores (NUL, lone surrogates …)."""
        return storable_text(value) if isinstance(value, str) else value

    @field_validator("text")
    @classmethod
    def _non_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("message text must not be blank")
        return value


class ThreadState(BaseModel):
    """The chat-memory thread: recent window, bounded summary, durable pins (SPEC §3)."""

    model_config = ConfigDict(extra="forbid")

    messages: list[ChatThreadMessage] = Field(default_factory=list)
    summary: str = ""
    pinned_decisions: list[str] = Field(default_factory=list)
    last_compacted_at: datetime | None = None

    @property
    def is_empty(self) -> bool:
        return not (self.messages or self.summary or self.pinned_decisions)

    def to_channels(self) -> dict[str, Any]:
        """Plain JSON values for the checkpoint: no pickled classes at rest."""
        return self.model_dump(mode="json")


class FinalTurn(BaseModel):
    """What a graph's final-turn adapter hands to memory (SPEC §4).

    Texts are typed loosely on purpose: a non-string text is a turn that is
    skipped, not a crash in the middle of someone's run.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_text: Any
    assistant_text: Any
    status: str
    source: Source = "chat"
    user_message_id: str | None = Field(default=None, min_length=1, max_length=MESSAGE_ID_MAX_CHARS)
    assistant_message_id: str | None = Field(
        default=None, min_length=1, max_length=MESSAGE_ID_MAX_CHARS
    )

    @field_validator("user_message_id", "assistant_message_id", mode="before")
    @classmethod
    def _storable_id(cls, value: Any) -> Any:
        return _storable_id(value)


class CompactionOutput(BaseModel):
    """The only thing taken from a compaction model: exactly these two keys."""

    model_config = ConfigDict(extra="forbid")

    summary: str
    pinned_decisions: list[str]


SkipReason = Literal["status", "empty", "duplicate", "memory-unavailable"]


class AppendResult(BaseModel):
    written: bool
    skipped: SkipReason | None = None
    compacted: bool = False
    compactor: str | None = None
    """The ``name`` of the compactor that folded this turn (any ``Compactor``), if one ran."""
    pending: bool = False
    """The window overflowed and a model compaction was started after the write (SPEC §5)."""
