"""Development only: ``langgraph dev`` reads a chat thread's transcript in one query, not
one checkpoint at a time.

Why: a ``chat`` thread keeps its transcript in a ``DeltaChannel`` (contract §8a: storage
linear in the conversation), so reading its state replays the channel's writes
back to the last full copy. The stock savers do that in one or two queries
(``aget_delta_channel_history``), but ``langgraph dev`` wraps a custom checkpointer
in an adapter that forwards only the methods ``BaseCheckpointSaver`` lacks, so
this one falls back to the base class's walk: one ``aget_tuple`` per ancestor
checkpoint, up to ~150 per read on a long thread. Every run on the thread, every
``getState`` and every ``getHistory`` entry (agent-chat-ui asks for ten after each
turn) pays it: ``history(10)`` took about a second at 100 turns.

What: the adapter's ``aget_delta_channel_history`` asks the wrapped saver's own
(same contract, same result; the wrapped saver is ours, see
``memory.storage.checkpointer``). Nothing else changes.

When: only in ``langgraph dev``'s server at the version reviewed
(``SUPPORTED_VERSIONS``), unless ``AIMIND_ENV=production`` or
``AIMIND_DEV_DELTA_HISTORY=0``; ``activate`` logs one line either way. Aegra uses
the stock ``AsyncPostgresSaver`` directly and needs none of this.

Upstream fix (langgraph-api): forward ``aget_delta_channel_history`` (and
``get_delta_channel_history``) in ``_CustomCheckpointerAdapter``, like ``aget_iter``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from adapters.engine import is_langgraph_dev, unreviewed_versions
from adapters.settings import AdapterSettings, adapter_settings

__all__ = ["SUPPORTED_VERSIONS", "SWITCH_ENV", "activate", "inactive_reason"]

log = logging.getLogger("aimind.dev_delta_history")

SUPPORTED_VERSIONS: Mapping[str, str] = {"langgraph-api": "0.16.7"}
"""The exact version whose checkpointer adapter was reviewed."""
SWITCH_ENV = AdapterSettings.env_name("dev_delta_history")
"""``0`` leaves the adapter as shipped (to compare with it)."""
METHOD = "aget_delta_channel_history"
_state: dict[str, bool] = {}


def inactive_reason(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the adapter stays as shipped in this process, or None when the fix applies."""
    if not adapter_settings(environ).dev_delta_history:
        return f"{SWITCH_ENV}=0"
    if not is_langgraph_dev(environ):
        return "not langgraph dev's server"
    return unreviewed_versions(SUPPORTED_VERSIONS)


async def _wrapped_saver_history(
    self: Any, *, config: dict[str, Any], channels: Sequence[str]
) -> Any:
    """The wrapped saver's own delta-channel history (one or two queries)."""
    return await self._inner.aget_delta_channel_history(config=config, channels=channels)


def activate() -> bool:
    """Forward the delta-channel history when it applies; log one line saying whether.

    Called when the HTTP app is loaded, in the server process, before any run.
    Idempotent.
    """
    if "active" in _state:
        return _state["active"]
    reason = inactive_reason()
    if reason is None:
        from langgraph_api._checkpointer._adapter import _CustomCheckpointerAdapter

        if METHOD not in vars(_CustomCheckpointerAdapter):  # upstream may forward it one day
            setattr(_CustomCheckpointerAdapter, METHOD, _wrapped_saver_history)
        log.info(
            "dev delta-channel history: active (a chat thread's transcript is read in one "
            "query; %s=0 turns it off)",
            SWITCH_ENV,
        )
    else:
        log.info("dev delta-channel history: inactive (%s)", reason)
    _state["active"] = reason is None
    return _state["active"]
