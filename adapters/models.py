"""The model provider (SPEC §11): ``ChatOpenAI`` for any OpenAI-compatible endpoint, or offline.

With ``OPENAI_API_KEY`` set, ``chat_model()`` is a ``ChatOpenAI`` configured from
``OPENAI_BASE_URL`` / ``AIMIND_MODEL`` with a timeout and bounded retries, and
``compaction_model()`` the same endpoint at temperature 0 (``AIMIND_COMPACTION_MODEL``,
falling back to ``AIMIND_MODEL``). Without a key every graph still runs on
``OfflineChatModel``: deterministic, clearly labelled offline, and it answers by
stating what context it received, so memory behaviour is visible without a provider.
"""

from __future__ import annotations

import os

from langchain_core.language_models import BaseChatModel

from adapters.offline_model import OFFLINE_LABEL, OfflineChatModel
from memory.model_config import (
    DEFAULT_MODEL,
    MODEL_ENV,
    compaction_model,
    has_api_key,
    openai_model,
)


def chat_model(purpose: str = "chat") -> BaseChatModel:
    """The graphs' model: ChatOpenAI when a key is set, else the offline model.

    ``purpose="compaction"`` selects ``AIMIND_COMPACTION_MODEL`` at temperature 0.
    """
    if purpose == "compaction":
        return compaction_model() or OfflineChatModel()
    if not has_api_key():
        return OfflineChatModel()
    return openai_model(os.environ.get(MODEL_ENV) or DEFAULT_MODEL)


__all__ = [
    "OFFLINE_LABEL",
    "OfflineChatModel",
    "chat_model",
    "compaction_model",
    "has_api_key",
]
