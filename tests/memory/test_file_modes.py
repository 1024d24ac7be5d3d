"""Data files are created 0600 whatever the umask (contract §8): the SQLite database and its
``-wal``/``-shm``, memory's lock and stamp files, the development secret."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from aimind_memory.memory import open_memory
from aimind_memory.memory.session import SECRET_FILE
from aimind_memory.memory.storage.checkpointer import open_checkpointer

from .helpers import turn

DATA_FILES = ("aimind.sqlite", "aimind.sqlite-wal", "aimind.sqlite-shm")
MEMORY_FILES = ("aimind.sqlite.lock", "aimind.sqlite.stamps")


@pytest.fixture(params=[0o000, 0o022])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def _modes(folder: Path, names: tuple[str, ...]) -> dict[str, str]:
    return {name: oct(stat.S_IMODE((folder / name).stat().st_mode)) for name in names}


async def test_memory_creates_its_files_private(tmp_path: Path, umask: int) -> None:
    folder = tmp_path / "db"
    async with open_memory(f"sqlite:///{folder / 'aimind.sqlite'}") as mem:
        assert (await mem.append_turn("file-modes-session-01", turn("private", "yes"))).written
        modes = _modes(folder, DATA_FILES + MEMORY_FILES)  # -wal/-shm exist while open
    secret = Path(os.environ["AIMIND_DATA_DIR"]) / SECRET_FILE
    modes[SECRET_FILE] = oct(stat.S_IMODE(secret.stat().st_mode))
    assert modes == dict.fromkeys([*DATA_FILES, *MEMORY_FILES, SECRET_FILE], "0o600")


async def test_the_server_checkpointer_creates_its_database_private(
    tmp_path: Path, umask: int
) -> None:
    """``langgraph.json``'s checkpointer opens the database alone (no memory files)."""
    folder = tmp_path / "db"
    async with open_checkpointer(f"sqlite:///{folder / 'aimind.sqlite'}") as saver:
        await saver.aput(
            {"configurable": {"thread_id": "agent-thread", "checkpoint_ns": ""}},
            empty_checkpoint(),
            {},
            {},
        )
        modes = _modes(folder, DATA_FILES)
    assert modes == dict.fromkeys(DATA_FILES, "0o600")
