"""The one forbidden-field list and the guard every outgoing DTO passes (SPEC §9)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

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


class ForbiddenFieldError(ValueError):
    """A DTO about to leave the server carries a runtime-only field."""


_SCALARS = (str, int, float, bool, type(None))
_SEQUENCES = (list, tuple, set, frozenset)


_SAFE_KEYS: set[tuple[Any, ...]] = set()
"""Key tuples already found clean: a DTO repeats a few shapes (every pin, every source)."""
_SAFE_KEYS_MAX = 4096


def _forbidden_key(value: Any) -> str | None:
    """The first forbidden key at any depth, or None: one walk that keeps no paths, never
    steps onto a scalar (a DTO is mostly strings) and checks each shape of keys once."""
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict | Mapping):
            keys = tuple(node)
            if keys not in _SAFE_KEYS:
                for key in keys:
                    if isinstance(key, str) and fold_key(key) in _FOLDED:
                        return key
                if len(_SAFE_KEYS) < _SAFE_KEYS_MAX:
                    _SAFE_KEYS.add(keys)
            stack.extend(child for child in node.values() if not isinstance(child, _SCALARS))
        elif isinstance(node, _SEQUENCES):
            stack.extend(child for child in node if not isinstance(child, _SCALARS))
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
    """Raise ForbiddenFieldError if any dict key at any depth is forbidden.

    Only keys are judged: a user may well *write* the word "checkpoint". The walk keeps
    no paths (every DTO passes it); only a refusal looks for where the key was.
    """
    key = _forbidden_key(value)
    if key is not None:
        raise ForbiddenFieldError(f"forbidden field {key!r} at {_path_of(value, key, _path)}")
