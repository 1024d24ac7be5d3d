"""Checkpoint ids of memory threads: time-ordered, and always greater than the parent's.

LangGraph takes a thread's latest checkpoint to be the one with the greatest id,
and its ids are UUIDv6 strings whose order is their timestamp's. A writer whose
clock is behind (a second server, an NTP step back) would write a child that
sorts *before* its parent: the turn is reported written and never read again.
So a memory checkpoint's timestamp is the later of the local clock and the
parent's timestamp plus one tick (contract §8), and the compare-and-put checks the
parent, not the clock.
"""

from __future__ import annotations

import random
import time
import uuid

_UUID_EPOCH_TICKS = 0x01B21DD213814000
"""100 ns ticks from the UUID epoch (1582-10-15) to the Unix epoch."""
_VERSION = 6


def _ticks_now() -> int:
    return time.time_ns() // 100 + _UUID_EPOCH_TICKS


def _timestamp(checkpoint_id: str) -> int | None:
    """The 60-bit timestamp of a UUIDv6 id, or None for any other id."""
    try:
        value = uuid.UUID(checkpoint_id)
    except ValueError:
        return None
    if value.version != _VERSION:
        return None
    return (value.int >> 80) << 12 | (value.int >> 64) & 0x0FFF


def _uuid6(ticks: int) -> str:
    value = ((ticks >> 12) & 0xFFFFFFFFFFFF) << 80
    value |= (_VERSION << 12 | ticks & 0x0FFF) << 64
    value |= (0x8000 | random.getrandbits(14)) << 48  # RFC 4122 variant + clock sequence
    value |= random.getrandbits(48)
    return str(uuid.UUID(int=value))


def next_checkpoint_id(parent_id: str | None) -> str:
    """A UUIDv6 id that sorts after ``parent_id`` whatever the local clock says."""
    ticks = _ticks_now()
    if parent_id is not None:
        parent_ticks = _timestamp(parent_id)
        if parent_ticks is not None:
            ticks = max(ticks, parent_ticks + 1)
    child = _uuid6(ticks)
    while parent_id is not None and child <= parent_id:  # a parent id of another kind
        ticks += 1
        child = _uuid6(ticks)
    return child
