"""Fixtures for the delivery-chain tests: chat memory on the ``db_url`` backend."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from aimind_memory.adapters.chat_memory.runtime import close_memory
from aimind_memory.memory.storage import DATABASE_URL_ENV


@pytest.fixture
async def memory_url(db_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    """Graphs write chat memory to ``db_url`` (real SQLite file / real Postgres)."""
    monkeypatch.setenv(DATABASE_URL_ENV, db_url)
    yield db_url
    await close_memory()
