"""The memory service that graph nodes and the agent middleware use: opened lazily, one
per event loop and set of options, closed at shutdown.

Nodes open their own saver from ``AIMIND_DATABASE_URL`` rather than borrowing
the run's (private, and absent for stateless runs), so memory persists for
every kind of run.

Each service lives in a task of its own that holds ``open_memory`` open until
``close_memory()`` (the server's shutdown, the CLI's exit) — or until the loop shuts
down: ``asyncio.run`` cancels every task before it closes its loop, so a script that
never calls ``close_memory()`` still closes memory in order, pending compactions
first, instead of leaving the loop to finalise the open context managers one by one.

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
import contextvars
import copy
import functools
import logging
import weakref
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph_sdk.auth import is_studio_user
from pydantic import BaseModel

from adapters.engine import is_langgraph_dev
from memory import Compactor, MemoryLimits, MemoryService, open_memory
from memory.session import (
    HASH_RE,
    MEMORY_THREAD_PREFIX,
    SessionHash,
    derived_identity,
    load_secret,
)
from memory.storage import database_url

__all__ = [
    "MEMORY_THREAD_PREFIX",
    "STUDIO_USER",
    "SessionContext",
    "close_memory",
    "get_memory",
    "session_of",
]

log = logging.getLogger("aimind.memory_runtime")

ServiceKey = tuple[str, int | None, MemoryLimits | None]
"""A service's database URL, compactor (by identity) and limits."""


@dataclass(frozen=True, slots=True)
class _Held:
    """An open service, the task holding it open, and what tells that task to close it."""

    service: MemoryService
    stop: asyncio.Event
    task: asyncio.Task[None]
    compactor: object
    """Kept alive while the service is: its key holds only its ``id``."""


_open: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[ServiceKey, _Held]] = (
    weakref.WeakKeyDictionary()
)
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


async def get_memory(
    url: str | None = None,
    *,
    compactor: Compactor | BaseChatModel | None = None,
    limits: MemoryLimits | None = None,
) -> MemoryService:
    """The memory service for this loop and these options (``open_memory``'s); ``url``
    None means the current ``AIMIND_DATABASE_URL``. Callers with the same options share
    one service."""
    loop = asyncio.get_running_loop()
    key: ServiceKey = (database_url(url), None if compactor is None else id(compactor), limits)
    services = _open.setdefault(loop, {})
    if key in services:
        return services[key].service
    async with _opening.setdefault(loop, asyncio.Lock()):
        if key not in services:
            services[key] = await _hold(key[0], compactor, limits)
    return services[key].service


async def _hold(
    url: str, compactor: Compactor | BaseChatModel | None, limits: MemoryLimits | None
) -> _Held:
    """Open a service in a task that keeps it open until told to stop or cancelled."""
    loop = asyncio.get_running_loop()
    opened: asyncio.Future[MemoryService] = loop.create_future()
    opened.add_done_callback(lambda f: f.cancelled() or f.exception())  # read by a waiter
    stop = asyncio.Event()

    async def keep_open() -> None:
        try:
            async with open_memory(url, compactor=compactor, limits=limits) as service:
                opened.set_result(service)
                await stop.wait()
        except asyncio.CancelledError:
            if not opened.done():
                opened.cancel()
            raise
        except Exception as exc:
            if not opened.done():
                opened.set_exception(exc)
            else:
                log.warning("closing chat memory failed (%s)", type(exc).__name__)

    # A fresh context: the task outlives the run that opened it and must not carry its
    # config or callbacks.
    task = loop.create_task(keep_open(), name="aimind-memory", context=contextvars.Context())
    try:
        service = await asyncio.shield(opened)
    except asyncio.CancelledError:
        stop.set()  # the caller gave up: close it once it is open
        raise
    return _Held(service, stop, task, compactor)


async def _release(held: _Held) -> None:
    held.stop.set()
    await held.task


async def close_memory() -> None:
    """Close every service this process opened (server shutdown, CLI exit, tests).

    Each closes on its own loop, so its pending compactions get their grace period to
    land (contract §5); a loop that no longer runs has nothing left to wait for.
    """
    here = asyncio.get_running_loop()
    closing: list[Awaitable[None]] = []
    for loop, services in list(_open.items()):
        del _open[loop]
        for held in services.values():
            if loop is here:
                closing.append(_release(held))
            elif loop.is_running():
                closing.append(
                    asyncio.wrap_future(asyncio.run_coroutine_threadsafe(_release(held), loop))
                )
    for outcome in await asyncio.gather(*closing, return_exceptions=True):
        if isinstance(outcome, Exception):
            log.warning("closing chat memory failed (%s)", type(outcome).__name__)


def _is_studio(user: Any, identity: Any) -> bool:
    if identity != STUDIO_USER or user is None:
        return False
    kind = user.get("kind") if isinstance(user, dict) else getattr(user, "kind", None)
    return is_studio_user(user) or kind == "StudioUser"


def session_of(config: RunnableConfig | None, context: Any) -> str | None:
    """The authenticated user's session hash (Studio's development identity for a Studio
    run under ``langgraph dev``), else run context ``session_id``, else
    ``configurable.session_id``, else None (contract §8, §13a)."""
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
    if not (isinstance(session_id, str) and session_id):
        session_id = configurable.get("session_id")
    return session_id if isinstance(session_id, str) and session_id else None
