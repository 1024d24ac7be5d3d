"""The delivery chain end to end: what the user sees and what chat memory keeps (contract §6)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.graphs.delivery_chain import build_graph, graph
from aimind_memory.graphs.delivery_chain.report import REPORT_TITLE
from aimind_memory.graphs.delivery_chain.stages import PLAN, SYNTHESIZE, TASK
from aimind_memory.memory import ThreadState
from aimind_memory.memory.config.limits import MESSAGE_CHAR_CAP, TRUNCATION_MARKER
from tests.delivery.scripts import (
    REPORT_BODY,
    new_session,
    report_output,
    stage_models,
    verdict,
)

REQUIREMENT = "Add CSV export to the monthly reports page."
GUARD_TIMEOUT_S = 30.0
"""Only a guard against a hang; no test asserts on time."""


async def run(models: dict[str, Any], session: str, **payload: Any) -> dict[str, Any]:
    payload = payload or {"requirement": REQUIREMENT}
    return await build_graph(models=models).ainvoke(payload, context={"session_id": session})


async def memory_of(session: str) -> ThreadState:
    return await (await get_memory()).load(session)


def last_ai_text(out: dict[str, Any]) -> str:
    return str([m for m in out["messages"] if isinstance(m, AIMessage)][-1].text)


async def test_completed_run_writes_requirement_and_report(memory_url: str) -> None:
    session = new_session()
    out = await run(stage_models(), session)

    assert out["status"] == "completed"
    assert out["report"].startswith(REPORT_TITLE + "\n")
    assert REPORT_BODY in out["report"]
    assert last_ai_text(out) == out["report"], "SDK/Studio users see the report as an AI message"
    state = await memory_of(session)
    assert [(m.role, m.text) for m in state.messages] == [
        ("user", REQUIREMENT),
        ("assistant", out["report"]),
    ]


async def test_requirement_from_latest_human_message(memory_url: str) -> None:
    session = new_session()
    human = HumanMessage(content="Ship single sign-on for the admin console.", id="human-1")
    out = await run(stage_models(), session, messages=[human])

    assert out["status"] == "completed"
    state = await memory_of(session)
    assert state.messages[0].text == human.content
    assert state.messages[0].id == "human-1"


async def test_long_report_is_capped_with_the_marker(memory_url: str) -> None:
    session = new_session()
    body = ("The exporter streams rows in pages of one thousand. " * 400)[:20_000]
    out = await run(stage_models(**{SYNTHESIZE: report_output(body)}), session)

    assert out["status"] == "completed"
    assert len(out["report"]) > 20_000, "the user still gets the whole report"
    stored = (await memory_of(session)).messages[1].text
    assert len(stored) <= MESSAGE_CHAR_CAP
    assert stored.endswith(TRUNCATION_MARKER)
    assert out["report"].startswith(stored.removesuffix(TRUNCATION_MARKER))
    assert len(stored) > MESSAGE_CHAR_CAP - 200, "cut near the cap, not far below it"


async def test_short_report_is_stored_unchanged(memory_url: str) -> None:
    session = new_session()
    out = await run(stage_models(), session)

    stored = (await memory_of(session)).messages[1].text
    assert stored == out["report"]
    assert TRUNCATION_MARKER not in stored


async def test_blocking_reviewer_blocks_and_is_written(memory_url: str) -> None:
    session = new_session()
    models = stage_models(boundary=verdict("block", "Touches production payroll data."))
    out = await run(models, session)

    assert out["status"] == "blocked"
    assert "**Status:** blocked" in out["report"]
    assert "| boundary | block |" in out["report"]
    state = await memory_of(session)
    assert [m.role for m in state.messages] == ["user", "assistant"]
    assert state.messages[1].text == out["report"]


async def test_concerns_do_not_block(memory_url: str) -> None:
    session = new_session()
    out = await run(stage_models(risk=verdict("concerns", "Estimates are tight.")), session)
    assert out["status"] == "completed"
    assert "| risk | concerns |" in out["report"]


async def test_raising_subagent_fails_without_writing(memory_url: str) -> None:
    session = new_session()
    models = stage_models(risk=RuntimeError("provider exploded: secret-stack-detail"))
    out = await run(models, session)

    assert out["status"] == "failed"
    message = last_ai_text(out)
    assert "failed at the **risk** stage" in message
    assert "nothing was written to chat memory" in message
    assert "secret-stack-detail" not in message, "no raw error detail reaches the user"
    assert models[SYNTHESIZE].calls == [], "no report after a failed review"
    assert (await memory_of(session)).is_empty


async def test_failure_stops_the_chain_early(memory_url: str) -> None:
    session = new_session()
    models = stage_models(**{PLAN: RuntimeError("boom")})
    out = await run(models, session)

    assert out["status"] == "failed"
    assert "failed at the **plan** stage" in last_ai_text(out)
    assert models[TASK].calls == []
    assert all(models[name].calls == [] for name in ("review", "risk", "boundary"))
    assert (await memory_of(session)).is_empty


async def test_model_without_structured_output_fails_clearly(memory_url: str) -> None:
    session = new_session()
    plain = FakeListChatModel(responses=["I can only chat."])
    out = await build_graph(plain).ainvoke(
        {"requirement": REQUIREMENT}, context={"session_id": session}
    )

    assert out["status"] == "failed"
    message = last_ai_text(out)
    assert "failed at the **plan** stage" in message
    assert "does not support structured output" in message
    assert (await memory_of(session)).is_empty


async def test_invalid_subagent_answer_fails(memory_url: str) -> None:
    session = new_session()
    bad = {"tasks": [{"title": "Write exporter", "estimate_hours": 0}]}
    out = await run(stage_models(**{TASK: bad}), session)

    assert out["status"] == "failed"
    assert "did not match the expected structure" in last_ai_text(out)
    assert (await memory_of(session)).is_empty


async def test_missing_requirement_fails(memory_url: str) -> None:
    session = new_session()
    models = stage_models()
    out = await run(models, session, requirement="   ")

    assert out["status"] == "failed"
    assert "no requirement was given" in last_ai_text(out)
    assert models[PLAN].calls == []
    assert (await memory_of(session)).is_empty


async def test_offline_model_runs_the_whole_chain(memory_url: str) -> None:
    session = new_session()
    out = await graph.ainvoke({"requirement": REQUIREMENT}, context={"session_id": session})

    assert out["status"] == "completed"
    assert "[offline]" in out["report"]
    assert REQUIREMENT in out["report"]
    assert (await memory_of(session)).messages[1].text == out["report"]


async def test_cancelled_run_writes_nothing(memory_url: str) -> None:
    session = new_session()
    loop = asyncio.get_running_loop()
    reviewing, release = asyncio.Event(), threading.Event()

    def slow_review(messages: list[BaseMessage]) -> dict[str, Any]:
        loop.call_soon_threadsafe(reviewing.set)
        release.wait(GUARD_TIMEOUT_S)
        return verdict("pass")

    models = stage_models(review=slow_review)
    running = asyncio.create_task(run(models, session))
    await asyncio.wait_for(reviewing.wait(), GUARD_TIMEOUT_S)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    release.set()

    assert models[SYNTHESIZE].calls == []
    assert (await memory_of(session)).is_empty
