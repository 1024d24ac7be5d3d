"""Fixtures for the middleware tests: memory on a real database, an agent with a tool.

The model answers by rule and records every request: a user message with
``[[lookup]]`` makes it call the ``lookup`` tool once (a marker in the call's
arguments and in the tool's result, neither of which may reach memory), anything
else is answered with a text naming the user's message.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

from aimind_memory.adapters.chat_memory import ChatMemoryMiddleware
from aimind_memory.adapters.chat_memory.runtime import close_memory
from tests.support.fakes import ScriptedChatModel, answering, calling

SYSTEM = "You are the test agent."
LOOKUP = "[[lookup]]"
ARGS_MARKER = "MW-TOOL-ARGS-MARKER-5e1c"
RESULT_MARKER = "MW-TOOL-RESULT-MARKER-9d2a"
_calls = itertools.count()


@tool
def lookup(term: str) -> str:
    """Look a term up."""
    return f"{term} means something; internal note {RESULT_MARKER}"


def reply(messages: list[BaseMessage]) -> AIMessage:
    """Call ``lookup`` for a ``[[lookup]]`` question (once), else answer its text."""
    last = messages[-1]
    if isinstance(last, HumanMessage) and LOOKUP in last.text:
        return calling("lookup", {"term": ARGS_MARKER}, f"call-{next(_calls)}")
    question = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
    used = " (looked up)" if isinstance(last, ToolMessage) else ""
    return AIMessage(f"Answer to «{question.text.replace(LOOKUP, '').strip()}»{used}.")


def model() -> ScriptedChatModel:
    return answering(reply)


def agent(
    chat: ScriptedChatModel, middleware: ChatMemoryMiddleware | None = None, **kwargs: Any
) -> Any:
    return create_agent(
        chat,
        [lookup],
        system_prompt=SYSTEM,
        middleware=[middleware or ChatMemoryMiddleware()],
        **kwargs,
    )


def user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


@pytest.fixture
async def memory_url(db_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    """``AIMIND_DATABASE_URL`` on ``db_url`` (SQLite file and Postgres), closed afterwards."""
    monkeypatch.setenv("AIMIND_DATABASE_URL", db_url)
    yield db_url
    await close_memory()
