"""What the chat page's memory panel shows: ``GET /api/chat/memory``'s DTO.

The hydration DTO (contract §9) is fixed — a 240-character summary preview and no
status — so the panel has a DTO of its own, built from
``MemoryService.snapshot()``: the whole summary (at most ``SUMMARY_CHARS``), the
pins with where each came from (contract §9a), how full the window is, how the last
compaction went (the model, or the extractive fallback after the model failed) and
whether one is pending. The
page also learns the message cap and the truncation marker from it, so it can
warn before a long message and mark restored messages that memory cut, and how long a
pin and the summary may be, so its editors say so before a save is refused.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from starlette.responses import Response

from aimind_memory.adapters.server.replies import NO_STORE, json_reply
from aimind_memory.memory import MemoryLimits, MemorySnapshot
from aimind_memory.memory.config.limits import TRUNCATION_MARKER
from aimind_memory.memory.views.hydration import PinDTO, ReplacedDTO, pin_dto, replaced_dto

__all__ = ["MemoryPanel", "memory_panel_dto", "memory_panel_reply"]

ENCODED_PANELS_MAX = 256
"""Panels kept encoded, by session and checkpoint: the page reads the panel after every
turn and every edit, and a panel of 20 pins with their sources is ~45 KB of JSON."""
_encoded: OrderedDict[tuple[str, str, MemoryLimits], bytes] = OrderedDict()


class LastCompaction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    at: str
    """ISO 8601, UTC."""
    status: Literal["succeeded", "failed"] | None = None
    """``failed``: the model compactor failed and the extractive fallback folded the turns."""
    compactor: str | None = None
    """``llm`` (the model) or ``extractive`` (no model, or the fallback)."""


class MemoryPanel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    summary: str
    pinnedDecisions: list[str]
    pins: list[PinDTO]
    """The pins with where each came from (contract §9a): ``{id, text, pinnedAt, origin,
    sources: [{messageId, role, excerpt, createdAt}], why, editedAt}``."""
    replaced: list[ReplacedDTO]
    """Decisions later ones replaced, newest last: ``{id, text, replacedBy, replacedAt,
    why}`` (contract §5, "Memory says why")."""
    turnsInWindow: int
    summaryLength: int
    lastCompaction: LastCompaction | None
    pending: bool
    """A compaction is due or running: the summary will change when it lands."""
    messageCharCap: int
    truncationMarker: str
    pinCharCap: int
    """A pin's text at most (``PIN_CHARS`` unless configured)."""
    summaryCharCap: int
    """The summary at most (``SUMMARY_CHARS`` unless configured)."""


def _last_compaction(snapshot: MemorySnapshot) -> LastCompaction | None:
    recorded = snapshot.last_compaction
    if isinstance(recorded, dict) and isinstance(recorded.get("at"), str):
        return LastCompaction.model_validate(
            {k: recorded.get(k) for k in ("at", "status", "compactor")}
        )
    at = snapshot.state.last_compacted_at  # written before compactions were recorded
    return LastCompaction(at=at.isoformat()) if at else None


def memory_panel_dto(snapshot: MemorySnapshot | None, limits: MemoryLimits) -> dict[str, Any]:
    """The panel's DTO for ``snapshot`` (None: a session with no memory yet)."""
    state = snapshot.state if snapshot else None
    dto = MemoryPanel(
        summary=state.summary if state else "",
        pinnedDecisions=list(state.pinned_decisions) if state else [],
        pins=[],  # built below: the pins are records already, not validated a second time
        replaced=[],
        turnsInWindow=sum(m.role == "user" for m in state.messages) if state else 0,
        summaryLength=len(state.summary) if state else 0,
        lastCompaction=_last_compaction(snapshot) if snapshot else None,
        pending=snapshot.pending if snapshot else False,
        messageCharCap=limits.message_char_cap,
        truncationMarker=TRUNCATION_MARKER,
        pinCharCap=limits.pin_chars,
        summaryCharCap=limits.summary_chars,
    ).model_dump()
    dto["pins"] = [pin_dto(p) for p in state.pins] if state else []
    dto["replaced"] = [replaced_dto(r) for r in state.replaced] if state else []
    return dto  # the reply that sends it passes it through the field guard


def memory_panel_reply(identity: str, snapshot: MemorySnapshot, limits: MemoryLimits) -> Response:
    """The panel as a reply: built, guarded (``json_reply``) and encoded once per stored
    version of the session's memory, then served from that copy until memory changes."""
    if snapshot.version is None:
        return json_reply(memory_panel_dto(snapshot, limits))
    key = (identity, snapshot.version, limits)
    body = _encoded.get(key)
    if body is None:
        # starlette types a body bytes | memoryview; a copy of the panel's few KB is bytes
        body = bytes(json_reply(memory_panel_dto(snapshot, limits)).body)
        _encoded[key] = body
        while len(_encoded) > ENCODED_PANELS_MAX:
            _encoded.popitem(last=False)
    else:
        _encoded.move_to_end(key)
    return Response(body, media_type="application/json", headers=NO_STORE)
