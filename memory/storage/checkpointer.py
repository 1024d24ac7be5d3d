"""The checkpointer of an agent graph or a server on memory's database (contract §10).

The stock saver of the backend ``AIMIND_DATABASE_URL`` names, with the
capabilities the LangGraph server asks for that it lacks (``aprune``,
``adelete_for_runs``, ``acopy_thread``), so the server's threads and the memory
threads share one database while agent threads stay on stock behaviour.
``langgraph dev``'s own (``langgraph.json`` ``checkpointer.path``) is
``adapters/server/langgraph_dev/checkpointer.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.base import BaseCheckpointSaver

from aimind_memory.memory.storage import database_url, open_saver

__all__ = ["open_checkpointer"]


@asynccontextmanager
async def open_checkpointer(url: str | None = None) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """Open a LangGraph checkpointer on memory's database, set up and ready: an agent's own
    threads beside memory's (contract §10).

    Args:
        url: ``sqlite:///path``, ``postgresql://…`` or ``memory``; default
            ``AIMIND_DATABASE_URL``, else the data folder's SQLite file.

    Yields:
        The backend's stock saver (``AsyncSqliteSaver``, ``AsyncPostgresSaver``, or
        ``InMemorySaver``), open until the block ends.

    Raises:
        DatabaseURLError: The URL names no backend memory supports.
        DatabaseUnreachableError: The URL names a PostgreSQL database that did not answer.
    """
    async with open_saver(database_url(url)) as saver:
        yield saver
