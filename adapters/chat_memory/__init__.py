"""The graphs' edge to memory, and memory for any LangChain agent.

``runtime`` opens the memory service once per process and event loop;
``session`` names the session of a run (and refuses a served run that has none);
``final_turn`` is the read before a turn and the
one write after it; ``forks`` what a run from an earlier checkpoint (Regenerate,
Edit) replaces in memory; ``middleware`` is ``ChatMemoryMiddleware``, the same
steps as a ``create_agent`` middleware. It imports ``memory`` and
``adapters.engine`` only.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aimind_memory.adapters.chat_memory.middleware import ChatMemoryMiddleware

__all__ = ["ChatMemoryMiddleware"]


def __getattr__(name: str) -> Any:
    """``ChatMemoryMiddleware`` is imported on first use: it brings LangChain's agent
    framework, which the servers' HTTP app (importing ``runtime``) does not need."""
    if name == "ChatMemoryMiddleware":
        from aimind_memory.adapters.chat_memory.middleware import ChatMemoryMiddleware

        return ChatMemoryMiddleware
    raise AttributeError(name)
