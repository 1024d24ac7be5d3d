"""The chat graph while its database is down: it keeps answering, memory reports `failed`.

On PostgreSQL (contract §15) a turn during the outage is answered, and the first turn once
the database is back is written; these tests run on the defaults. How long either takes
is the bench's to measure (benchmark 15, "PostgreSQL outage": a few seconds, against
psycopg's 60 s wait and 20-30 s recovery), not a test's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from aimind_memory.adapters.chat_memory.runtime import close_memory, get_memory
from aimind_memory.graphs.chat import build_graph
from harness.faults import (
    SQLITE_BUSY_ENV,
    assert_bounded,
    own_postgres,
    sqlite_write_lock,
)
from tests.support.fakes import ScriptedChatModel

TOKEN = "chat-outage-session-01"
ERROR_WORDS = ("error", "exception", "traceback", "psycopg", "sqlite", "locked", "connection")


@pytest.fixture
async def closing_memory() -> AsyncIterator[None]:
    yield
    await close_memory()


async def ask(graph: Any, text: str) -> tuple[str, list[dict[str, Any]]]:
    """One chat turn as a client streams it: the answer and the memory status events."""
    answer, events = None, []
    async for mode, chunk in graph.astream(
        {"messages": [{"role": "user", "content": text}]},
        context={"session_id": TOKEN},
        stream_mode=["values", "custom"],
    ):
        if mode == "values" and chunk.get("messages"):
            answer = chunk["messages"][-1].content
        elif mode == "custom" and chunk.get("type") == "thread-memory-status":
            events.append(chunk)
    assert isinstance(answer, str)
    return answer, events


def assert_quiet_log(caplog: pytest.LogCaptureFixture) -> None:
    """The outage is logged as a sentence with the error's type: no stack trace, no database
    error text (it can carry the conversation), nothing of the conversation itself."""
    ours = [r for r in caplog.records if r.name.startswith("aimind")]
    assert ours, "the outage was not logged at all"
    for record in ours:
        assert record.exc_info is None and record.stack_info is None, record.getMessage()
        text = record.getMessage().lower()
        assert "question" not in text and "answer" not in text, text
        assert "traceback" not in text and "connection" not in text, text


async def outage_scenario(graph: Any, outage: Any) -> None:
    """Two turns, an outage turn, then a turn after recovery."""
    for i in range(2):
        answer, events = await ask(graph, f"question {i}")
        assert answer == f"answer {i}"
        assert "failed" not in [e["status"] for e in events]
    with outage():
        answer, events = await ask(graph, "question during outage")
        assert answer == "answer during outage", "the user still gets the model's answer"
        assert not any(word in answer.lower() for word in ERROR_WORDS)
        assert [e["status"] for e in events] == ["failed"]
        for event in events:
            assert set(event) == {"type", "status", "summaryLength", "pinnedDecisionCount"}
    answer, events = await ask(graph, "question after")  # the first turn once it is back
    assert answer == "answer after"
    assert "failed" not in [e["status"] for e in events]
    state = await (await get_memory()).load(TOKEN)
    assert_bounded(state)
    assert [m.text for m in state.messages] == [
        "question 0",
        "answer 0",
        "question 1",
        "answer 1",
        "question after",
        "answer after",
    ]


def scripted_graph() -> Any:
    answers = ["answer 0", "answer 1", "answer during outage", "answer after"]
    return build_graph(model=ScriptedChatModel(script=[AIMessage(a) for a in answers]), tools=[])


async def test_chat_answers_while_postgres_is_down(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, closing_memory: None
) -> None:
    with own_postgres() as pg:
        monkeypatch.setenv("AIMIND_DATABASE_URL", pg.uri)

        @contextmanager
        def server_down() -> Iterator[None]:
            pg.stop()
            try:
                yield
            finally:
                pg.start()

        await outage_scenario(scripted_graph(), server_down)
        await close_memory()
    assert_quiet_log(caplog)


async def test_chat_answers_while_sqlite_is_locked(
    sqlite_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    closing_memory: None,
) -> None:
    monkeypatch.setenv(SQLITE_BUSY_ENV, "0.3")
    monkeypatch.setenv("AIMIND_DATABASE_URL", sqlite_url)
    path = Path(sqlite_url.removeprefix("sqlite:///"))
    await get_memory()  # the database exists before another process locks it
    await outage_scenario(scripted_graph(), lambda: sqlite_write_lock(path))
    assert_quiet_log(caplog)
