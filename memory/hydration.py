"""The hydration DTO (SPEC §9): safe text for a page refresh, never runtime state."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from memory.guard import assert_no_forbidden_fields
from memory.limits import SUMMARY_PREVIEW_CHARS
from memory.models import ThreadState


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
