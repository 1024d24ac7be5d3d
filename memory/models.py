"""Pydantic models at the memory boundary: persisted state, turns, compaction output."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from aimind_memory.memory.config.limits import MESSAGE_ID_MAX_CHARS
from aimind_memory.memory.text import storable_id, storable_text

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
    """One persisted message: user-visible plain text and nothing else (contract §3)."""

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


PIN_PROVENANCE_CHANNEL = "pin_provenance"
"""The stored channel of the pins' sources: pin id → its sources (``ThreadState``)."""
PinOrigin = Literal["extractive", "model", "user"]
"""Who pinned it: the extractive compactor, a model compactor, or the user (contract §9a)."""
PIN_ID_PREFIX = "pin-"


def new_pin_id() -> str:
    return f"{PIN_ID_PREFIX}{uuid.uuid4().hex[:16]}"


def legacy_pin_id(text: str) -> str:
    """The id of a pin stored before pins had records: the same on every read of it."""
    return f"{PIN_ID_PREFIX}{hashlib.sha256(text.encode()).hexdigest()[:16]}"


class PinSource(BaseModel):
    """A message a pin was taken from, as it was when folded (contract §9a)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    message_id: str
    """The id of the message in memory's window (or the client's, for an older one)."""
    role: Role
    """Who said it: ``"user"`` or ``"assistant"``."""
    excerpt: str
    """At most ``PIN_EXCERPT_CHARS`` of the message: where the pin was said."""
    created_at: datetime | None = None
    """When it was said; None when no one knew: a message the user pinned from further back
    than memory's window, described by a page that was not open when it was said."""


