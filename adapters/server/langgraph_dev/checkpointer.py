"""``langgraph dev``'s checkpointer (``langgraph.json`` ``checkpointer.path``, contract §10):
the server's threads on the database memory uses (``AIMIND_DATABASE_URL``).

Opened as the server starts: a database it cannot reach (or a URL it cannot use) stops
the server with memory's one sentence naming the setting and exit status 1
(``exit_on_bad_settings``), not a traceback of the server's start-up around it, within
seconds (the pool's ``AIMIND_PG_RECONNECT_TIMEOUT_S``, then one direct connection).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from langgraph.checkpoint.base import BaseCheckpointSaver

from aimind_memory.adapters.settings import exit_on_bad_settings
from aimind_memory.memory.storage.checkpointer import open_checkpointer

__all__ = ["server_checkpointer"]


@asynccontextmanager
async def server_checkpointer() -> AsyncIterator[BaseCheckpointSaver[str]]:
    """The saver ``AIMIND_DATABASE_URL`` names, open for the server's life."""
    async with AsyncExitStack() as stack:
        with exit_on_bad_settings(at_once=True):  # the opening only: later is the server's
            saver = await stack.enter_async_context(open_checkpointer())
        yield saver
