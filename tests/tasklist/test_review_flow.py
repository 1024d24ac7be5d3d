"""The HITL review: nothing in memory while paused, exactly one turn on final, none on reject."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver

from aimind_memory.graphs.tasklist_agent import summary_message_id
from aimind_memory.graphs.tasklist_agent.models import TASKLIST_MAX_REVISIONS
from aimind_memory.memory import MemoryService
from tests.tasklist.support import PLAN, READY, TOKEN, AgentRun, payload, raw_thread_bytes, task

GOAL = "Plan the launch of our new recipe app next month"


def turns(state) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in state.messages]


async def test_paused_at_review_writes_nothing_then_approve_writes_once(
    saver: BaseCheckpointSaver, memory: MemoryService, db_url: str
) -> None:
    run = AgentRun(saver, [READY, PLAN])
    first = await run.start(GOAL)

    review = payload(first)
    assert review["kind"] == "tasklist-review"
    assert [t["id"] for t in review["tasklist"]["tasks"]] == ["T1", "T2", "T3"]
    assert review["allowedActions"] == ["approve", "edit", "respond", "reject"]
    assert "Collect requirements" in review["markdown"]
    assert (await memory.load(TOKEN)).is_empty
    assert raw_thread_bytes(db_url, memory.thread_id(TOKEN)) == b""

    done = await run.resume({"action": "approve"})

    assert done["status"] == "final"
    assert "**T1 — Collect requirements**" in done["artifact"]
    assert done["messages"][-1].type == "ai" and done["messages"][-1].text == done["summary"]
    assert "3 tasks" in done["summary"]
    assert turns(await memory.load(TOKEN)) == [("user", GOAL), ("assistant", done["summary"])]
    assert len(run.model.calls) == 2  # readiness + draft; the resume re-ran no model call


async def test_resuming_again_or_replaying_adds_no_second_turn(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    done = await run.resume({"action": "approve"})
    expected = [("user", GOAL), ("assistant", done["summary"])]

    again = await run.resume({"action": "approve"})
    assert again["status"] == "final"
    assert turns(await memory.load(TOKEN)) == expected

    # a chat turn in between, so only ids (not "same as the last two texts") can stop a replay
    from aimind_memory.memory import FinalTurn

    await memory.append_turn(
        TOKEN,
        FinalTurn(user_text="thanks", assistant_text="welcome", status="completed", source="chat"),
    )
    history = [s async for s in run.graph.aget_state_history(run.config)]
    before_conclude = next(s for s in history if s.next == ("conclude",))
    replayed = await run.graph.ainvoke(None, before_conclude.config, context={"session_id": TOKEN})
    assert replayed["status"] == "final"
    state = await memory.load(TOKEN)
    assert turns(state) == [*expected, ("user", "thanks"), ("assistant", "welcome")]
    goal_id = done["messages"][0].id
    assert [m.id for m in state.messages[:2]] == [goal_id, summary_message_id(goal_id)]


async def test_reject_writes_nothing(
    saver: BaseCheckpointSaver, memory: MemoryService, db_url: str
) -> None:
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    done = await run.resume({"action": "reject"})
    assert done["status"] == "rejected"
    assert done.get("artifact") is None
    assert "discarded" in done["messages"][-1].text
    assert (await memory.load(TOKEN)).is_empty
    assert raw_thread_bytes(db_url, memory.thread_id(TOKEN)) == b""


async def test_edit_replaces_the_tasklist_and_reaches_final(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    edited = [
        task("E1", "Write the press release", "editor approves"),
        task("E2", "Publish", "live on the site", ["E1", "nope"]),
    ]
    done = await run.resume({"action": "edit", "tasklist": {"tasks": edited}})
    assert done["status"] == "final"
    assert [t["id"] for t in done["tasklist"]["tasks"]] == ["E1", "E2"]
    assert done["tasklist"]["tasks"][1]["depends_on"] == ["E1"]  # the dangling id was repaired
    assert "Write the press release" in done["artifact"]
    assert "edits" in done["summary"]
    assert turns(await memory.load(TOKEN)) == [("user", GOAL), ("assistant", done["summary"])]
    assert len(run.model.calls) == 2


async def test_unusable_edit_asks_again_instead_of_finishing(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    again = await run.resume({"action": "edit", "tasklist": {"tasks": []}})
    review = payload(again)
    assert review["notes"][0] == "your edit could not be used"
    assert [t["id"] for t in review["tasklist"]["tasks"]] == ["T1", "T2", "T3"]
    assert (await memory.load(TOKEN)).is_empty
    unknown = payload(await run.resume({"action": "launch-rockets"}))
    assert "unrecognised" in unknown["notes"][0]
    assert (await run.resume("approve"))["status"] == "final"


async def test_respond_revises_with_the_instruction_then_final(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    revised = {"tasks": [*PLAN["tasks"], task("T4", "Plan a launch party", "venue booked", ["T3"])]}
    run = AgentRun(saver, [READY, PLAN, revised])
    await run.start(GOAL)
    second = payload(await run.resume({"action": "respond", "text": "add a launch party"}))
    assert [t["id"] for t in second["tasklist"]["tasks"]] == ["T1", "T2", "T3", "T4"]
    assert second["revisionRound"] == 1 and second["revisionsLeft"] == TASKLIST_MAX_REVISIONS - 1
    revision_prompt = run.model.calls[-1][-1].text
    assert "add a launch party" in revision_prompt and "Collect requirements" in revision_prompt

    done = await run.resume({"action": "approve"})
    assert done["status"] == "final" and "after 1 revision round" in done["summary"]
    assert turns(await memory.load(TOKEN)) == [("user", GOAL), ("assistant", done["summary"])]


async def test_third_revision_request_is_decided_not_looped(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    drafts = [{"tasks": [task("T1", f"draft {n}")]} for n in range(TASKLIST_MAX_REVISIONS + 1)]
    run = AgentRun(saver, [READY, *drafts])
    result = await run.start(GOAL)
    for n in range(TASKLIST_MAX_REVISIONS):
        assert "respond" in payload(result)["allowedActions"]
        result = await run.resume({"action": "respond", "text": f"change {n}"})
    last_review = payload(result)
    assert last_review["allowedActions"] == ["approve", "edit", "reject"]
    assert last_review["revisionsLeft"] == 0

    done = await run.resume({"action": "respond", "text": "one more change please"})
    assert done["status"] == "final"
    assert "__interrupt__" not in done
    assert "revision limit" in done["summary"]
    assert f"draft {TASKLIST_MAX_REVISIONS}" in done["artifact"]
    assert len(run.model.calls) == 1 + 1 + TASKLIST_MAX_REVISIONS  # no third revision asked
    assert turns(await memory.load(TOKEN)) == [("user", GOAL), ("assistant", done["summary"])]


async def test_new_goal_after_a_finished_plan_starts_a_fresh_plan(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    other = {"tasks": [task("N1", "Hire a translator", "contract signed")]}
    run = AgentRun(saver, [READY, PLAN, READY, other])
    await run.start(GOAL)
    await run.resume("reject")
    second_goal = "Translate the recipe app into Spanish"
    review = payload(await run.start(second_goal))
    assert review["goal"] == second_goal and review["revisionRound"] == 0
    assert [t["id"] for t in review["tasklist"]["tasks"]] == ["N1"]
    done = await run.resume("approve")
    assert done["status"] == "final" and "Hire a translator" in done["artifact"]
    assert turns(await memory.load(TOKEN)) == [
        ("user", second_goal),
        ("assistant", done["summary"]),
    ]
