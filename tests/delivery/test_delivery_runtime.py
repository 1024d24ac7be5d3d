"""How the chain runs: reviewers concurrently, progress on the custom stream, fresh reruns."""

from __future__ import annotations

import json
import threading
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver

from aimind_memory.graphs.delivery_chain import build_graph
from aimind_memory.graphs.delivery_chain.prompts import REVIEWERS
from aimind_memory.graphs.delivery_chain.report import REPORT_TITLE
from aimind_memory.graphs.delivery_chain.stages import PROGRESS_EVENT, STAGES
from tests.delivery.scripts import new_session, plan_output, stage_models, task_output, verdict
from tests.support.fakes import ScriptedChatModel

BARRIER_TIMEOUT_S = 30.0
"""Only a guard: a serial implementation breaks the barrier instead of hanging."""


def meets_at(barrier: threading.Barrier, kind: str) -> Any:
    def step(messages: list[BaseMessage]) -> dict[str, Any]:
        barrier.wait()  # returns only once all three reviewers are inside a model call
        return verdict(kind)

    return step


async def test_reviewers_run_concurrently(memory_url: str) -> None:
    barrier = threading.Barrier(len(REVIEWERS), timeout=BARRIER_TIMEOUT_S)
    models = stage_models(**{name: meets_at(barrier, "pass") for name in REVIEWERS})
    out = await build_graph(models=models).ainvoke(
        {"requirement": "Add CSV export."}, context={"session_id": new_session()}
    )

    assert not barrier.broken, "a reviewer waited alone: reviews ran one after another"
    assert out["status"] == "completed"
    assert all(len(models[name].calls) == 1 for name in REVIEWERS)


async def progress_events(models: dict[str, Any]) -> list[dict[str, Any]]:
    chain = build_graph(models=models)
    events = []
    async for chunk in chain.astream(
        {"requirement": "Add CSV export."},
        context={"session_id": new_session()},
        stream_mode="custom",
    ):
        if isinstance(chunk, dict) and chunk.get("type") == PROGRESS_EVENT:
            events.append(chunk)
    return events


async def test_progress_events_in_stage_order(memory_url: str) -> None:
    events = await progress_events(stage_models())

    total = len(STAGES)
    assert {e["total"] for e in events} == {total}
    for event in events:
        assert event["index"] == STAGES.index(event["stage"]) + 1
    assert [(e["stage"], e["status"]) for e in events[:6]] == [
        ("load", "started"), ("load", "succeeded"),
        ("plan", "started"), ("plan", "succeeded"),
        ("task", "started"), ("task", "succeeded"),
    ]  # fmt: skip
    group = events[6:12]
    assert {e["stage"] for e in group} == set(REVIEWERS)
    for name in REVIEWERS:
        mine = [e["status"] for e in group if e["stage"] == name]
        assert mine == ["started", "succeeded"]
    assert [(e["stage"], e["status"]) for e in events[12:]] == [
        ("synthesize", "started"),
        ("synthesize", "succeeded"),
    ]
    assert [e["index"] for e in events if e["status"] == "succeeded"][-1] == total


async def test_progress_reports_the_failed_stage(memory_url: str) -> None:
    events = await progress_events(stage_models(task=RuntimeError("boom")))

    assert [(e["stage"], e["status"]) for e in events] == [
        ("load", "started"), ("load", "succeeded"),
        ("plan", "started"), ("plan", "succeeded"),
        ("task", "started"), ("task", "failed"),
    ]  # fmt: skip
    assert events[-1]["index"] == 3


async def test_rerun_on_the_same_thread_starts_fresh(memory_url: str) -> None:
    saver = InMemorySaver()
    config = {"configurable": {"thread_id": "delivery-thread-1"}}
    session = new_session()
    failing = build_graph(models=stage_models(risk=RuntimeError("boom")), checkpointer=saver)
    first = await failing.ainvoke({"requirement": "One."}, config, context={"session_id": session})
    assert first["status"] == "failed"

    working = build_graph(models=stage_models(), checkpointer=saver)
    second = await working.ainvoke({"requirement": "Two."}, config, context={"session_id": session})

    assert second["status"] == "completed", "the first run's failure must not leak into the next"
    state = (await working.aget_state(config)).values
    assert set(state["artifacts"]) == set(STAGES), "every stage output is a RuntimeArtifact"
    assert state["artifacts"]["risk"]["kind"] == "ReviewVerdict"
    assert state["user_text"] == "Two."


class WireModel(ScriptedChatModel):
    """Structured output through a real model call (callbacks fire, as with ChatOpenAI)."""

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Runnable:
        return self | RunnableLambda(lambda message: schema.model_validate_json(message.text))


async def test_subagent_calls_are_not_streamed_as_chat_messages(memory_url: str) -> None:
    marker = "SUBAGENTMARK-9"
    steps = stage_models(plan=plan_output(marker), task=task_output(marker))
    models = {
        stage: WireModel(script=[json.dumps(model.script[0])]) for stage, model in steps.items()
    }
    streamed: list[str] = []
    async for message, _meta in build_graph(models=models).astream(
        {"requirement": "Add CSV export."},
        context={"session_id": new_session()},
        stream_mode="messages",
    ):
        streamed.append(str(message.text))

    assert models["plan"].calls, "the plan subagent really ran through the model"
    assert not any(marker in text for text in streamed), "subagent output streamed as chat"
    assert any(text.startswith(REPORT_TITLE) for text in streamed), "the report is streamed"


def test_studio_can_build_the_schemas() -> None:
    chain = build_graph()
    assert {"messages", "requirement"} <= set(chain.get_input_jsonschema()["properties"])
    assert {"messages", "status", "report"} <= set(chain.get_output_jsonschema()["properties"])
    assert "session_id" in chain.get_context_jsonschema()["properties"]


async def values_messages(models: dict[str, Any]) -> list[list[tuple[str, str, str]]]:
    """Each ``values`` event's AI messages as (id, text) — what a stock client shows."""
    seen = []
    async for state in build_graph(models=models).astream(
        {"messages": [{"role": "user", "content": "Add CSV export.", "id": "req-1"}]},
        context={"session_id": new_session()},
        stream_mode="values",
    ):
        seen.append([(m.type, m.id, str(m.text)) for m in state.get("messages", [])])
    return seen


async def test_values_show_progress_that_the_report_replaces(memory_url: str) -> None:
    """A client reading only ``values`` (agent-chat-ui) sees the stages advance in one message,
    then the report in its place: never two answers, never a progress line left behind."""
    seen = await values_messages(stage_models())
    progress = [ai for step in seen for ai in step if ai[0] == "ai" and "stages done" in ai[2]]
    assert len({ai[1] for ai in progress}) == 1, "one progress message, updated in place"
    assert list(dict.fromkeys(ai[2].split(" stages done")[0][-6:] for ai in progress)) == [
        "1 of 7",
        "2 of 7",
        "3 of 7",
    ]
    final = seen[-1]
    assert [kind for kind, _, _ in final] == ["human", "ai"]
    assert final[1][2].startswith(REPORT_TITLE) and final[1][1] != progress[0][1]


async def test_a_failed_stage_replaces_the_progress_with_the_failure(memory_url: str) -> None:
    seen = await values_messages(stage_models(task=RuntimeError("boom")))
    final = seen[-1]
    assert [kind for kind, _, _ in final] == ["human", "ai"]
    assert "failed at the **task** stage" in final[1][2]
