"""The exported graph on ``ChatOpenAI``'s real wire path (loopback stub, contract §11).

Every subagent asks for structured output with its own JSON schema; the stub
answers by schema name, so this checks the schemas survive the provider's
structured-output path and the chain runs unchanged on a configured model.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.graphs.delivery_chain import graph
from harness.openai_stub import OpenAIStub, Reply, json_reply, running_stub, text
from tests.delivery.scripts import new_session, plan_output, report_output, task_output, verdict

ANSWERS: dict[str, dict[str, Any]] = {
    "DeliveryPlan": plan_output(),
    "TaskBreakdown": task_output(),
    "ReviewVerdict": verdict("concerns", "Estimates are optimistic."),
    "ReportDraft": report_output("Wire report: two milestones, eight hours."),
}


class SchemaResponder:
    """Answers each structured-output request with the scripted value for its schema."""

    def __init__(self) -> None:
        self.schemas: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        with self._lock:
            self.schemas.append(str(name))
        return json_reply(ANSWERS[name]) if name in ANSWERS else text("not structured")


@pytest.fixture
def responder() -> SchemaResponder:
    return SchemaResponder()


@pytest.fixture
def provider(responder: SchemaResponder, monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIStub]:
    with running_stub(responder) as stub:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("AIMIND_MODEL", "stub-delivery-model")
        yield stub


async def test_chain_runs_on_chat_openai_structured_output(
    provider: OpenAIStub, responder: SchemaResponder, memory_url: str
) -> None:
    session = new_session()
    requirement = "Add CSV export to the monthly reports page."
    out = await graph.ainvoke({"requirement": requirement}, context={"session_id": session})

    assert out["status"] == "completed", out["messages"][-1].text
    assert "Wire report: two milestones" in out["report"]
    assert "| risk | concerns |" in out["report"]
    expected = ["DeliveryPlan", "TaskBreakdown", *["ReviewVerdict"] * 3, "ReportDraft"]
    assert sorted(responder.schemas) == sorted(expected)
    assert {r["model"] for r in provider.requests} == {"stub-delivery-model"}
    state = await (await get_memory()).load(session)
    assert [m.text for m in state.messages] == [requirement, out["report"]]
