"""Aegra only: ``runs.wait`` and ``runs.join`` answer when the run ends, not at the next poll;
and at shutdown this replica's runs finish before memory closes.

Why: with Redis as its broker (production, contract §15), Aegra waits for a run in
``WorkerExecutor.wait_for_completion``: it checks a Redis done-key, sleeps a
fixed 2.0 s, checks again (and the run's row every other time). So
``POST /threads/{id}/runs/wait``, ``POST /runs/wait`` and ``GET …/runs/{id}/join``
answer 0–2 s after the run ended: about 2 s for a chat turn that took 50 ms,
whatever the graph's own time. ``runs.stream`` is not affected (it listens to
the run's events).

What: a wrapper on ``WorkerExecutor.wait_for_completion``, no upstream code
copied. The worker already announces the end of every run it finishes: it
records the final status in Postgres, then publishes an ``end`` event on the
run's Redis channel (what ``runs.stream`` listens to), then sets the done-key.
The wrapper subscribes to that channel and returns at the ``end`` event; the
upstream wait runs beside it and still decides in every other case (its
timeout, a run another replica requeued, Redis trouble). After subscribing it
reads the run's status once, so an ``end`` published just before the
subscription is not waited for either.

When: only in an Aegra process with the Redis worker executor, at the version
reviewed (``SUPPORTED_VERSION``), unless ``AIMIND_AEGRA_WAIT_WAKEUP=0``.
Anywhere else (``langgraph dev``, another Aegra release) it stays off;
``activate`` logs one line either way (``adapters.server.gated_patch``). It never
imports Aegra itself: it looks for the executor module Aegra has loaded by the time it
loads our app.

Shutdown (``drain``): Aegra runs the app's lifespan inside its own, so the app's
shutdown (memory closing, pending compactions landing) comes before Aegra stops
its executor; a run still executing then would write its turn after memory closed
(it reopens it) and its compaction would die with the process. ``drain`` asks
the executor to stop first — Aegra's own drain: in-flight runs get
``WORKER_DRAIN_TIMEOUT`` to finish, the rest go back to the queue for another
replica — so memory closes after this replica's last run. Aegra's own later
``stop`` then has nothing left to do.

Upstream fix (for Aegra): wait on the run's channel (or a Redis key-space
notification on the done-key) instead of a fixed-interval poll; and stop the
executor before the user app's lifespan ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aimind_memory.adapters.server.gated_patch import GatedPatch
from aimind_memory.adapters.settings import AdapterSettings

__all__ = [
    "EXECUTOR_MODULE",
    "SUPPORTED_VERSION",
    "SWITCH_ENV",
    "activate",
    "drain",
    "inactive_reason",
]

log = logging.getLogger("aimind.aegra_runs")

PACKAGE = "aegra-api"
SUPPORTED_VERSION = "0.11.0"
"""The exact release whose wait, worker and broker were reviewed."""
EXECUTOR_MODULE = "aegra_api.services.worker_executor"
SWITCH_FIELD = "aegra_wait_wakeup"
SWITCH_ENV = AdapterSettings.env_name(SWITCH_FIELD)
"""``0`` turns the wake-up off (to compare with Aegra's own wait)."""
END_EVENT = "end"
_MARK = "__aimind_wait_wakeup__"

Wait = Callable[..., Awaitable[None]]


def _not_aegra(environ: Mapping[str, str] | None) -> str | None:
    """Why this process is not Aegra with its Redis executor, or None."""
    return None if EXECUTOR_MODULE in sys.modules else "not Aegra with its Redis worker executor"


async def drain() -> None:
    """Under the reviewed Aegra, stop its executor now: this replica's runs finish (or go
    back to the queue) before memory closes. Elsewhere nothing."""
    if PATCH.unreviewed() is not None:
        return
    from aegra_api.services.executor import executor

    await executor.stop()


def _is_end(data: str | bytes) -> bool:
    try:
        payload = json.loads(data).get("payload")
    except (ValueError, AttributeError):
        return False
    return isinstance(payload, list) and bool(payload) and payload[0] == END_EVENT


async def _ended(run_id: str) -> None:
    """Return once the run has ended: its ``end`` event, or a final status already stored."""
    from aegra_api.core.redis_manager import redis_manager
    from aegra_api.services.worker_executor import _is_run_terminal
    from aegra_api.settings import settings

    pubsub = redis_manager.get_client().pubsub()
    await pubsub.subscribe(f"{settings.redis.REDIS_CHANNEL_PREFIX}{run_id}")
    try:
        # The status is stored before the end event goes out: either it is final now,
        # or the event reaches the subscription made above.
        if await _is_run_terminal(run_id):
            return
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
            if message and message.get("type") == "message" and _is_end(message["data"]):
                return
    finally:
        with contextlib.suppress(Exception):
            await pubsub.aclose()


async def _cancel(*tasks: asyncio.Task[Any]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _woken(upstream: Wait) -> Wait:
    @functools.wraps(upstream)
    async def wait_for_completion(
        self: Any,
        run_id: str,
        *,
        timeout: float = 300.0,  # noqa: ASYNC109 - upstream's signature
    ) -> None:
        polled = asyncio.ensure_future(upstream(self, run_id, timeout=timeout))
        woken = asyncio.ensure_future(_ended(run_id))
        try:
            await asyncio.wait({polled, woken}, return_when=asyncio.FIRST_COMPLETED)
            failed = woken.done() and woken.exception()
            if failed and not polled.done():
                reason = type(failed).__name__
                log.debug("run end wake-up failed (%s); waiting as Aegra does", reason)
                await polled
        finally:
            done = polled.done() and not polled.cancelled()
            await _cancel(polled, woken)
        if done:
            polled.result()  # upstream's own outcome: its TimeoutError included

    setattr(wait_for_completion, _MARK, True)
    return wait_for_completion


def _install() -> None:
    executor_class = sys.modules[EXECUTOR_MODULE].WorkerExecutor
    if not getattr(executor_class.wait_for_completion, _MARK, False):
        executor_class.wait_for_completion = _woken(executor_class.wait_for_completion)


PATCH = GatedPatch(
    label="Aegra run wait wake-up",
    switch=SWITCH_FIELD,
    reviewed={PACKAGE: SUPPORTED_VERSION},
    place=_not_aegra,
    install=_install,
    effect="runs.wait and runs.join answer when the run ends instead of at Aegra's next 2 s poll",
    log=log,
)
inactive_reason = PATCH.inactive_reason
activate = PATCH.activate
