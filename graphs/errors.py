"""Every error the graphs raise, in one place, on memory's one base (contract §13b).

The graphs reach memory only through the adapters; its error module is the one exception
(``pyproject.toml``'s import contracts), so that every error derives from ``AIMindError``.
"""

from __future__ import annotations

from aimind_memory.memory.errors import AIMindError

__all__ = ["RubricMissingError", "StageError", "StructuredOutputUnsupportedError"]


class RubricMissingError(AIMindError, RuntimeError):
    """A rubric document is missing both in the documents folder and in the package."""


class StageError(AIMindError):
    """A delivery-chain stage failed for a reason the user may be told (``reason`` keys
    ``FAILURE_REASONS``)."""

    def __init__(self, reason: str, detail: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


class StructuredOutputUnsupportedError(StageError):
    """The model has no structured output (no tool calling): the chain cannot run on it."""

    def __init__(self) -> None:
        super().__init__("unsupported")
