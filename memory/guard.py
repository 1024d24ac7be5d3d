"""The one forbidden-field list and the guard every outgoing DTO passes (SPEC §9)."""

from __future__ import annotations

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


def fold_key(key: str) -> str:
    """Fold a key so ``tool_args``, ``Tool-Args`` and ``toolArgs`` compare equal."""
    return key.replace("_", "").replace("-", "").casefold()


_FOLDED = frozenset(fold_key(k) for k in FORBIDDEN_FIELDS)


class ForbiddenFieldError(ValueError):
    """A DTO about to leave the server carries a runtime-only field."""


def assert_no_forbidden_fields(value: Any, _path: str = "$") -> None:
    """Raise ForbiddenFieldError if any dict key at any depth is forbidden.

    Only keys are judged: a user may well *write* the word "checkpoint".
    """
    stack: list[tuple[Any, str]] = [(value, _path)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, Mapping):
            for key, child in node.items():
                if isinstance(key, str) and fold_key(key) in _FOLDED:
                    raise ForbiddenFieldError(f"forbidden field {key!r} at {path}")
                stack.append((child, f"{path}.{key}"))
        elif isinstance(node, list | tuple | set | frozenset):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(node))
