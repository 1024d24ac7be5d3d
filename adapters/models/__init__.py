"""The chat model: the configured provider (``provider``) or the offline one (``offline``).

Both read memory's model settings (``memory.config.model``); the offline model
answers from memory's context and the local documents (``adapters.tools``), so
the quick start and the tests need no network. It imports ``memory`` and
``adapters.tools`` only.
"""

from aimind_memory.adapters.models.provider import chat_model, offline_chat_model

__all__ = ["chat_model", "offline_chat_model"]
