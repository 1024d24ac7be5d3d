"""AI Mind memory: bounded short-term chat memory for LangGraph agents.

The one import path for users (contract §13b). Everything here is the library and
the middleware, and installs with ``pip install aimind-memory`` alone:

```python
from aimind_memory import ChatMemoryMiddleware, open_memory, FinalTurn

agent = create_agent(model, tools, middleware=[ChatMemoryMiddleware()])

async with open_memory() as memory:          # AIMIND_DATABASE_URL, else embedded SQLite
    await memory.append_turn(token, FinalTurn(user_text=..., assistant_text=...,
                                              status="completed"))
```

``aimind_memory.server`` holds ``auth`` and ``app`` for a ``langgraph.json`` or
``aegra.json`` of your own (``pip install "aimind-memory[server]"``); ``aimind_memory.settings``
every environment variable it reads. Every error this package raises derives from
``AIMindError``.

The repository's ``memory``, ``adapters`` and ``graphs`` packages are its internals:
import from here, they may move.
"""

from adapters.chat_memory import ChatMemoryMiddleware
from adapters.chat_memory.final_turn import MemoryThreadError
from adapters.chat_memory.session import MemoryNotServedError
from adapters.models import chat_model, offline_chat_model
from memory import (
    AIMindError,
    AppendResult,
    CompactionOutput,
    CompactionRequest,
    Compactor,
    ExtractiveCompactor,
    FinalTurn,
    LLMCompactor,
    MemoryEditError,
    MemoryLimits,
    MemoryService,
    MemorySnapshot,
    MemoryUnavailableError,
    Pin,
    PinLimitError,
    PinNotFoundError,
    PinSource,
    PinTextError,
    SettingsError,
    SummaryTextError,
    ThreadState,
    assert_no_forbidden_fields,
    build_context,
    memory_messages,
    open_checkpointer,
    open_memory,
)
from memory.guard import ForbiddenFieldError
from memory.session import InvalidSessionError

__all__ = [
    "AIMindError",
    "AppendResult",
    "ChatMemoryMiddleware",
    "CompactionOutput",
    "CompactionRequest",
    "Compactor",
    "ExtractiveCompactor",
    "FinalTurn",
    "ForbiddenFieldError",
    "InvalidSessionError",
    "LLMCompactor",
    "MemoryEditError",
    "MemoryLimits",
    "MemoryNotServedError",
    "MemoryService",
    "MemorySnapshot",
    "MemoryThreadError",
    "MemoryUnavailableError",
    "Pin",
    "PinLimitError",
    "PinNotFoundError",
    "PinSource",
    "PinTextError",
    "SettingsError",
    "SummaryTextError",
    "ThreadState",
    "assert_no_forbidden_fields",
    "build_context",
    "chat_model",
    "memory_messages",
    "offline_chat_model",
    "open_checkpointer",
    "open_memory",
]
