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
``AIMIND_DEV_DELTA_HISTORY=0``; ``activate`` logs one line either way
(``adapters.server.gated_patch``). Aegra uses
the stock ``AsyncPostgresSaver`` directly and needs none of this.

Upstream fix (langgraph-api): forward ``aget_delta_channel_history`` (and
``get_delta_channel_history``) in ``_CustomCheckpointerAdapter``, like ``aget_iter``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from aimind_memory.adapters.engine import is_langgraph_dev
from aimind_memory.adapters.server.gated_patch import GatedPatch
from aimind_memory.adapters.settings import AdapterSettings

__all__ = ["SUPPORTED_VERSIONS", "SWITCH_ENV", "activate", "inactive_reason"]

log = logging.getLogger("aimind.dev_delta_history")

SUPPORTED_VERSIONS: Mapping[str, str] = {"langgraph-api": "0.16.7"}
"""The exact version whose checkpointer adapter was reviewed."""
SWITCH_FIELD = "dev_delta_history"
SWITCH_ENV = AdapterSettings.env_name(SWITCH_FIELD)
"""``0`` leaves the adapter as shipped (to compare with it)."""
METHOD = "aget_delta_channel_history"


def _not_dev(environ: Mapping[str, str] | None) -> str | None:
    return None if is_langgraph_dev(environ) else "not langgraph dev's server"


async def _wrapped_saver_history(
    self: Any, *, config: dict[str, Any], channels: Sequence[str]
) -> Any:
    """The wrapped saver's own delta-channel history (one or two queries)."""
    return await self._inner.aget_delta_channel_history(config=config, channels=channels)


def _install() -> None:
    from langgraph_api._checkpointer._adapter import _CustomCheckpointerAdapter

    if METHOD not in vars(_CustomCheckpointerAdapter):  # upstream may forward it one day
        setattr(_CustomCheckpointerAdapter, METHOD, _wrapped_saver_history)


PATCH = GatedPatch(
    label="dev delta-channel history",
    switch=SWITCH_FIELD,
    reviewed=SUPPORTED_VERSIONS,
    place=_not_dev,
    install=_install,
    effect="a chat thread's transcript is read in one query",
    log=log,
)
inactive_reason = PATCH.inactive_reason
activate = PATCH.activate
