"""Which store namespaces are a session's own, on both servers (contract §8, §9a).

A session keeps store items under its own identity: ``(<identity>, …)``, which
``adapters.server.auth`` enforces on every store action. Aegra adds a scope of its own
in front of every namespace, ``("users", <identity>, …)``, and answers searches with
those full namespaces, which a client then sends back to read or delete an item; a
namespace under that scope of the caller's own identity is the caller's too. Nothing
else is: another session's identity is never at either place.

Aegra passes a search's prefix as ``namespace_prefix``; ``langgraph dev`` as
``namespace`` (``namespace_of``). Forget (``adapters.server.forget``) searches under
each of ``own_prefixes`` to find every item the session has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["AEGRA_USER_SCOPE", "is_own_namespace", "namespace_of", "own_prefixes"]

AEGRA_USER_SCOPE = "users"
"""The first label of the per-user scope Aegra puts every namespace under."""


def own_prefixes(identity: str) -> list[list[str]]:
    """The namespace prefixes under which the session's items are found."""
    return [[identity], [AEGRA_USER_SCOPE, identity]]


def namespace_of(value: Mapping[str, Any]) -> tuple[str, ...]:
    """The namespace (or a search's prefix) a store action names, from either server."""
    named = value.get("namespace")
    if named is None:
        named = value.get("namespace_prefix")
    return tuple(named) if isinstance(named, Sequence) and not isinstance(named, str) else ()


def is_own_namespace(namespace: Sequence[str], identity: str) -> bool:
    """``namespace`` starts with the caller's identity, or with Aegra's scope of it."""
    return any(
        len(namespace) >= len(prefix) and list(namespace[: len(prefix)]) == prefix
        for prefix in own_prefixes(identity)
    )
