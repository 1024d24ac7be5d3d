"""Shared stamps (``memory/storage/stamps.py``): every process maps a thread to the same slot."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimind_memory.memory.storage import stamps
from aimind_memory.memory.storage.stamps import SharedStamps


def test_processes_built_with_another_slot_count_share_the_file_s_slots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older and a newer build on one database must agree, or one of them would
    trust a stamp the other no longer updates."""
    path = tmp_path / "db.sqlite.stamps"
    first = SharedStamps(path)
    monkeypatch.setattr(stamps, "STAMP_SLOTS", 16)
    second = SharedStamps(path)  # the file's size wins
    try:
        for i in range(64):
            thread = f"chat:{i:064x}"
            first.mark(thread, f"checkpoint-{i}")
            assert second.is_latest(thread, f"checkpoint-{i}")
            second.clear(thread)  # a write starts in the other process
            assert not first.is_latest(thread, f"checkpoint-{i}")
    finally:
        first.close()
        second.close()
