"""The models of contract §11, built in one place.

Any OpenAI-compatible endpoint: ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``,
``AIMIND_MODEL`` and ``AIMIND_COMPACTION_MODEL`` (declared in ``memory.config.settings``).
Memory builds its compaction model from them (``open_memory(compactor=None)``); the
graphs' model provider (``adapters.models.provider``) builds the chat model from the
same settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aimind_memory.memory.config.settings import memory_settings

if TYPE_CHECKING:  # langchain's model package costs a process a second of imports
    from langchain_core.language_models import BaseChatModel

MODEL_TIMEOUT_S = 60.0
"""Per-request timeout of a model call (compaction also has its own, in memory/limits.py)."""
MODEL_MAX_RETRIES = 2


def has_api_key() -> bool:
    return memory_settings().openai_api_key is not None


def openai_model(model_name: str, **extra: Any) -> BaseChatModel:
    """``ChatOpenAI`` on the configured endpoint, with a timeout and bounded retries."""
    from langchain_openai import ChatOpenAI  # imported lazily: offline runs never need it

    settings = memory_settings()
    return ChatOpenAI(
        model=model_name,
        api_key=settings.openai_api_key,
        base_url=settings.openai_base_url,
        timeout=MODEL_TIMEOUT_S,
        max_retries=MODEL_MAX_RETRIES,
        **extra,
    )


def compaction_model() -> BaseChatModel | None:
    """The LLM compactor's model, or None (no key: memory uses the extractive compactor)."""
    if not has_api_key():
        return None
    settings = memory_settings()
    return openai_model(settings.compaction_model or settings.model, temperature=0)
