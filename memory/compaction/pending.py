"""A pending model compaction, recorded in the memory thread's checkpoint (contract §5).

The write that starts a model compaction stores a lease with its checkpoint
(metadata ``PENDING_KEY``): which messages the compaction folds and until when
its process is trusted to land it. Every later write carries the lease forward,
so any process reading the thread knows a compaction is under way:

- while the lease is live, no other write starts one (two processes never
  compact the same window at once);
- once it has expired (its process died, or was too slow), the next write that
  finds the window overflowing starts a new one, with a new lease;
- a landing puts its result only if the thread still holds its own lease
  (compare-and-put), and drops it from the thread.

If the window passes its hard bound meanwhile, the write folds it inline with the
extractive compactor and records in the lease the messages it folded beyond
those the model folds (``since``): the model's result, when it lands, becomes the
base and those messages are folded onto it, so the model's work is not thrown
away. ``since`` holds at most ``OVERTAKEN_TURNS`` turns; a compaction overtaken
by more loses its lease (its result is dropped) and the next overflow starts
another. The messages keep memory's persisted shape (``ChatThreadMessage``) and
stay in the memory thread: nothing here ever reaches an agent thread.

Expiry is judged by each reader's clock: a clock far ahead can start a second
compaction early, which costs a model call, never a turn (the first one's landing
then finds another lease and is dropped).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from aimind_memory.memory.compaction.protocol import CompactionRequest
from aimind_memory.memory.config.limits import (
    COMPACTION_LEASE_MARGIN_S,
    COMPACTION_START_DELAY_S,
    MemoryLimits,
)
from aimind_memory.memory.models import ChatThreadMessage, utcnow

PENDING_KEY = "aimind_pending"
"""Checkpoint metadata: the lease of the model compaction under way, if any."""


class PendingCompaction(BaseModel):
    """The lease of one model compaction, as stored in checkpoint metadata."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lease: str
    expires_at: datetime
    folded_ids: tuple[str, ...]
    """The messages the compaction folds (the oldest of the window when it started)."""
    since: tuple[ChatThreadMessage, ...] = ()
    """Messages folded inline since it started, beyond ``folded_ids``, oldest first."""
    summary_edited: bool = False
    """The user replaced the summary since it started: the landing keeps the user's
    summary as the base (contract §9a) and takes only the compaction's pins from the model."""

    @classmethod
    def start(cls, request: CompactionRequest, limits: MemoryLimits) -> PendingCompaction:
        ttl = COMPACTION_START_DELAY_S + limits.compaction_timeout_s + COMPACTION_LEASE_MARGIN_S
        return cls(
            lease=uuid.uuid4().hex,
            expires_at=utcnow() + timedelta(seconds=ttl),
            folded_ids=tuple(m.id for m in request.folded),
        )

    @classmethod
    def of(cls, metadata: Mapping[str, Any] | None) -> PendingCompaction | None:
        """The lease a checkpoint carries (None: none, or one this version cannot read)."""
        raw = (metadata or {}).get(PENDING_KEY)
        if raw is None:
            return None
        try:
            return cls.model_validate(raw)
        except ValidationError:
            return None

    def live(self) -> bool:
        return utcnow() < self.expires_at

    def overtaken(
        self, folded: Sequence[ChatThreadMessage], limits: MemoryLimits
    ) -> PendingCompaction | None:
        """The lease after an inline fold of ``folded``: what it folded beyond this
        compaction's messages is kept for its landing; None past ``OVERTAKEN_TURNS``."""
        mine = set(self.folded_ids)
        since = self.since + tuple(m for m in folded if m.id not in mine)
        if len(since) > limits.overtaken_max_messages:
            return None
        return self.model_copy(update={"since": since})

    def with_summary_edited(self) -> PendingCompaction:
        return self.model_copy(update={"summary_edited": True})

    def to_metadata(self) -> dict[str, Any]:
        return {PENDING_KEY: self.model_dump(mode="json")}
