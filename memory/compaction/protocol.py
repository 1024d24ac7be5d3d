"""What a compactor is given and must return, and how a compaction is reported.

A ``Compactor`` sees a ``CompactionRequest`` — memory text only, never runtime state —
and returns a ``CompactionOutput`` (``memory.models``): a summary, pinned decisions and
the earlier pins they replace. While it runs, a ``StatusCallback`` hears the
``thread-memory-status`` events (contract §5).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from aimind_memory.memory.models import (
    ChatThreadMessage,
    CompactionOutput,
    Pin,
    ReplacedPin,
    ThreadState,
)

log = logging.getLogger("aimind.memory.compaction")

StatusCallback = Callable[[dict[str, Any]], None]
STATUS_EVENT = "thread-memory-status"


@dataclass(frozen=True, slots=True)
class CompactionRequest:
    """Everything a compactor may see: memory text only, never runtime state."""

    summary: str
    """The summary so far."""
    pinned_decisions: list[str]
    """The decisions pinned so far, oldest first."""
    folded: list[ChatThreadMessage]
    """The turns to fold into the summary now, oldest first."""
    kept: list[ChatThreadMessage]
    """The turns that stay verbatim: context only, not to be repeated in the summary."""
    pins: tuple[Pin, ...] = ()
    """The records of ``pinned_decisions`` (the service's; a compactor reads the texts)."""
    replaced: tuple[ReplacedPin, ...] = ()
    """The decisions later ones replaced, oldest first: what a return to an earlier option
    ("go back to PostgreSQL") returns to. The offline compactor reads it; a model is not
    shown it (contract §5: history is the user's, not the model's)."""

    def texts(self) -> list[str]:
        """Every text the request carries.

        Returns:
            The summary, the pins' texts, then the folded and the kept turns' texts.
        """
        return [
            self.summary,
            *self.pinned_decisions,
            *(m.text for m in self.folded),
            *(m.text for m in self.kept),
        ]


class Compactor(Protocol):
    """Folds old turns into summary + pins.

    A compactor runs after the turn's write, off the answer's path, unless it has
    ``inline = True`` (fast and local, like the extractive one): it then folds
    within the write that makes the window overflow.
    """

    name: str
    """What memory's status events and ``AppendResult.compactor`` call it."""

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        """Fold ``request.folded`` into the summary and the pins.

        Args:
            request: The summary, the pins and the turns, memory text only.

        Returns:
            The new summary and the decisions that hold now; a result over memory's
            bounds is cut to them, and one that is not a ``CompactionOutput`` fails the
            compaction (the extractive compactor's is used).
        """
        ...


@runtime_checkable
class ReadsAhead(Protocol):
    """A compactor that reads each turn once it is written, before any fold takes it.

    An inline compactor folds within the write that overflows the window, so its work is
    on that turn's path. What it can learn of a turn on its own (each sentence's language,
    signals and words) it learns after the turn's write, off the answer's path; the fold
    that takes the turn later only weighs it against the rest. When the next turn's write
    will fold, most of that fold is known already (the summary, the pins, the messages
    that will leave the window): only the next turn itself is not. Reading ahead must not
    change any output: it may only fill what the fold would compute anyway.
    """

    async def read_ahead(
        self, turn: Sequence[ChatThreadMessage], upcoming: CompactionRequest | None
    ) -> None:
        """Read a turn just written (its user message and its answer).

        Args:
            turn: The turn's messages, as the window holds them.
            upcoming: The fold the next turn's write will ask for, but for that turn's
                own messages, not said yet (``kept`` lacks them); None when the next
                turn will not fold.
        """
        ...


def status_event(status: str, state: ThreadState) -> dict[str, Any]:
    """The ``thread-memory-status`` event of ``status`` for a thread now holding ``state``."""
    return {
        "type": STATUS_EVENT,
        "status": status,
        "summaryLength": len(state.summary),
        "pinnedDecisionCount": len(state.pinned_decisions),
    }


def emit(on_status: StatusCallback | None, status: str, state: ThreadState) -> None:
    """Report a memory status; a broken listener never breaks the memory write."""
    if on_status is None:
        return
    try:
        on_status(status_event(status, state))
    except Exception as exc:  # a status listener is best-effort by contract
        log.warning("thread-memory-status listener failed (%s)", type(exc).__name__)
