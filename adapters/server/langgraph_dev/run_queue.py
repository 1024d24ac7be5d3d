"""Development only: wake ``langgraph dev``'s in-memory run queue when a run is created.

Why: the in-memory runtime's scheduler asks ``Runs.next(wait=True)`` for work
whenever its last look found none. That call notes the time, sleeps a fixed
0.5 s, then takes only runs created *before* the noted time, and nothing wakes
it when a run is created. So under ``langgraph dev`` every run that arrives at
an idle server waits 0.5–1.0 s before it starts (the server log's
``run_queue_ms``), and a client that sends one run after another gets each
reply a second late, however fast the graph.

What: two wrappers on the runtime's ``Runs`` class, no upstream code copied.
``Runs.put`` wakes the scheduler once it has stored the run; ``Runs.next(wait=True)``
waits for that wake-up or the same 0.5 s, whichever comes first, then asks the
upstream ``Runs.next(wait=False)``, which notes its time after the wait and so
takes the run just created. Which run is taken and when it may start (one run
per thread, multitask strategies, ``after_seconds``, cancellation) stays
upstream's: the 0.5 s poll still runs as the fallback.

When: only under ``langgraph dev``'s in-memory runtime at the versions reviewed
(``SUPPORTED_VERSIONS``), unless ``AIMIND_ENV=production`` or
``AIMIND_DEV_QUEUE_WAKEUP=0``. Anywhere else it stays off; ``activate`` logs one
line either way (``adapters.server.gated_patch``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from aimind_memory.adapters.engine import is_langgraph_dev
from aimind_memory.adapters.server.gated_patch import GatedPatch
from aimind_memory.adapters.settings import AdapterSettings
from aimind_memory.memory.session import ENV_VAR, PRODUCTION, is_production

__all__ = ["SUPPORTED_VERSIONS", "SWITCH_ENV", "activate", "inactive_reason"]

log = logging.getLogger("aimind.dev_run_queue")

SUPPORTED_VERSIONS: Mapping[str, str] = {
    "langgraph-runtime-inmem": "0.36.7",
    "langgraph-api": "0.16.7",
}
"""The exact versions whose ``Runs.next``/``Runs.put`` and scheduler loop were reviewed."""
SWITCH_FIELD = "dev_queue_wakeup"
SWITCH_ENV = AdapterSettings.env_name(SWITCH_FIELD)
"""``0`` turns the wake-up off (to compare with the stock queue)."""
FALLBACK_POLL_S = 0.5
"""The upstream poll interval, kept as the longest wait when no wake-up comes."""
_MARK = "__aimind_dev_wakeup__"


class _Wakeup:
    """An ``asyncio.Event`` on the scheduler's loop that code on any thread can set."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None

    async def wait(self, seconds: float) -> None:
        """Return when woken or after ``seconds``; either way the wake-up is consumed."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._event is None:
            self._loop, self._event = loop, asyncio.Event()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._event.wait()
        self._event.clear()

    def set(self) -> None:
        loop, event = self._loop, self._event
        if loop is None or event is None or loop.is_closed():
            return  # the scheduler has not waited yet: its first look does not wait
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            event.set()
        else:  # a run created from a worker loop or thread
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nothing to wake
                loop.call_soon_threadsafe(event.set)


_WAKEUP = _Wakeup()


def _not_dev(environ: Mapping[str, str] | None) -> str | None:
    if is_production(environ):
        return f"{ENV_VAR}={PRODUCTION}"
    if not is_langgraph_dev(environ):
        return "not langgraph dev's in-memory runtime"
    return None


def _waking_put(upstream: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(upstream)
    async def put(*args: Any, **kwargs: Any) -> Any:
        runs = await upstream(*args, **kwargs)  # the run is in the store on return
        _WAKEUP.set()
        return runs

    setattr(put, _MARK, True)
    return put


def _woken_next(upstream: Callable[..., AsyncIterator[Any]]) -> Callable[..., Any]:
    @functools.wraps(upstream)
    async def next_runs(wait: bool, limit: int = 1) -> AsyncIterator[Any]:
        if wait:
            await _WAKEUP.wait(FALLBACK_POLL_S)
        async for item in upstream(wait=False, limit=limit):
            yield item

    setattr(next_runs, _MARK, True)
    return next_runs


def _install() -> None:
    from langgraph_runtime_inmem.ops import Runs

    if not getattr(Runs.next, _MARK, False):
        Runs.put = staticmethod(_waking_put(Runs.put))
        Runs.next = staticmethod(_woken_next(Runs.next))


PATCH = GatedPatch(
    label="dev run queue wake-up",
    switch=SWITCH_FIELD,
    reviewed=SUPPORTED_VERSIONS,
    place=_not_dev,
    install=_install,
    effect="a new run starts at once instead of after the in-memory queue's 0.5-1.0 s poll",
    log=log,
)
inactive_reason = PATCH.inactive_reason
activate = PATCH.activate
