"""The memory service that graph nodes use: opened lazily, one per event loop and URL.

Nodes open their own saver from ``AIMIND_DATABASE_URL`` rather than borrowing
the run's (private, and absent for stateless runs), so memory persists for
every kind of run.
"""

from __future__ import annotations

import asyncio
import weakref
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig

from memory import MemoryService, open_memory
from memory.checkpointer import database_url
from memory.session import HASH_RE, MEMORY_THREAD_PREFIX, SessionHash

__all__ = [
    "MEMORY_THREAD_PREFIX",
    "SessionContext",
    "close_memory",
    "get_memory",
    "session_of",
]

_open: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[str, tuple[AsyncExitStack, MemoryService]]
] = weakref.WeakKeyDictionary()
_opening: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


@dataclass
class SessionContext:
    """Run context for library/CLI use: ``context={"session_id": "<token>"}``."""

    session_id: str | None = None


async def get_memory() -> MemoryService:
    """The memory service for this loop and the current ``AIMIND_DATABASE_URL``."""
    loop = asyncio.get_running_loop()
    url = database_url()
    services = _open.setdefault(loop, {})
    if url in services:
        return services[url][1]
    async with _opening.setdefault(loop, asyncio.Lock()):
        if url not in services:
            stack = AsyncExitStack()
            service = await stack.enter_async_context(open_memory(url))
            services[url] = (stack, service)
    return services[url][1]


async def close_memory() -> None:
    """Close the services this loop opened (tests, CLI exit)."""
    services = _open.pop(asyncio.get_running_loop(), {})
    for stack, _ in services.values():
        await stack.aclose()


def session_of(config: RunnableConfig | None, context: Any) -> str | None:
    """The authenticated user's session hash, else run context ``session_id``, else None."""
    configurable = (config or {}).get("configurable", {})
    user = configurable.get("langgraph_auth_user")
    identity = getattr(user, "identity", None) or configurable.get("langgraph_auth_user_id")
    if isinstance(identity, str) and HASH_RE.fullmatch(identity):
        return SessionHash(identity)
    if isinstance(context, dict):
        session_id = context.get("session_id")
    else:
        session_id = getattr(context, "session_id", None)
    return session_id if isinstance(session_id, str) and session_id else None
