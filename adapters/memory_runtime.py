"""The memory service that graph nodes use: opened lazily, one per event loop and URL.

Nodes open their own saver from ``AIMIND_DATABASE_URL`` rather than borrowing
the run's (private, and absent for stateless runs), so memory persists for
every kind of run.

A run's session is the authenticated user's identity (a session hash). LangGraph
Studio under ``langgraph dev`` is authenticated by the server itself as
``langgraph-studio-user``, not by our auth; its runs get one fixed development
identity of their own, derived from the secret with a label no session token can
spell (``:`` is outside the token alphabet), so it never meets a browser session's
memory. Outside ``langgraph dev``, and always with ``AIMIND_ENV=production``,
Studio runs have no memory.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import logging
import weakref
from contextlib import AsyncExitStack
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph_sdk.auth import is_studio_user
from pydantic import BaseModel

from adapters.dev_server import is_langgraph_dev
from memory import MemoryService, open_memory
from memory.backends import database_url
from memory.session import (
    HASH_RE,
    MEMORY_THREAD_PREFIX,
    SessionHash,
    derived_identity,
    load_secret,
)

__all__ = [
    "MEMORY_THREAD_PREFIX",
    "STUDIO_USER",
    "SessionContext",
    "close_memory",
    "get_memory",
    "session_of",
]

log = logging.getLogger("aimind.memory_runtime")

_open: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[str, tuple[AsyncExitStack, MemoryService]]
] = weakref.WeakKeyDictionary()
_opening: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


STUDIO_USER = "langgraph-studio-user"
"""The identity ``langgraph dev`` gives LangGraph Studio's requests."""


def _studio_identity() -> SessionHash | None:
    """Studio's development identity under ``langgraph dev``; None elsewhere and in production."""
    if not is_langgraph_dev():
        return None
    return derived_identity(f"studio:{STUDIO_USER}", load_secret())


# At import, i.e. at server start-up: the secret file is read once, never inside a run.
_STUDIO_IDENTITY = _studio_identity()


class SessionContext(BaseModel):
    """Run context: the session whose chat memory the run reads and writes."""

    session_id: str | None = None

    # The server asks a graph for its context schema on every run that carries a
    # context (to drop unknown keys); building it anew is a noticeable share of a
    # cheap run, so it is built once.
    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return copy.deepcopy(_context_json_schema(cls, args, tuple(sorted(kwargs.items()))))


@functools.cache
def _context_json_schema(
    cls: type[SessionContext], args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...]
) -> dict[str, Any]:
    return super(SessionContext, cls).model_json_schema(*args, **dict(kwargs))


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
    """Close every service this process opened (server shutdown, CLI exit, tests).

    Each closes on its own loop, so its pending compactions get their grace period to
    land (SPEC §5); a loop that no longer runs has nothing left to wait for.
    """
    here = asyncio.get_running_loop()
    closing = []
    for loop, services in list(_open.items()):
        del _open[loop]
        for stack, _ in services.values():
            if loop is here:
                closing.append(stack.aclose())
            elif loop.is_running():
                closing.append(
                    asyncio.wrap_future(asyncio.run_coroutine_threadsafe(stack.aclose(), loop))
                )
    for outcome in await asyncio.gather(*closing, return_exceptions=True):
        if isinstance(outcome, Exception):
            log.warning("closing chat memory failed", exc_info=outcome)


def _is_studio(user: Any, identity: Any) -> bool:
    if identity != STUDIO_USER or user is None:
        return False
    kind = user.get("kind") if isinstance(user, dict) else getattr(user, "kind", None)
    return is_studio_user(user) or kind == "StudioUser"


def session_of(config: RunnableConfig | None, context: Any) -> str | None:
    """The authenticated user's session hash (Studio's development identity for a Studio
    run under ``langgraph dev``), else run context ``session_id``, else None."""
    configurable = (config or {}).get("configurable", {})
    user = configurable.get("langgraph_auth_user")
    identity = getattr(user, "identity", None) or configurable.get("langgraph_auth_user_id")
    if isinstance(identity, str) and HASH_RE.fullmatch(identity):
        return SessionHash(identity)
    if _STUDIO_IDENTITY is not None and _is_studio(user, identity):
        return _STUDIO_IDENTITY
    if isinstance(context, dict):
        session_id = context.get("session_id")
    else:
        session_id = getattr(context, "session_id", None)
    return session_id if isinstance(session_id, str) and session_id else None
