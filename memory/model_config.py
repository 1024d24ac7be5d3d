"""The model settings of contract §11, read in one place.

Any OpenAI-compatible endpoint: ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``,
``AIMIND_MODEL`` and ``AIMIND_COMPACTION_MODEL``. Memory builds its compaction
model from them (``open_memory(compactor=None)``); the graphs' model provider
(``adapters.models.provider``) builds the chat model from the same settings.
"""

from __future__ import annotations

import os
from typing import Any

from langchain_core.language_models import BaseChatModel

API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
MODEL_ENV = "AIMIND_MODEL"
COMPACTION_MODEL_ENV = "AIMIND_COMPACTION_MODEL"
DEFAULT_MODEL = "gpt-4o-mini"
MODEL_TIMEOUT_S = 60.0
"""Per-request timeout of a model call (compaction also has its own, in memory/limits.py)."""
MODEL_MAX_RETRIES = 2


def has_api_key() -> bool:
    return bool(os.environ.get(API_KEY_ENV, "").strip())


def openai_model(model_name: str, **extra: Any) -> BaseChatModel:
    """``ChatOpenAI`` on the configured endpoint, with a timeout and bounded retries."""
    from langchain_openai import ChatOpenAI  # imported lazily: offline runs never need it

    return ChatOpenAI(
        model=model_name,
        api_key=os.environ[API_KEY_ENV],
        base_url=os.environ.get(BASE_URL_ENV) or None,
        timeout=MODEL_TIMEOUT_S,
        max_retries=MODEL_MAX_RETRIES,
        **extra,
    )


def compaction_model() -> BaseChatModel | None:
    """The LLM compactor's model, or None (no key: memory uses the extractive compactor)."""
    if not has_api_key():
        return None
    name = os.environ.get(COMPACTION_MODEL_ENV) or os.environ.get(MODEL_ENV) or DEFAULT_MODEL
    return openai_model(name, temperature=0)
