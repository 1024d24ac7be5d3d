"""Where memory lives: the checkpointer backends and memory's threads on them (contract §10).

This package owns every byte memory stores: one module per backend (``sqlite``,
``postgres``, ``inmemory``, on the protocol in ``base``), the thread store that
reads and compare-and-puts ``chat:`` threads (``store``), the per-thread locks
and shared stamps several processes coordinate through (``locks``, ``stamps``),
increasing ids (``ids``), the PostgreSQL connection pool (``pg_pool``), the data
folder (``paths``) and the savers the servers and agents open (``checkpointer``).
It may import ``memory.config.limits`` and ``memory.models`` (the shared constants and
records) and nothing else of memory: not compaction, not the service.

The backends named by ``AIMIND_DATABASE_URL``:
``sqlite:///path`` (the embedded default), ``postgresql://…`` or ``memory``.
Each module holds its backend's SQL, the server's saver (the stock one plus the
capabilities it lacks) and memory's own compare-and-put path for ``chat:`` threads.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver

from aimind_memory.memory.config.settings import MemorySettings, backend_name, memory_settings
from aimind_memory.memory.errors import DatabaseURLError
from aimind_memory.memory.storage.base import UNCHANGED, Backend, Head, MemoryThreads
from aimind_memory.memory.storage.paths import default_database_url

DATABASE_URL_ENV = MemorySettings.env_name("database_url")

__all__ = [
    "DATABASE_URL_ENV",
    "UNCHANGED",
    "Backend",
    "DatabaseURLError",
    "Head",
    "MemoryThreads",
    "backend_of",
    "database_url",
    "open_backend",
    "open_saver",
    "sqlite_path",
]


def database_url(url: str | None = None) -> str:
    """``url``, else ``AIMIND_DATABASE_URL``, else the embedded SQLite file."""
    return url or memory_settings().database or default_database_url()


def sqlite_path(url: str) -> Path:
    """The file of a ``sqlite:///path`` URL."""
    return Path(url.removeprefix("sqlite:///"))


def backend_of(url: str) -> str:
    if (backend := backend_name(url)) is None:
        raise DatabaseURLError(
            f"{DATABASE_URL_ENV} must be sqlite:///path, postgresql://… or memory."
        )
    return backend


@asynccontextmanager
async def open_backend(url: str) -> AsyncIterator[Backend]:
    """The saver and memory's threads of the database at ``url``, ready to use."""
    backend = backend_of(url)
    if backend == "memory":
        from aimind_memory.memory.storage.inmemory import open_inmemory

        async with open_inmemory() as opened:
            yield opened
    elif backend == "sqlite":
        from aimind_memory.memory.storage.sqlite import open_sqlite

        async with open_sqlite(url) as opened:
            yield opened
    else:
        from aimind_memory.memory.storage.postgres import open_postgres

        async with open_postgres(url) as opened:
            yield opened


@asynccontextmanager
async def open_saver(url: str) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """Only the server's saver (no memory connection or lock files)."""
    if backend_of(url) == "sqlite":
        from aimind_memory.memory.storage.sqlite import open_sqlite_saver

        async with open_sqlite_saver(url) as saver:
            yield saver
    else:
        async with open_backend(url) as opened:
            yield opened.saver
