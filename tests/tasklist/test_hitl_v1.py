"""contract §8a: both interrupts in LangChain v1's human-in-the-loop shape, resumed by decisions."""

from __future__ import annotations

import json

from langgraph.checkpoint.base import BaseCheckpointSaver

from aimind_memory.graphs.tasklist_agent.models import TASKLIST_MAX_REVISIONS, Readiness
from aimind_memory.graphs.tasklist_agent.task_lines import parse_task_lines
from aimind_memory.memory import MemoryService
from tests.tasklist.support import PLAN, READY, TOKEN, AgentRun, payload, task

GOAL = "Plan the launch of our new recipe app next month"
CLARIFY = Readiness(verdict="clarify", question="Which app, and launching where?")


def decisions(*items: dict) -> dict:
    return {"decisions": list(items)}


def edit(args: object, name: str = "review_tasklist") -> dict:
    return {"type": "edit", "edited_action": {"name": name, "args": args}}


def turns(state) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in state.messages]


async def test_review_interrupt_has_the_v1_shape_beside_the_project_keys(
    saver: BaseCheckpointSaver,
) -> None:
    review = payload(await AgentRun(saver, [READY, PLAN]).start(GOAL))
    [request] = review["action_requests"]
    assert request["name"] == "review_tasklist"
    assert request["args"] == {
        "tasks": "T1: Collect requirements | done when: requirements list signed off\n"
        "T2: Build the thing | done when: demo runs | after: T1\n"
        "T3: Ship it | done when: released to users | after: T2"
    }
    assert "Collect requirements" in request["description"]
    assert "2 revisions left" in request["description"]
    assert review["review_configs"] == [
        {"action_name": "review_tasklist", "allowed_decisions": ["approve", "edit", "reject"]}
    ]
    assert review["kind"] == "tasklist-review" and review["tasklist"] == PLAN
    json.dumps(review)  # plain JSON, as the server sends it


