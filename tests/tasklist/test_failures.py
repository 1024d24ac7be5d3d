"""Bad drafts are repaired or reported; failures and cancellation write nothing; never a crash."""

from __future__ import annotations

import asyncio
import threading

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver

from aimind_memory.graphs.tasklist_agent.models import Tasklist
from aimind_memory.memory import MemoryService
from tests.tasklist.support import PLAN, READY, TOKEN, AgentRun, payload, raw_thread_bytes, task

GOAL = "Organise the quarterly team offsite in Lisbon"


async def test_cyclic_and_dangling_draft_is_repaired_and_reviewed(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    bad = [
        task("T1", "Book venue", deps=["T3"]),
        task("T2", "Invite team", deps=["T1", "T9"]),
        task("T3", "Plan agenda", deps=["T2"]),
    ]
    run = AgentRun(saver, [READY, {"tasks": bad}])
    review = payload(await run.start(GOAL))
    plan = Tasklist.model_validate(review["tasklist"])  # a valid plan: no cycle, no dangling id
    assert {t.id for t in plan.tasks} == {"T1", "T2", "T3"}
    assert any("'T9'" in n for n in review["notes"])
    assert any("cycle" in n for n in review["notes"])
    done = await run.resume("approve")
    assert done["status"] == "final"
    assert len((await memory.load(TOKEN)).messages) == 2


@pytest.mark.parametrize(
    "draft",
    [{"tasks": []}, {"tasks": [task("T1", "")]}, ValueError("model exploded")],
    ids=["no-tasks", "no-titles", "model-error"],
)
async def test_unusable_first_draft_is_reported_and_writes_nothing(
    saver: BaseCheckpointSaver, memory: MemoryService, db_url: str, draft: object
) -> None:
    run = AgentRun(saver, [READY, draft])
    done = await run.start(GOAL)
    assert done["status"] == "failed" and "__interrupt__" not in done
    assert done["messages"][-1].text.startswith("I could not draft a valid tasklist")
    assert "exploded" not in done["summary"]  # no raw error text for the user
    assert raw_thread_bytes(db_url, memory.thread_id(TOKEN)) == b""


async def test_readiness_model_failure_ends_failed_without_memory(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [RuntimeError("provider down")])
    done = await run.start(GOAL)
    assert done["status"] == "failed"
    assert "provider down" not in done["summary"]
    assert (await memory.load(TOKEN)).is_empty


async def test_unusable_revision_keeps_the_previous_tasklist(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [READY, PLAN, {"tasks": []}])
    await run.start(GOAL)
    review = payload(await run.resume({"action": "respond", "text": "make it shorter"}))
    assert [t["id"] for t in review["tasklist"]["tasks"]] == ["T1", "T2", "T3"]
    assert "previous tasklist is shown again" in review["notes"][-1]
    assert review["revisionRound"] == 1
    assert (await run.resume("approve"))["status"] == "final"


async def test_cancelled_run_writes_nothing(
    saver: BaseCheckpointSaver, memory: MemoryService, db_url: str
) -> None:
    started, release = threading.Event(), threading.Event()

    def slow_draft(messages: list) -> dict:
        started.set()
        release.wait(10)
        return PLAN

    run = AgentRun(saver, [READY, slow_draft])
    pending = asyncio.create_task(run.start(GOAL))
    assert await asyncio.to_thread(started.wait, 10)
    pending.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await pending
    assert raw_thread_bytes(db_url, memory.thread_id(TOKEN)) == b""
