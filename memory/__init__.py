"""Bounded short-term chat memory on LangGraph checkpointers.

Layout: the service is this package's top level (``service`` on top; under it
``deferred``, ``writes``, ``session``, ``edits`` and ``views/``, what leaves memory: the
model's ``context``, the ``hydration`` DTOs and their ``guard``; at the bottom
``config/``, what memory runs with: its ``settings``, ``limits`` and compaction
``model``, then ``models``, ``text`` and ``errors``, every error it raises);
``storage/`` is where memory lives and ``compaction/`` how old turns are folded. The
top level imports both; they import only the bottom modules (storage also
``config.settings``, where every variable memory reads is declared), and not each other.
Memory imports nothing of ``adapters`` or ``graphs``. ``pyproject.toml``'s import
contracts hold every module to this.

Public API (contract §13)::

    from aimind_memory.memory import open_memory, FinalTurn, ThreadState, assert_no_forbidden_fields

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
  ``SettingsError`` (a malformed environment variable, ``memory.config.settings``);
- ``MemoryLimits`` to pass other bounds than the environment's;
- ``Compactor``, ``CompactionRequest``, ``CompactionOutput`` to write a compactor of
  one's own (``ReadsAhead`` if it reads each turn before a fold), and the two shipped
  ones, ``ExtractiveCompactor`` and ``LLMCompactor``;
- ``explain`` (``Signals``): what the offline engine reads in a sentence — the decision
  it would pin and why, the change it marks, small talk — for a maintainer at a prompt;
- ``recall`` on the service (contract §5a): the archived turns a query is about, as
  ``RecallHit``s;
- ``build_context`` to give a model contract §7's context from a ``ThreadState`` (and
  what was recalled for the latest message), and ``memory_messages`` for just memory's
  part of it (summary, pins, recalled conversation, recent turns);
- ``open_checkpointer`` for an agent graph on the same database (contract §10).
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers; at run time ``__getattr__`` imports on first use
    from aimind_memory.memory.archive import RecallHit
    from aimind_memory.memory.compaction import CompactionRequest, Compactor, ReadsAhead
    from aimind_memory.memory.compaction.analysis.why import Signals, explain
    from aimind_memory.memory.compaction.extractive import ExtractiveCompactor
    from aimind_memory.memory.compaction.llm import LLMCompactor
    from aimind_memory.memory.config.limits import MemoryLimits
    from aimind_memory.memory.errors import (
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
    from aimind_memory.memory.models import (
        AppendResult,
        CompactionOutput,
        FinalTurn,
        Pin,
        PinSource,
        ThreadState,
    )
    from aimind_memory.memory.service import MemoryService, MemorySnapshot, open_memory
    from aimind_memory.memory.storage.checkpointer import open_checkpointer
    from aimind_memory.memory.views.context import build_context, memory_messages
    from aimind_memory.memory.views.guard import assert_no_forbidden_fields

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
    "ReadsAhead",
    "RecallHit",
    "SettingsError",
    "Signals",
    "SummaryTextError",
    "ThreadState",
    "assert_no_forbidden_fields",
    "build_context",
    "explain",
    "memory_messages",
    "open_checkpointer",
    "open_memory",
]

_HOME: dict[str, str] = {
    "AIMindError": "aimind_memory.memory.errors",
    "AppendResult": "aimind_memory.memory.models",
    "CompactionOutput": "aimind_memory.memory.models",
    "CompactionRequest": "aimind_memory.memory.compaction",
    "Compactor": "aimind_memory.memory.compaction",
    "ReadsAhead": "aimind_memory.memory.compaction",
    "ExtractiveCompactor": "aimind_memory.memory.compaction.extractive",
    "FinalTurn": "aimind_memory.memory.models",
    "LLMCompactor": "aimind_memory.memory.compaction.llm",
    "MemoryEditError": "aimind_memory.memory.errors",
    "MemoryLimits": "aimind_memory.memory.config.limits",
    "MemoryService": "aimind_memory.memory.service",
    "MemorySnapshot": "aimind_memory.memory.service",
    "MemoryUnavailableError": "aimind_memory.memory.errors",
    "Pin": "aimind_memory.memory.models",
    "PinLimitError": "aimind_memory.memory.errors",
    "PinNotFoundError": "aimind_memory.memory.errors",
    "PinSource": "aimind_memory.memory.models",
    "PinSourceError": "aimind_memory.memory.errors",
    "PinTextError": "aimind_memory.memory.errors",
    "RecallHit": "aimind_memory.memory.archive",
    "SettingsError": "aimind_memory.memory.errors",
    "Signals": "aimind_memory.memory.compaction.analysis.why",
    "SummaryTextError": "aimind_memory.memory.errors",
    "ThreadState": "aimind_memory.memory.models",
    "assert_no_forbidden_fields": "aimind_memory.memory.views.guard",
    "build_context": "aimind_memory.memory.views.context",
    "explain": "aimind_memory.memory.compaction.analysis.why",
    "memory_messages": "aimind_memory.memory.views.context",
    "open_checkpointer": "aimind_memory.memory.storage.checkpointer",
    "open_memory": "aimind_memory.memory.service",
}
"""Where each public name lives. ``import memory`` (and so every ``memory.<module>``:
settings, errors, session, storage paths) stays cheap: the service and the compactors
bring LangChain and LangGraph, seconds of imports for a process that only reads a
setting (a replica's preflight, the MCP docs server, the CLI's refusals)."""


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'memory' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # once: later lookups are plain attribute reads
    return value
