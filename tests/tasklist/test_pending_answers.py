"""A review or question that waits is answered by a message, and closed by "Mark as Resolved".

contract §8a: a user message sent as a new run to a tasklist thread whose review is
pending answers that review (approval words in English and Chinese approve, other
text asks for a revision), never silently restarting; the same for a clarifying
question. agent-chat-ui's "Mark as Resolved" resumes with ``{"goto": "__end__"}``,
which ends the review cleanly.
"""

from __future__ import annotations

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver

from aimind_memory.graphs.tasklist_agent.models import TASKLIST_MAX_REVISIONS, Readiness
from aimind_memory.memory import MemoryService
from tests.tasklist.support import PLAN, READY, TOKEN, AgentRun, payload, task

GOAL = "Plan the launch of our new recipe app next month"
CLARIFY = Readiness(verdict="clarify", question="Which app, and launching where?")
APPROVALS = ["approve", "Looks good, thanks!", "LGTM 👍", "同意", "好的，谢谢"]
REVISIONS = ["add a press kit", "再加一个新闻稿任务", "approve, but add a press kit"]
REVISED = {"tasks": [*PLAN["tasks"], task("T4", "Prepare a press kit", deps=["T3"])]}


def turns(state) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in state.messages]


@pytest.mark.parametrize(
    "word", ["approve", "Looks good, thanks!", "LGTM 👍", "同意", "好的，谢谢"]
)
async def test_an_approval_message_approves_the_pending_review(
    saver: BaseCheckpointSaver, memory: MemoryService, word: str
) -> None:
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    done = await run.send(word)
    assert "__interrupt__" not in done
    assert done["status"] == "final" and "approved" in done["summary"]
    assert len(run.model.calls) == 2  # no new plan was drafted
    # the message is in the thread; memory keeps the goal and the summary (contract §6)
    assert [m.text for m in done["messages"]][:2] == [GOAL, word]
    assert turns(await memory.load(TOKEN)) == [("user", GOAL), ("assistant", done["summary"])]


@pytest.mark.parametrize(
    "text", ["add a press kit", "再加一个新闻稿任务", "approve, but add a press kit"]
)
async def test_any_other_message_asks_for_a_revision(
    saver: BaseCheckpointSaver, memory: MemoryService, text: str
) -> None:
    run = AgentRun(saver, [READY, PLAN, REVISED])
    await run.start(GOAL)
    review = payload(await run.send(text))
    assert review["kind"] == "tasklist-review" and review["revisionRound"] == 1
    assert "T4: Prepare a press kit" in review["action_requests"][0]["args"]["tasks"]
    assert text in run.model.calls[-1][-1].text  # the message is the reviewer's instruction
    assert review["goal"] == GOAL  # not a new goal
    assert (await memory.load(TOKEN)).is_empty  # nothing is written while paused


async def test_a_message_past_the_revision_limit_shows_the_review_again(
    saver: BaseCheckpointSaver,
) -> None:
    drafts = [{"tasks": [task("T1", f"draft {n}")]} for n in range(TASKLIST_MAX_REVISIONS + 1)]
    run = AgentRun(saver, [READY, *drafts])
    await run.start(GOAL)
    for n in range(TASKLIST_MAX_REVISIONS):
        await run.send(f"change {n}")
    again = payload(await run.send("one more change"))
    assert again["kind"] == "tasklist-review" and again["revisionsLeft"] == 0
    assert any("no revisions are left" in note for note in again["notes"])
    done = await run.send("ok")
    assert done["status"] == "final"


async def test_a_message_answers_the_pending_question(saver: BaseCheckpointSaver) -> None:
    run = AgentRun(saver, [CLARIFY, READY, PLAN])
    await run.start("launch it")
    review = payload(await run.send("the recipe app, in Spain"))
    assert review["kind"] == "tasklist-review" and review["goal"] == "launch it"
    assert "the recipe app, in Spain" in run.model.calls[1][-1].text


async def test_mark_as_resolved_ends_the_pending_review_cleanly(
    saver: BaseCheckpointSaver, memory: MemoryService
) -> None:
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    done = await run.command(goto="__end__")
    assert "__interrupt__" not in done
    assert done["status"] == "rejected" and "marked as resolved" in done["summary"]
    assert not (await run.graph.aget_state(run.config)).next  # nothing waits any more
    assert (await memory.load(TOKEN)).is_empty


async def test_mark_as_resolved_ends_the_pending_question_cleanly(
    saver: BaseCheckpointSaver,
) -> None:
    run = AgentRun(saver, [CLARIFY])
    await run.start("launch it")
    done = await run.command(goto="__end__")
    assert done["status"] == "rejected" and "marked as resolved" in done["summary"]
    assert not (await run.graph.aget_state(run.config)).next


async def test_an_answer_that_is_not_understood_still_waits_in_the_same_run(
    saver: BaseCheckpointSaver,
) -> None:
    """A review asked again within the run that answered it is a new question, not a
    "resolved" one."""
    run = AgentRun(saver, [READY, PLAN])
    await run.start(GOAL)
    again = payload(await run.resume({"decisions": [{"type": "unknown"}]}))
    assert again["kind"] == "tasklist-review" and "unrecognised answer" in again["notes"][0]
    done = await run.resume({"decisions": [{"type": "approve"}]})
    assert done["status"] == "final"
