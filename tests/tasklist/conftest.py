"""Fixtures: the agent's saver and chat memory on the same real database (SQLite and Postgres)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver

from aimind_memory.adapters.chat_memory.runtime import close_memory, get_memory
from aimind_memory.memory import MemoryService, open_checkpointer


@pytest.fixture
async def saver(db_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[BaseCheckpointSaver]:
    """The agent's checkpointer; AIMIND_DATABASE_URL points memory at the same database."""
    monkeypatch.setenv("AIMIND_DATABASE_URL", db_url)
    async with open_checkpointer(db_url) as opened:
        try:
            yield opened
        finally:
            await close_memory()


@pytest.fixture
async def memory(saver: BaseCheckpointSaver) -> MemoryService:
    return await get_memory()
