"""Model provider (placeholder until the chat graph issue lands)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel


def compaction_model() -> BaseChatModel | None:
    return None
