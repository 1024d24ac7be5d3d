"""Bounded short-term chat memory on LangGraph checkpointers.

Public API (SPEC §13)::

    from memory import open_memory, FinalTurn, ThreadState, assert_no_forbidden_fields
"""

from memory.checkpointer import open_checkpointer, server_checkpointer
from memory.compaction import CompactionRequest, Compactor
from memory.context import build_context
from memory.extractive import ExtractiveCompactor
from memory.guard import FORBIDDEN_FIELDS, ForbiddenFieldError, assert_no_forbidden_fields
from memory.hydration import hydration_dto
from memory.limits import MemoryLimits
from memory.llm_compactor import LLMCompactor
from memory.models import AppendResult, ChatThreadMessage, CompactionOutput, FinalTurn, ThreadState
from memory.service import MemoryService, MemoryUnavailableError, open_memory
from memory.session import InvalidSessionError, SecretConfigError, SessionHash

__all__ = [
    "FORBIDDEN_FIELDS",
    "AppendResult",
    "ChatThreadMessage",
    "CompactionOutput",
    "CompactionRequest",
    "Compactor",
    "ExtractiveCompactor",
    "FinalTurn",
    "ForbiddenFieldError",
    "InvalidSessionError",
    "LLMCompactor",
    "MemoryLimits",
    "MemoryService",
    "MemoryUnavailableError",
    "SecretConfigError",
    "SessionHash",
    "ThreadState",
    "assert_no_forbidden_fields",
    "build_context",
    "hydration_dto",
    "open_checkpointer",
    "open_memory",
    "server_checkpointer",
]
