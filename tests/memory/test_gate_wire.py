"""Issue 44's table over ChatOpenAI's real wire path (contract §5, §11): the loopback
OpenAI-compatible stub answers the LLM compactor's structured-output call with each bad
output, and memory compacts after the turn, on both backends.

Whatever the model answered, nothing bad is stored and nothing is lost (as through the
``Compactor`` protocol, ``test_compactor_gate.py``). A model that keeps answering 429 or
500, or never answers, never loses a turn and never holds up a turn's write: turns keep
being written while its calls fail, memory's bounds hold after every write, and the
extractive compactor folds what it could not.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from aimind_memory.memory import LLMCompactor, MemoryLimits, open_memory
from harness.openai_stub import OpenAIStub, Reply, error, json_reply, running_stub

from .gate_cases import (
    GOOD,
    ROWS,
    Row,
    assert_logged_once,
    assert_nothing_bad_and_nothing_lost,
    play,
    wire_reply,
)
from .helpers import assert_bounds, new_token, turn

WRITE_LIVENESS_S = 30.0
"""A turn's write returns within this however the model behaves (a liveness bound, far
above a write's time: never a speed target)."""
HANGING_TIMEOUT_S = 1.0
"""The compaction time limit while the model never answers."""
FAILING_TURNS = 12


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIStub]:
    with running_stub() as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        yield server


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="aimind")
    return caplog


@pytest.mark.parametrize("row", [r for r in ROWS if r.wire], ids=lambda r: r.name)
async def test_a_bad_model_answer_over_the_wire_never_lands(
    row: Row, stub: OpenAIStub, db_url: str, logs: pytest.LogCaptureFixture
) -> None:
    calls: list[dict[str, Any]] = []

    def responder(body: dict[str, Any]) -> Reply:
        assert body["response_format"]["type"] == "json_schema"
        calls.append(body)
        return json_reply(GOOD) if len(calls) == 1 else Reply(content=wire_reply(row, body))

    stub.responder = responder
    token = new_token()
    async with open_memory(db_url) as mem:  # compactor=None: the configured model
        assert isinstance(mem.compactor, LLMCompactor)
        events = await play(mem, token)
        mem.store.forget(mem.thread_id(token))  # read what the database holds
        snapshot = await mem.snapshot(token)
    assert len(calls) == 2
    assert_nothing_bad_and_nothing_lost(snapshot.state, row)
    status = "failed" if row.failed else "succeeded"
    assert [e["status"] for e in events] == ["started", status]
    assert snapshot.last_compaction is not None
    assert snapshot.last_compaction["status"] == status
    assert snapshot.last_compaction["compactor"] == ("extractive" if row.failed else "llm")
    assert_logged_once(logs, row)


def tagged(n: int) -> tuple[str, str]:
    """Turn ``n``: a tag the extractive compactor keeps in its summary."""
    return (
        f"Fact {n}: the review of project P{n} is in room {n}B at {n}:30 on Friday.",
        f"Noted: project P{n} review, room {n}B.",
    )


async def model_called(stub: OpenAIStub) -> None:
    while not stub.requests:  # noqa: ASYNC110  (the stub serves on its own thread)
        await asyncio.sleep(0.01)


async def write_while_the_model_fails(
    stub: OpenAIStub, db_url: str, limits: MemoryLimits | None = None
) -> Any:
    """``FAILING_TURNS`` turns, one straight after another, the bounds checked after each:
    from the first compaction's model call on (turn 5 starts it), while it fails. Then the
    compactions settle. The snapshot at the end."""
    token = new_token()
    async with open_memory(db_url, limits=limits) as mem:
        for n in range(1, FAILING_TURNS + 1):
            result = await asyncio.wait_for(
                mem.append_turn(token, turn(*tagged(n))), WRITE_LIVENESS_S
            )
            assert result.written
            assert_bounds((await mem.snapshot(token)).state, pending=True)
            if result.pending:
                await asyncio.wait_for(model_called(stub), WRITE_LIVENESS_S)
        await mem.settle(token)
        return await mem.snapshot(token)


def assert_every_turn_kept(snapshot: Any) -> None:
    state = snapshot.state
    memory = " ".join([*(m.text for m in state.messages), state.summary, *state.pinned_decisions])
    for n in range(1, FAILING_TURNS + 1):  # in the window, the summary or a pin
        assert f"project P{n} " in memory, n
    assert_bounds(state)  # settled: the window is back within RECENT_TURNS
    assert snapshot.last_compaction is not None
    assert snapshot.last_compaction["compactor"] == "extractive"  # the model never landed


@pytest.mark.parametrize(("status", "kind"), [(429, "RateLimitError"), (500, "APIError")])
async def test_a_model_that_keeps_failing_never_loses_a_turn(
    status: int, kind: str, stub: OpenAIStub, db_url: str, logs: pytest.LogCaptureFixture
) -> None:
    stub.responder = lambda body: error(status, "Too Many Requests, slow down")
    snapshot = await write_while_the_model_fails(stub, db_url)
    assert len(stub.requests) >= 3  # the client retried, and every compaction failed
    assert_every_turn_kept(snapshot)
    failures = [r.getMessage() for r in logs.records if "using extractive" in r.getMessage()]
    assert failures and all(f"{kind})" in line for line in failures), failures
    assert "Too Many Requests" not in logs.text and "project P" not in logs.text


async def test_a_model_that_never_answers_never_holds_up_a_turn(
    stub: OpenAIStub, db_url: str, logs: pytest.LogCaptureFixture
) -> None:
    never = threading.Event()
    stub.responder = lambda body: Reply(content="{}", after=never)
    try:
        limits = MemoryLimits(compaction_timeout_s=HANGING_TIMEOUT_S)
        snapshot = await write_while_the_model_fails(stub, db_url, limits)
    finally:
        never.set()
    assert_every_turn_kept(snapshot)
    failures = [r.getMessage() for r in logs.records if "using extractive" in r.getMessage()]
    assert failures and all("(TimeoutError)" in line for line in failures), failures
