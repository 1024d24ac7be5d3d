"""The model provider (contract §11): ``ChatOpenAI`` for any OpenAI-compatible endpoint, or offline.

With ``OPENAI_API_KEY`` set, ``chat_model()`` is a ``ChatOpenAI`` configured from
``OPENAI_BASE_URL`` / ``AIMIND_MODEL`` with a timeout and bounded retries (the settings
live in ``memory.config.settings``; ``memory.config.model`` also builds memory's
compaction model). Without a key every graph still runs on
``OfflineChatModel``: deterministic, clearly labelled offline, and it answers by
stating what context it received, so memory behaviour is visible without a provider.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from aimind_memory.adapters.models.offline import OFFLINE_LABEL, OfflineChatModel
from aimind_memory.memory.config.model import has_api_key, openai_model
from aimind_memory.memory.config.settings import memory_settings


def chat_model() -> BaseChatModel:
    """The chat model the settings name: what this project's graphs answer with.

    Returns:
        ``ChatOpenAI`` for ``AIMIND_MODEL`` (on ``OPENAI_BASE_URL``, if set) when
        ``OPENAI_API_KEY`` is set; else the offline model.

    Raises:
        SettingsError: A model setting is malformed.
    """
    if not has_api_key():
        return offline_chat_model()
    return openai_model(memory_settings().model)


def offline_chat_model() -> BaseChatModel:
    """The offline model, whatever the environment: for tests, demos and a first run
    without a key.

    Returns:
        A chat model that is deterministic, labels its answers offline and answers by
        stating the context it received (what memory gave it), tool calls and
        structured output included.
    """
    return OfflineChatModel()


__all__ = [
    "OFFLINE_LABEL",
    "OfflineChatModel",
    "chat_model",
    "has_api_key",
    "offline_chat_model",
]