async def test_approve_decision_finalises(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    done = await run.resume(decisions({"type": "approve"}))
    assert done["status"] == "final" and "approved" in done["summary"]
    # a client that renders only messages shows the approved plan, then the summary
    assert [m.text for m in done["messages"][-2:]] == [done["artifact"], done["summary"]]
    assert turns(await memory.load(TOKEN)) == [("user", GOAL), ("assistant", done["summary"])]


async def test_edit_decision_takes_the_task_lines_back(saver: BaseCheckpointSaver) -> None:
    """agent-chat-ui sends back the text box as typed: numbering, bullets, blank lines,
    a new line without an id, a dependency on a task that is gone."""
    run = AgentRun(saver, [READY, PLAN])
    shown = payload(await run.start(GOAL))["action_requests"][0]["args"]["tasks"]
    lines = shown.splitlines()
    typed = "\n".join(
        [
            "1. " + lines[0].replace("Collect requirements", "Interview five users"),
            "",
            "  - " + lines[2].replace("after: T2", "after: T9"),
            "* Write the press release | done when: approved by legal",
        ]
    )
    done = await run.resume(decisions(edit({"tasks": typed})))
    assert done["status"] == "final" and "finalised with your edits" in done["summary"]
    plan = done["tasklist"]["tasks"]
    assert [t["title"] for t in plan] == [
        "Interview five users",
        "Ship it",
        "Write the press release",
    ]
    assert [t["depends_on"] for t in plan] == [[], [], []]  # T9 is unknown, T2 was deleted
    assert plan[2]["acceptance"] == "approved by legal" and plan[2]["id"] not in ("T1", "T3")


async def test_edit_decision_still_takes_the_tasks_as_objects_or_json_strings(
    saver: BaseCheckpointSaver,
) -> None:
    edited = [task("A", "Write the announcement"), task("B", "Post it", deps=["A"])]
    for args in (
        {"tasks": edited},  # objects
        {"tasks": json.dumps(edited)},  # a JSON string in the text box
        json.dumps({"tasks": edited}),  # the whole args as a JSON string
    ):
        run = AgentRun(saver, [READY, PLAN])
        await run.start(GOAL)
        done = await run.resume(decisions(edit(args)))
        assert done["status"] == "final", args
        assert "finalised with your edits" in done["summary"]
        assert "**A — Write the announcement**" in done["artifact"]


async def test_an_edit_without_task_lines_is_a_request_for_changes(
    saver: BaseCheckpointSaver,
) -> None:
    revised = {"tasks": [*PLAN["tasks"], task("T4", "Add a testing step", deps=["T2"])]}
    run = AgentRun(saver, [READY, PLAN, revised])
    await run.start(GOAL)
    again = payload(await run.resume(decisions(edit({"tasks": "please add a testing step"}))))
    assert "please add a testing step" in run.model.calls[-1][-1].text
    assert "T4: Add a testing step" in again["action_requests"][0]["args"]["tasks"]


async def test_an_emptied_edit_asks_again_and_keeps_the_plan(saver: BaseCheckpointSaver) -> None:
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    again = payload(await run.resume(decisions(edit({"tasks": "  \n\n "}))))
    assert again["kind"] == "tasklist-review" and again["tasklist"] == PLAN
    assert "one task per line" in again["notes"][0]
    assert len(run.model.calls) == 2  # no redraft was asked for


async def test_reject_with_a_message_asks_for_a_revision(saver: BaseCheckpointSaver) -> None:
    revised = {"tasks": [*PLAN["tasks"], task("T4", "Plan a launch party", "venue booked", ["T3"])]}
    run = AgentRun(saver, [READY, PLAN, revised])
    await run.start(GOAL)
    second = payload(
        await run.resume(decisions({"type": "reject", "message": "add a launch party"}))
    )
    shown = parse_task_lines(second["action_requests"][0]["args"]["tasks"]) or []
    assert [t.id for t in shown] == ["T1", "T2", "T3", "T4"]
    assert "add a launch party" in run.model.calls[-1][-1].text
    assert "1 revision left" in second["action_requests"][0]["description"]
    done = await run.resume(decisions({"type": "approve"}))
    assert "after 1 revision round" in done["summary"]


async def test_reject_without_a_message_ends_the_review(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    done = await run.resume(decisions({"type": "reject"}))
    assert done["status"] == "rejected" and "__interrupt__" not in done
    assert (await memory.load(TOKEN)).is_empty


async def test_reject_with_a_message_past_the_revision_limit_ends_the_review(
    saver: BaseCheckpointSaver,
) -> None:
    drafts = [{"tasks": [task("T1", f"draft {n}")]} for n in range(TASKLIST_MAX_REVISIONS + 1)]
    run = AgentRun(saver, [READY, *drafts])
    result = await run.start(GOAL)
    for n in range(TASKLIST_MAX_REVISIONS):
        result = await run.resume(decisions({"type": "reject", "message": f"change {n}"}))
    assert "no revisions left" in payload(result)["action_requests"][0]["description"]
    done = await run.resume(decisions({"type": "reject", "message": "still not right"}))
    assert done["status"] == "rejected"
    assert len(run.model.calls) == 1 + 1 + TASKLIST_MAX_REVISIONS


async def test_an_earlier_reject_with_a_message_still_just_rejects(
    saver: BaseCheckpointSaver,
) -> None:
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    done = await run.resume({"action": "reject", "message": "no thanks"})
    assert done["status"] == "rejected"


async def test_clarification_is_answered_with_an_edit_and_stopped_with_a_reject(
    saver: BaseCheckpointSaver,
) -> None:
    run = AgentRun(saver, [CLARIFY, READY, PLAN])
    question = payload(await run.start("launch it"))
    [request] = question["action_requests"]
    assert request["name"] == "answer_question"
    assert request["args"] == {"question": "Which app, and launching where?", "answer": ""}
    assert request["description"].startswith("Which app, and launching where?")
    assert question["review_configs"][0]["allowed_decisions"] == ["edit", "reject"]

    review = payload(
        await run.resume(
            decisions(edit({"answer": "the recipe app, in Spain"}, name="answer_question"))
        )
    )
    assert review["kind"] == "tasklist-review"
    assert "the recipe app, in Spain" in run.model.calls[1][-1].text

    stopped = AgentRun(saver, [CLARIFY])
    await stopped.start("launch it")
    done = await stopped.resume(decisions({"type": "reject", "message": "never mind"}))
    assert done["status"] == "rejected"


async def test_every_card_arg_is_flat_readable_text(saver: BaseCheckpointSaver) -> None:
    """agent-chat-ui shows a non-string arg as raw JSON: every value is a string, a number
    or a boolean, and the tasks are one per line."""
    run = AgentRun(saver, [CLARIFY, READY, PLAN])
    question = payload(await run.start("launch it"))
    review = payload(
        await run.resume(decisions(edit({"answer": "the recipe app"}, name="answer_question")))
    )
    for value in (question, review):
        for request in value["action_requests"]:
            assert all(isinstance(v, str | int | float | bool) for v in request["args"].values())
    assert len(review["action_requests"][0]["args"]["tasks"].splitlines()) == len(PLAN["tasks"])