class Pin(BaseModel):
    """One pinned decision and where it came from. Its id stays while it lives: an edit
    changes its text (and makes it the user's), never its id."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(default_factory=new_pin_id, min_length=1, max_length=64)
    """Stable while the pin lives: what ``edit_pin`` and ``unpin`` name."""
    text: str
    """The decision, as the model is told it."""
    origin: PinOrigin
    """Who pinned it: ``"extractive"`` or ``"model"`` (a compactor), or ``"user"``."""
    pinned_at: datetime | None = None
    """None only for a pin stored before pins had records, on a thread never compacted."""
    sources: tuple[PinSource, ...] = ()
    """The messages it was taken from, oldest first; none for a pin written by hand."""
    why: str = ""
    """Why it is pinned, in one short sentence (contract §5, "Memory says why"): the signal
    and the words that fired it, "pinned by you", or the model's citation. Empty only on a
    pin stored before pins said why."""
    edited_at: datetime | None = None
    """When the user last changed its text (None: never): the panel marks it edited."""


class ReplacedPin(BaseModel):
    """A decision a later one replaced (contract §5): kept for its user to see — the panel,
    the export, ``aimind memory show`` — and never in the model's context."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    """The replaced pin's id."""
    text: str
    replaced_by: str | None = None
    """The id of the pin that replaced it; None when nothing took its place (a reversal:
    "we're not using AWS after all")."""
    replaced_at: datetime
    why: str = ""
    """Why it was replaced: the signal and its words ("a correction: 'instead of
    PostgreSQL'")."""


class ThreadState(BaseModel):
    """The chat-memory thread: recent window, bounded summary, durable pins (contract §3).

    ``pins`` are the pinned decisions with their provenance (contract §9a);
    ``pinned_decisions`` is their text, in order — what the model is told. A state
    given only ``pinned_decisions`` (one stored before pins had records, or built by
    hand) gets a record per pin with what can be known: a stable id, ``extractive``,
    and the last compaction's time. ``unpinned`` holds the comparison keys of pins the
    user removed, and of the old wording of pins the user edited, so that no compaction
    pins them again; ``replaced`` the decisions later ones replaced, for the user (never
    the model).

    Stored (``to_channels``), a pin's sources are a channel of their own, ``pin_provenance``
    (pin id → its sources), beside the pins' records: they are most of a pin's bytes and
    change only when pins come or go, so the user's edit of a pin's text writes the small
    records, not every pin's excerpts again (on PostgreSQL each changed channel is a new
    row). A pin stored with its sources inline (before that channel) reads as it was.
    """

    model_config = ConfigDict(extra="forbid")

    messages: list[ChatThreadMessage] = Field(default_factory=list)
    """The recent turns verbatim, a user message then its answer, oldest first."""
    summary: str = ""
    """Older turns, compacted; at most ``AIMIND_SUMMARY_CHARS`` characters."""
    pins: list[Pin] = Field(default_factory=list)
    """The pinned decisions with their provenance, oldest first."""
    last_compacted_at: datetime | None = None
    """When turns were last folded into the summary; None: never."""
    unpinned: list[str] = Field(default_factory=list)
    """Comparison keys of the pins the user removed: no compaction pins them again."""
    replaced: list[ReplacedPin] = Field(default_factory=list)
    """Decisions later ones replaced, newest last, at most ``REPLACED_MAX``: the user's
    history of changes, never the model's context."""

    @model_validator(mode="before")
    @classmethod
    def _stored_sources(cls, data: Any) -> Any:
        """Each pin's sources from ``pin_provenance``, as ``to_channels`` stores them."""
        if not isinstance(data, dict) or PIN_PROVENANCE_CHANNEL not in data:
            return data
        data = dict(data)
        sources = data.pop(PIN_PROVENANCE_CHANNEL) or {}
        if sources and isinstance(data.get("pins"), list):
            data["pins"] = [
                {**p, "sources": sources[p["id"]]}
                if isinstance(p, dict) and p.get("id") in sources
                else p
                for p in data["pins"]
            ]
        return data

    @model_validator(mode="before")
    @classmethod
    def _pins_from_texts(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "pinned_decisions" not in data:
            return data
        data = dict(data)
        texts = data.pop("pinned_decisions")
        if data.get("pins") or not texts:
            return data  # the records are the truth; the texts are derived from them
        at = data.get("last_compacted_at")
        data["pins"] = [
            {"id": legacy_pin_id(t), "text": t, "origin": "extractive", "pinned_at": at}
            for t in texts
        ]
        return data

    @computed_field  # type: ignore[prop-decorator]  # mypy reads no decorator over a property
    @property
    def pinned_decisions(self) -> list[str]:
        """The pins' texts, oldest first: what the model is told to follow."""
        return [p.text for p in self.pins]

    @property
    def is_empty(self) -> bool:
        return not (self.messages or self.summary or self.pins)

    def without_turns(self, ids: Collection[str]) -> ThreadState:
        """This state without some turns of its window (the question and its answer
        leave together, so the window stays turns).

        Args:
            ids: Message ids; a turn either of whose messages is named leaves.

        Returns:
            A copy without those turns; this state itself when none is named.
        """
        if not any(m.id in ids for m in self.messages):
            return self
        turns = [self.messages[i : i + 2] for i in range(0, len(self.messages), 2)]
        kept = [m for pair in turns if not any(m.id in ids for m in pair) for m in pair]
        return self.model_copy(update={"messages": kept})

    def to_channels(self) -> dict[str, Any]:
        """The state as a checkpoint stores it.

        Returns:
            Plain JSON values per channel (no pickled classes at rest), the pins' sources
            in ``pin_provenance`` (the class's docstring says why).
        """
        channels = self.model_dump(mode="json")
        sources = {}
        for pin in channels["pins"]:
            if said := pin.pop("sources"):
                sources[pin["id"]] = said
        channels[PIN_PROVENANCE_CHANNEL] = sources
        return channels


class FinalTurn(BaseModel):
    """What a graph's final-turn adapter hands to memory (contract §4).

    Texts are typed loosely on purpose: a non-string text is a turn that is
    skipped, not a crash in the middle of someone's run.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_text: Any
    """The user's message, as plain text."""
    assistant_text: Any
    """The final answer's user-visible text (never tool calls or results)."""
    status: str
    """The run's outcome: only a finished turn is written (``"completed"``, ``"final"``,
    ``"blocked"``); any other is skipped."""
    source: Source = "chat"
    """What produced the turn: ``"chat"``, ``"tool"``, ``"mcp-resource"``,
    ``"tasklist-agent"`` or ``"delivery-chain"``."""
    user_message_id: str | None = Field(default=None, min_length=1, max_length=MESSAGE_ID_MAX_CHARS)
    """The client's id of the user message, kept as memory's (a repeat is a duplicate)."""
    assistant_message_id: str | None = Field(
        default=None, min_length=1, max_length=MESSAGE_ID_MAX_CHARS
    )
    """The client's id of the answer, kept as memory's."""

    @field_validator("user_message_id", "assistant_message_id", mode="before")
    @classmethod
    def _storable_id(cls, value: Any) -> Any:
        return _storable_id(value)


class CompactionOutput(BaseModel):
    """The only thing taken from a compactor: exactly these keys (contract §5)."""

    model_config = ConfigDict(extra="forbid")

    summary: str
    """The new summary: the old one with the folded turns merged in."""
    pinned_decisions: list[str]
    """The decisions that hold now, verbatim."""
    replaced_decisions: list[str] = Field(default_factory=list)
    """Previous pins, verbatim, that newer decisions replace: the merge drops exactly these
    (a previous pin left out of ``pinned_decisions`` without being named here stays)."""


class ExplainedOutput(CompactionOutput):
    """A compaction's output with the reasons the offline engine knows (contract §5,
    "Memory says why"). Never asked of a model: its structured output is
    ``CompactionOutput``, and a model's pins say why by what they cite."""

    superseded: list[str] = Field(default_factory=list)
    """Decisions of the folded turns that a later one of the same turns replaced: never
    pinned, but a change the user made all the same (the ``replaced`` list shows it)."""
    why: dict[str, str] = Field(default_factory=dict)
    """Each new pin's text → why it is pinned ("a decision: 'we decided' + 'PostgreSQL'")."""
    replaced_by: dict[str, str] = Field(default_factory=dict)
    """Each replaced or superseded decision's text → the text of the pin that replaced it
    (absent: nothing took its place, a reversal)."""
    replaced_why: dict[str, str] = Field(default_factory=dict)
    """Each replaced or superseded decision's text → why ("a correction: 'instead of
    PostgreSQL'")."""


SkipReason = Literal["status", "empty", "duplicate", "memory-unavailable"]


class AppendResult(BaseModel):
    """What ``MemoryService.append_turn`` did with a turn."""

    written: bool
    """False when the turn was skipped (``skipped`` says why)."""
    skipped: SkipReason | None = None
    """Why it was not written: ``"status"`` (the run did not complete), ``"empty"``,
    ``"duplicate"`` or ``"memory-unavailable"``."""
    compacted: bool = False
    """Older turns were folded into the summary by this write."""
    compactor: str | None = None
    """The ``name`` of the compactor that folded this turn (any ``Compactor``), if one ran."""
    pending: bool = False
    """The window overflowed and a model compaction was started after the write (contract §5)."""
    message_ids: tuple[str, ...] = ()
    """The ids the turn's two messages were stored under (the caller's, or memory's own
    when it sent none): what a caller names to replace this turn later."""
    replaced: int = 0
    """Turns of the window that the write replaced (``append_turn(..., replaces=...)``)."""
