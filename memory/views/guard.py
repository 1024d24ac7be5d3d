"""The one forbidden-field list and the guard every outgoing DTO passes (contract §9)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from aimind_memory.memory.errors import ForbiddenFieldError

FORBIDDEN_FIELDS: frozenset[str] = frozenset(
    {
        "apiKey",
        "checkpoint",
        "cookie",
        "deliveryChain",
        "displayKind",
        "graphState",
        "mcpEnvelope",
        "providerConfig",
        "providerResponse",
        "rawCheckpoint",
        "rawPrompt",
        "resourceContent",
        "runtimeArtifact",
        "sessionId",
        "source",
        "stack",
        "subagentInvocation",
        "subagentResult",
        "toolArgs",
        "toolCall",
        "toolMessage",
        "toolResult",
        "turnId",
        "tasklist",
        "workflowProgress",
        "secret",
        "password",
        "authorization",
    }
)


@functools.lru_cache(maxsize=4096)
def fold_key(key: str) -> str:
    """Fold a key so ``tool_args``, ``Tool-Args`` and ``toolArgs`` compare equal. A DTO's
    keys repeat (every pin, every source), so each is folded once."""
    return key.replace("_", "").replace("-", "").casefold()


_FOLDED = frozenset(fold_key(k) for k in FORBIDDEN_FIELDS)


_SAFE_KEYS: set[tuple[Any, ...]] = set()
"""Key tuples already found clean: a DTO repeats a few shapes (every pin, every source)."""
_SAFE_KEYS_MAX = 4096
_CONTAINERS = (dict, list, tuple, set, frozenset)
_LEAVES = frozenset({str, int, float, bool, type(None)})


def _forbidden_key(node: Any) -> str | None:
    """The first forbidden key at any depth, or None: a walk that keeps no paths, steps
    only into containers (a DTO is mostly strings) and checks each shape of keys once.
    Plain dicts and lists — what every DTO is made of — take the fast path."""
    kind = type(node)
    if kind is dict or (kind not in _CONTAINERS and isinstance(node, Mapping)):
        keys = tuple(node)
        if keys not in _SAFE_KEYS:
            for key in keys:
                if isinstance(key, str) and fold_key(key) in _FOLDED:
                    return key
            if len(_SAFE_KEYS) < _SAFE_KEYS_MAX:
                _SAFE_KEYS.add(keys)
        children: Any = node.values()
    elif kind in _CONTAINERS or isinstance(node, list | tuple | set | frozenset):
        children = node
    else:
        return None
    for child in children:
        if type(child) in _LEAVES:
            continue
        found = _forbidden_key(child)
        if found is not None:
            return found
    return None


def _path_of(value: Any, wanted: str, path: str) -> str | None:
    if isinstance(value, Mapping):
        for key, child in value.items():
            if key == wanted:
                return path
            if (found := _path_of(child, wanted, f"{path}.{key}")) is not None:
                return found
    elif isinstance(value, list | tuple | set | frozenset):
        for i, child in enumerate(value):
            if (found := _path_of(child, wanted, f"{path}[{i}]")) is not None:
                return found
    return None


def assert_no_forbidden_fields(value: Any, _path: str = "$") -> None:
    """Check that a DTO about to leave the server carries no runtime-only field
    (``checkpoint``, ``config``, ``tasks`` …) at any depth.

    Only keys are judged: a user may well *write* the word "checkpoint". The walk keeps
    no paths (every DTO passes it); only a refusal looks for where the key was.

    Args:
        value: The DTO: dicts, lists and plain values.
        _path: Where ``value`` is in the whole DTO, for the error (internal).

    Raises:
        ForbiddenFieldError: A dict key is forbidden; the message says where.
    """
    key = _forbidden_key(value)
    if key is not None:
        raise ForbiddenFieldError(f"forbidden field {key!r} at {_path_of(value, key, _path)}")
