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
from typing import Any

from langchain_core.language_models import BaseChatModel

from adapters.offline_model import OFFLINE_LABEL, OfflineChatModel

API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
MODEL_ENV = "AIMIND_MODEL"
COMPACTION_MODEL_ENV = "AIMIND_COMPACTION_MODEL"
DEFAULT_MODEL = "gpt-4o-mini"
MODEL_TIMEOUT_S = 60.0
"""Per-request timeout for the chat model (compaction has its own in memory/limits.py)."""
MODEL_MAX_RETRIES = 2


def has_api_key() -> bool:
    return bool(os.environ.get(API_KEY_ENV, "").strip())


def _openai(model_name: str, **extra: Any) -> BaseChatModel:
    from langchain_openai import ChatOpenAI  # imported lazily: offline runs never need it

    return ChatOpenAI(
        model=model_name,
        api_key=os.environ[API_KEY_ENV],
        base_url=os.environ.get(BASE_URL_ENV) or None,
        timeout=MODEL_TIMEOUT_S,
        max_retries=MODEL_MAX_RETRIES,
        **extra,
    )


def chat_model(purpose: str = "chat") -> BaseChatModel:
    """The graphs' model: ChatOpenAI when a key is set, else the offline model.

    ``purpose="compaction"`` selects ``AIMIND_COMPACTION_MODEL`` at temperature 0.
    """
    if purpose == "compaction":
        return compaction_model() or OfflineChatModel()
    if not has_api_key():
        return OfflineChatModel()
    return _openai(os.environ.get(MODEL_ENV) or DEFAULT_MODEL)


def compaction_model() -> BaseChatModel | None:
    """The LLM compactor's model, or None (no key: memory uses the extractive compactor)."""
    if not has_api_key():
        return None
    name = os.environ.get(COMPACTION_MODEL_ENV) or os.environ.get(MODEL_ENV) or DEFAULT_MODEL
    return _openai(name, temperature=0)


__all__ = [
    "OFFLINE_LABEL",
    "OfflineChatModel",
    "chat_model",
    "compaction_model",
    "has_api_key",
]
