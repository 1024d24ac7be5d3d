"""What memory shows a client (contract §9, §9a): the hydration DTO, pins with their
provenance, and the export — safe text, never runtime state."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from aimind_memory.memory.config.limits import SUMMARY_PREVIEW_CHARS
from aimind_memory.memory.models import Pin, ReplacedPin, ThreadState
from aimind_memory.memory.storage.archive import ArchivedMessage
from aimind_memory.memory.views.guard import assert_no_forbidden_fields


class HydratedMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    role: Literal["user", "assistant"]
    text: str
    createdAt: str


class HydrationDTO(BaseModel):
    model_config = ConfigDict(extra="forbid")

    threadId: str
    messages: list[HydratedMessage]
    summaryPreview: str | None = None
    pinnedDecisions: list[str]
    restored: bool


def hydration_dto(thread_id: str, state: ThreadState | None) -> dict[str, Any]:
    """The DTO for ``state`` (None: an empty one), checked by the forbidden-field guard."""
    state = state or ThreadState()
    dto = HydrationDTO(
        threadId=thread_id,
        messages=[
            HydratedMessage(id=m.id, role=m.role, text=m.text, createdAt=m.created_at.isoformat())
            for m in state.messages
        ],
        summaryPreview=state.summary[:SUMMARY_PREVIEW_CHARS] or None,
        pinnedDecisions=list(state.pinned_decisions),
        restored=not state.is_empty,
    ).model_dump(exclude_none=True)
    assert_no_forbidden_fields(dto)
    return dto


class PinSourceDTO(BaseModel):
    model_config = ConfigDict(extra="forbid")

    messageId: str
    role: Literal["user", "assistant"]
    excerpt: str
    createdAt: str | None


class PinDTO(BaseModel):
    """A pin as the routes show it: ``{id, text, pinnedAt, origin, sources}`` (contract §9a)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    text: str
    pinnedAt: str | None
    origin: Literal["extractive", "model", "user"]
    sources: list[PinSourceDTO]
    why: str
    """Why it is pinned, in one short sentence (empty on a pin stored before pins said why)."""
    editedAt: str | None
    """When the user last changed its text; None: never."""


class ReplacedDTO(BaseModel):
    """A decision a later one replaced: ``{id, text, replacedBy, replacedAt, why}``."""

    model_config = ConfigDict(extra="forbid")

    id: str
    text: str
    replacedBy: str | None
    replacedAt: str
    why: str


def pin_dto(pin: Pin) -> dict[str, Any]:
    """A pin as ``PinDTO`` describes it, built as plain dicts: a panel lists up to 20 pins
    of up to 16 sources each, and the caller's DTO passes the field guard whole."""
    return {
        "id": pin.id,
        "text": pin.text,
        "pinnedAt": pin.pinned_at.isoformat() if pin.pinned_at else None,
        "origin": pin.origin,
        "sources": [
            {
                "messageId": s.message_id,
                "role": s.role,
                "excerpt": s.excerpt,
                "createdAt": s.created_at.isoformat() if s.created_at else None,
            }
            for s in pin.sources
        ],
        "why": pin.why,
        "editedAt": pin.edited_at.isoformat() if pin.edited_at else None,
    }


def replaced_dto(replaced: ReplacedPin) -> dict[str, Any]:
    """A replaced decision as ``ReplacedDTO`` describes it."""
    return {
        "id": replaced.id,
        "text": replaced.text,
        "replacedBy": replaced.replaced_by,
        "replacedAt": replaced.replaced_at.isoformat(),
        "why": replaced.why,
    }


EXPORT_FORMAT = "aimind-memory/1"


def export_dto(
    thread_id: str,
    state: ThreadState,
    last_compaction: dict[str, Any] | None = None,
    archived: Sequence[ArchivedMessage] = (),
) -> dict[str, Any]:
    """A session's whole memory as one JSON document (contract §9a ``export``), with the
    archive of its folded turns (contract §5a), oldest first."""
    dto = {
        "format": EXPORT_FORMAT,
        "threadId": thread_id,
        "summary": state.summary,
        "pins": [pin_dto(p) for p in state.pins],
        "pinnedDecisions": list(state.pinned_decisions),
        "messages": [
            {"id": m.id, "role": m.role, "text": m.text, "createdAt": m.created_at.isoformat()}
            for m in state.messages
        ],
        "lastCompactedAt": state.last_compacted_at.isoformat() if state.last_compacted_at else None,
        "lastCompaction": last_compaction,
        "unpinned": list(state.unpinned),
        "replaced": [replaced_dto(r) for r in state.replaced],
        "archive": [
            {"id": m.message_id, "role": m.role, "text": m.text, "createdAt": _iso(m.created_at)}
            for m in archived
        ],
    }
    assert_no_forbidden_fields(dto)
    return dto


def _iso(moment: datetime) -> str:
    """A stored time as ISO 8601, in UTC when it has no zone (SQLite keeps what it was given)."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()
