"""Bounded short-term chat memory on LangGraph checkpointers.

Layout: the service is this package's top level (``service`` on top; under it
``deferred``, ``writes``, ``session``, ``edits``, ``context``, ``hydration``, ``guard``,
``model_config``; at the bottom ``limits``, ``models``, ``text``, ``settings``,
``errors``); ``storage/`` is where memory lives and ``compaction/`` how old turns
are folded. The top level imports both; they import only the bottom modules (storage
also ``settings``, where every variable memory reads is declared), and not each other.
Memory imports nothing of ``adapters`` or ``graphs``. ``pyproject.toml``'s import
contracts hold every module to this.

Public API (contract §13)::

    from memory import open_memory, FinalTurn, ThreadState, assert_no_forbidden_fields

    async with open_memory("sqlite:///.aimind/aimind.sqlite") as mem:
        result = await mem.append_turn("session-token-0001", FinalTurn(...))
        state = await mem.load("session-token-0001")

What else a library user may need:

- ``MemoryService`` (what ``open_memory`` yields), ``AppendResult`` (what
  ``append_turn`` returns), ``MemorySnapshot`` (``snapshot()``: state plus
  compaction status);
- the user's corrections (contract §9a) on the service — ``pins``, ``pin``,
  ``edit_pin``, ``unpin``, ``set_summary``, ``forget``, ``export`` — and ``Pin`` /
  ``PinSource``, a pin with its provenance;
- the errors, all on ``AIMindError``: ``MemoryUnavailableError`` (storage is down),
  ``MemoryEditError`` and its ``PinTextError``, ``PinSourceError``, ``PinLimitError``,
  ``PinNotFoundError``, ``SummaryTextError`` (an edit that cannot be made),
  ``SettingsError`` (a malformed environment variable, ``memory.settings``);
- ``MemoryLimits`` to pass other bounds than the environment's;
- ``Compactor``, ``CompactionRequest``, ``CompactionOutput`` to write a compactor of
  one's own, and the two shipped ones, ``ExtractiveCompactor`` and ``LLMCompactor``;
- ``build_context`` to give a model contract §7's context from a ``ThreadState``, and
  ``memory_messages`` for just memory's part of it (summary, pins, recent turns);
- ``open_checkpointer`` for an agent graph on the same database (contract §10).
"""

from memory.compaction import CompactionRequest, Compactor
from memory.compaction.extractive import ExtractiveCompactor
from memory.compaction.llm import LLMCompactor
from memory.context import build_context, memory_messages
from memory.errors import (
    AIMindError,
    MemoryEditError,
    MemoryUnavailableError,
    PinLimitError,
    PinNotFoundError,
    PinSourceError,
    PinTextError,
    SettingsError,
    SummaryTextError,
)
from memory.guard import assert_no_forbidden_fields
from memory.limits import MemoryLimits
from memory.models import AppendResult, CompactionOutput, FinalTurn, Pin, PinSource, ThreadState
from memory.service import MemoryService, MemorySnapshot, open_memory
from memory.storage.checkpointer import open_checkpointer

__all__ = [
    "AIMindError",
    "AppendResult",
    "CompactionOutput",
    "CompactionRequest",
    "Compactor",
    "ExtractiveCompactor",
    "FinalTurn",
    "LLMCompactor",
    "MemoryEditError",
    "MemoryLimits",
    "MemoryService",
    "MemorySnapshot",
    "MemoryUnavailableError",
    "Pin",
    "PinLimitError",
    "PinNotFoundError",
    "PinSource",
    "PinSourceError",
    "PinTextError",
    "SettingsError",
    "SummaryTextError",
    "ThreadState",
    "assert_no_forbidden_fields",
    "build_context",
    "memory_messages",
    "open_checkpointer",
    "open_memory",
]
