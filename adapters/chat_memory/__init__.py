"""The graphs' edge to memory, and memory for any LangChain agent.

``runtime`` opens the memory service once per process and event loop (and
names the session of a run); ``final_turn`` is the read before a turn and the
one write after it; ``forks`` what a run from an earlier checkpoint (Regenerate,
Edit) replaces in memory; ``middleware`` is ``ChatMemoryMiddleware``, the same
steps as a ``create_agent`` middleware. It imports ``memory`` and
``adapters.engine`` only.
"""

from adapters.chat_memory.middleware import ChatMemoryMiddleware

__all__ = ["ChatMemoryMiddleware"]
