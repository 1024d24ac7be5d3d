"""What the agent's model is told: the chat graph's prompt — the same assistant, the same
tools, the same rule that memory's background blocks never override it."""

from aimind_memory.graphs.chat.prompts import SYSTEM_PROMPT

__all__ = ["SYSTEM_PROMPT"]
