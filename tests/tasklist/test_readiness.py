"""Reading the goal and judging readiness: clarifying question, boundary message, documents."""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver

from aimind_memory.adapters.models.offline import OfflineChatModel
from aimind_memory.graphs.tasklist_agent import compile_agent
from aimind_memory.graphs.tasklist_agent.models import Readiness
from aimind_memory.memory import MemoryService
from tests.tasklist.support import PLAN, READY, TOKEN, AgentRun, payload, raw_thread_bytes

CLARIFY = Readiness(verdict="clarify", question="Which app, and launching where?")


def turns(state) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in state.messages]


async def test_vague_goal_asks_then_plans_with_the_answer(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [CLARIFY, READY, PLAN])
    question = payload(await run.start("launch it"))
    assert {k: question[k] for k in ("kind", "question", "allowedActions")} == {
        "kind": "clarification",
        "question": "Which app, and launching where?",
        "allowedActions": ["respond", "reject"],
    }
    assert question["action_requests"][0]["name"] == "answer_question"
    assert "Which app, and launching where?" in question["action_requests"][0]["description"]
    assert (await memory.load(TOKEN)).is_empty

    review = payload(await run.resume({"action": "respond", "text": "the recipe app, in Spain"}))
    assert review["kind"] == "tasklist-review"
    second_judge = run.model.calls[1][-1].text
    assert "the recipe app, in Spain" in second_judge and "launch it" in second_judge

    done = await run.resume("approve")
    assert done["status"] == "final"
    assert turns(await memory.load(TOKEN)) == [
        ("user", "launch it"),
        ("assistant", done["summary"]),
    ]


async def test_still_vague_after_the_question_stops_blocked_and_is_remembered(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [CLARIFY, CLARIFY])
    await run.start("do stuff")
    done = await run.resume({"action": "respond", "text": "things"})
    assert done["status"] == "blocked" and "__interrupt__" not in done
    assert done["summary"].startswith("I need more detail before I can plan this")
    assert done.get("artifact") is None
    assert turns(await memory.load(TOKEN)) == [("user", "do stuff"), ("assistant", done["summary"])]


async def test_out_of_scope_goal_stops_blocked_with_the_boundary_message(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    boundary = "I only plan tasklists; I can't book flights for you."
    run = AgentRun(saver, [Readiness(verdict="out_of_scope", message=boundary)])
    done = await run.start("Book me a flight to Rome tonight")
    assert done["status"] == "blocked" and done["summary"] == boundary
    assert done["messages"][-1].text == boundary
    assert turns(await memory.load(TOKEN)) == [
        ("user", "Book me a flight to Rome tonight"),
        ("assistant", boundary),
    ]


async def test_rejecting_the_question_writes_nothing(
    saver: BaseCheckpointSaver, memory: MemoryService, db_url: str
) -> None:
    run = AgentRun(saver, [CLARIFY])
    await run.start("launch it")
    done = await run.resume({"action": "reject"})
    assert done["status"] == "rejected"
    assert raw_thread_bytes(db_url, memory.thread_id(TOKEN)) == b""


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "documents"
    folder.mkdir()
    monkeypatch.setenv("AIMIND_DOCS_DIR", str(folder))
    return folder


async def test_referenced_document_reaches_the_model_not_memory(
    saver: BaseCheckpointSaver, memory: MemoryService, db_url: str, docs: Path
) -> None:
    marker = "DOC-MARKER-7f3a"
    (docs / "launch.md").write_text(f"# Launch brief\nMarket: Spain. Secret code {marker}.\n")
    goal = "Plan the work described in @docs/launch.md"
    run = AgentRun(saver, [READY, PLAN])
    await run.start(goal)
    assert all(marker in call[-1].text for call in run.model.calls)  # judge and draft saw it

    await run.resume("approve")
    state = await memory.load(TOKEN)
    assert state.messages[0].text == goal
    assert marker.encode() not in raw_thread_bytes(db_url, memory.thread_id(TOKEN))
    assert marker not in str(await memory.hydrate(TOKEN))


async def test_unreadable_document_reference_stops_blocked_without_a_model_call(
    saver: BaseCheckpointSaver, memory: MemoryService, docs: Path
) -> None:
    run = AgentRun(saver, [])
    done = await run.start("Plan from @docs/../etc/passwd and @docs/missing.md")
    assert done["status"] == "blocked"
    assert "@docs/missing.md" in done["summary"]
    assert run.model.calls == []
    assert turns(await memory.load(TOKEN))[1] == ("assistant", done["summary"])


async def test_empty_goal_is_answered_but_not_remembered(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [])
    done = await run.start("   ")
    assert done["status"] == "blocked" and "goal" in done["summary"]
    assert run.model.calls == []
    assert (await memory.load(TOKEN)).is_empty


@pytest.mark.parametrize(
    ("goal", "kind"),
    [
        ("准备周五的发布", "tasklist-review"),
        ("Plan the beta launch", "tasklist-review"),
        ("发布", "clarification"),
        ("launch it", "clarification"),
    ],
)
async def test_the_offline_model_counts_chinese_words(
    saver: BaseCheckpointSaver, memory: MemoryService, goal: str, kind: str
) -> None:
    """The offline model asks a question only of goals under three words, in any script."""
    run = AgentRun(saver)
    run.graph = compile_agent(saver, model=OfflineChatModel())
    assert payload(await run.start(goal))["kind"] == kind
