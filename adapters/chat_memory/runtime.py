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

Which session a run's memory is: ``adapters.chat_memory.session``.
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
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from aimind_memory.memory import Compactor, MemoryLimits, MemoryService, open_memory
from aimind_memory.memory.session import MEMORY_THREAD_PREFIX
from aimind_memory.memory.storage import database_url

if TYPE_CHECKING:  # langchain's model package costs a CLI command a second of imports
    from langchain_core.language_models import BaseChatModel

__all__ = ["MEMORY_THREAD_PREFIX", "SessionContext", "close_memory", "get_memory"]

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
