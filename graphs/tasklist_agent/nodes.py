"""The tasklist agent's nodes: read the goal, judge readiness, clarify, draft, review, conclude.

Nodes that call the model never interrupt and nodes that interrupt never call
the model, so a resume re-runs no model call and no write.

A pending review or question is answered three ways (contract §8a): a resume with a
decision; a new user message on the thread (LangGraph then starts the graph anew, and
``read_goal`` takes the message as the answer instead of a new goal); or a later run
that brings no answer at all — agent-chat-ui's "Mark as Resolved" sends
``{"goto": "__end__"}``, and LangGraph runs the waiting node again without a resume
value — which closes it cleanly. The node tells that last case from its own first
asking by the run that asked (``asked_in_run``), since a graph never sees a command.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM
from langgraph.errors import GraphInterrupt
from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import BaseModel, ValidationError

from aimind_memory.adapters.chat_memory.final_turn import (
    FinalTurn,
    build_context,
    latest_human,
    load_memory_state,
    memory_message_id,
    recall_for,
    refuse_memory_thread,
)
from aimind_memory.adapters.chat_memory.runtime import SessionContext
from aimind_memory.adapters.models import chat_model
from aimind_memory.adapters.tools.resources import (
    REFERENCE_PREFIX,
    find_references,
    resolve_references,
)
from aimind_memory.graphs.tasklist_agent.models import (
    ANSWER_ARG,
    CLARIFY_ACTION_NAME,
    GOAL_TAG,
    INSTRUCTION_TAG,
    QUESTION_ARG,
    REVIEW_ACTION_NAME,
    TASKLIST_MAX_CLARIFICATIONS,
    TASKLIST_MAX_REVISIONS,
    TASKS_ARG,
    DecisionType,
    Readiness,
    ReviewAnswer,
    Tasklist,
    TasklistDraft,
    hitl_request,
    tagged,
)
from aimind_memory.graphs.tasklist_agent.prompts import DRAFT_PROMPT, JUDGE_PROMPT
from aimind_memory.graphs.tasklist_agent.state import Status, TasklistState
from aimind_memory.graphs.tasklist_agent.task_lines import parse_task_lines, task_lines
from aimind_memory.graphs.tasklist_agent.validation import render_markdown, repair_tasklist

log = logging.getLogger("aimind.tasklist_agent")

SOURCE = "tasklist-agent"
SUMMARY_ID_SUFFIX = ":tasklist-summary"
REVIEW_ACTIONS = ("approve", "edit", "respond", "reject")
FINAL_DECISION_ACTIONS = ("approve", "edit", "reject")
CLARIFY_ACTIONS = ("respond", "reject")
"""The project's own ``allowedActions`` (earlier answers); v1 decisions are below."""
REVIEW_DECISIONS: list[DecisionType] = ["approve", "edit", "reject"]
CLARIFY_DECISIONS: list[DecisionType] = ["edit", "reject"]
ASKING: frozenset[str] = frozenset({"reviewing", "clarifying"})
"""Statuses that lead to an interrupt: the review, the clarifying question."""
REVIEW_RESOLVED = "Review closed without a decision (marked as resolved); nothing was saved."
QUESTION_RESOLVED = (
    "Question closed without an answer (marked as resolved); planning stopped and nothing "
    "was saved."
)


class _Resolved:
    """What ``_ask`` returns when a later run re-enters the question without an answer."""


RESOLVED = _Resolved()


def _text(message: BaseMessage) -> str:
    return str(message.text).strip()


def _goal_block(state: TasklistState) -> str:
    parts = [state.get("goal_context") or state.get("goal", "")]
    if clarifications := state.get("clarifications"):
        parts.append("Clarifications from the user:\n" + "\n".join(clarifications))
    return tagged(GOAL_TAG, "\n\n".join(parts))


def _as_dict(result: Any) -> Any:
    return result.model_dump() if isinstance(result, BaseModel) else result


def _current(state: TasklistState) -> Tasklist | None:
    raw = state.get("tasklist")
    try:
        return Tasklist.model_validate(raw) if raw else None
    except ValidationError:
        return None


def _plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else (many or word + 's')}"


def _ended(status: Status, summary: str, **extra: Any) -> dict[str, Any]:
    return {"status": status, "summary": summary, **extra}


def _run_id(config: RunnableConfig | None, runtime: Runtime[Any] | None) -> str:
    """The server's run id (stable across a run's retries), else LangGraph's; "" in library
    use without one."""
    run = (config or {}).get("configurable", {}).get("run_id")
    info = getattr(runtime, "execution_info", None)
    return str(run or getattr(info, "run_id", None) or "")


def _asked(
    update: dict[str, Any], config: RunnableConfig, runtime: Runtime[Any] | None
) -> dict[str, Any]:
    """``update``, stamped with this run when it leads to the review or the question."""
    if update.get("status") in ASKING:
        return {**update, "asked_in_run": _run_id(config, runtime)}
    return update


def _ask(
    value: dict[str, Any],
    state: TasklistState,
    config: RunnableConfig,
    runtime: Runtime[Any] | None,
) -> Any:
    """``interrupt(value)``; ``RESOLVED`` when a run other than the one that asked comes
    back to the question with no answer (see the module docstring)."""
    try:
        return interrupt(value)
    except GraphInterrupt:
        run, asked = _run_id(config, runtime), state.get("asked_in_run")
        if run and asked and run != asked:
            return RESOLVED
        raise


def _revise(state: TasklistState, instruction: str, note: str | None = None) -> dict[str, Any]:
    """A request for changes that never finalises or discards: a revised draft while
    revisions are left, else the same review again, saying why."""
    rounds = state.get("revisions", 0)
    notes = [note] if note else []
    if not instruction.strip():
        return {"status": "reviewing", "notes": [*notes, "say what should change"]}
    if rounds >= TASKLIST_MAX_REVISIONS:
        return {
            "status": "reviewing",
            "notes": [
                *notes,
                f"no revisions are left for {instruction.strip()!r}: approve, edit the tasks, "
                "or reject to discard the tasklist",
            ],
        }
    return {"status": "revising", "instruction": instruction.strip(), "revisions": rounds + 1}


def _edited(state: TasklistState, plan: Any) -> dict[str, Any]:
    """The reviewer's edit as the final plan; an edit that holds no task lines is a request
    for changes, one that cannot be repaired is shown again with what was wrong."""
    if isinstance(plan, str):
        drafts = parse_task_lines(plan)
        if drafts is None:
            if not plan.strip():
                return {
                    "status": "reviewing",
                    "notes": ["your edit left no tasks: write one task per line"],
                }
            return _revise(
                state, plan, "your edit held no task lines, so it was read as a request for changes"
            )
        plan = {"tasks": [draft.model_dump() for draft in drafts]}
    edited = repair_tasklist(plan)
    if edited.tasklist is None:
        return {"status": "reviewing", "notes": ["your edit could not be used", *edited.notes]}
    return {
        "status": "approved",
        "decision": "edit",
        "tasklist": edited.tasklist.model_dump(),
        "notes": list(edited.notes),
    }


def apply_review(state: TasklistState, answer: ReviewAnswer) -> dict[str, Any]:
    """What the reviewer's answer does to the plan (a resume's decision or a message)."""
    rounds = state.get("revisions", 0)
    left = max(TASKLIST_MAX_REVISIONS - rounds, 0)
    if answer.action == "approve":
        return {"status": "approved", "decision": "approve"}
    if answer.action == "edit":
        return _edited(state, answer.tasklist)
    if answer.action == "revise":
        return _revise(state, answer.text)
    if answer.action == "reject" and answer.text and left:
        return {"status": "revising", "instruction": answer.text, "revisions": rounds + 1}
    if answer.action == "reject":
        return _ended("rejected", "Tasklist discarded at your request; nothing was saved.")
    instruction = answer.text.strip()  # "respond", the earlier "ask for changes"
    if not instruction:
        return {"status": "reviewing", "notes": ["'respond' needs an instruction text"]}
    if rounds >= TASKLIST_MAX_REVISIONS:
        return {"status": "approved", "decision": "limit"}
    return {"status": "revising", "instruction": instruction, "revisions": rounds + 1}


def apply_clarification(state: TasklistState, answer: ReviewAnswer) -> dict[str, Any]:
    """What the answer to the clarifying question does: plan with it, or stop."""
    if answer.action == "reject":
        return _ended("rejected", "Planning stopped at your request; nothing was saved.")
    if answer.action == "approve":
        return {"status": "drafting"}
    if answer.action in ("respond", "revise") and answer.text.strip():
        entry = f"Q: {state.get('question', '')}\nA: {answer.text.strip()}"
        return {"status": "planning", "clarifications": [*state.get("clarifications", []), entry]}
    return {"status": "clarifying"}


def answer_pending(state: TasklistState, text: str) -> dict[str, Any] | None:
    """A new message on a thread whose review or question waits answers it; None when
    nothing waits (the message is then a new goal)."""
    if state.get("status") == "reviewing" and _current(state) is not None:
        return apply_review(state, ReviewAnswer.for_message(text))
    if state.get("status") == "clarifying" and state.get("question"):
        return apply_clarification(state, ReviewAnswer(action="respond", text=text))
    return None


# --- the turn's memory record --------------------------------------------------------------


def summary_message_id(goal_message_id: str | None) -> str | None:
    if memory_message_id(goal_message_id, reserve=len(SUMMARY_ID_SUFFIX)) is None:
        return None
    return f"{goal_message_id}{SUMMARY_ID_SUFFIX}"


def extract_turn(state: TasklistState) -> FinalTurn | None:
    """Goal + text summary; memory keeps it only on ``final``/``blocked`` (contract §4, §6)."""
    status = state.get("status") or "unknown"
    assistant_id = summary_message_id(state.get("goal_message_id"))
    return FinalTurn(
        user_text=state.get("goal", ""),
        assistant_text=state.get("summary", ""),
        status=status,
        source=SOURCE,
        user_message_id=state.get("goal_message_id") if assistant_id else None,
        assistant_message_id=assistant_id,
    )


def final_summary(tasklist: Tasklist, state: TasklistState) -> str:
    """The short text for the user and for memory: counts and how it was decided, no tasks."""
    decision = state.get("decision", "approve")
    rounds = state.get("revisions", 0)
    how = {
        "edit": "finalised with your edits",
        "limit": f"the revision limit ({_plural(TASKLIST_MAX_REVISIONS, 'round')}) was "
        "reached, so the latest draft stands as final",
    }.get(decision, "approved" + (f" after {_plural(rounds, 'revision round')}" if rounds else ""))
    return (
        f"Tasklist final: {_plural(len(tasklist.tasks), 'task')} with "
        f"{_plural(tasklist.dependency_count, 'dependency', 'dependencies')}"
        f", {how}. The full tasklist with acceptance criteria is attached to this agent run."
    )


def review_description(markdown: str, notes: list[str], revisions_left: int) -> str:
    """What a stock client shows above the review buttons: the plan and what each does."""
    parts = [markdown.rstrip()]
    if notes:
        parts.append("Notes: " + "; ".join(notes))
    revise = (
        f"reject with a reason to get a revised draft ({_plural(revisions_left, 'revision')} "
        "left), or reject without one to discard it"
        if revisions_left
        else "reject to discard it (no revisions left)"
    )
    parts.append(
        f"Approve to make this tasklist final, edit the tasks to finalise your version, {revise}."
    )
    return "\n\n".join(parts)


class TasklistNodes:
    """The nodes, bound to a planning model (``None``: the provider's, per run)."""

    def __init__(self, model: BaseChatModel | None = None) -> None:
        self._model = model

    def planner(self) -> BaseChatModel:
        return self._model or chat_model()

    async def ask(
        self,
        schema: type[BaseModel],
        system: str,
        user_block: str,
        config: RunnableConfig,
        runtime: Runtime[SessionContext],
    ) -> Any:
        memory = await load_memory_state(config, runtime)
        recalled = await recall_for(user_block, memory, config, runtime)
        messages = build_context(
            memory, system_prompt=system, latest_user_text=user_block, recalled=recalled
        )
        structured = self.planner().with_structured_output(schema).with_config(tags=[TAG_NOSTREAM])
        result = await structured.ainvoke(messages, config)  # traced, kept off "messages" stream
        return schema.model_validate(_as_dict(result))

    async def read_goal(
        self, state: TasklistState, config: RunnableConfig, runtime: Runtime[SessionContext]
    ) -> dict[str, Any]:
        """Take the latest user message as the goal (or as the answer to a review or
        question still waiting); read the documents a goal references."""
        refuse_memory_thread(config)
        latest = latest_human(state.get("messages"))
        if latest is not None and (answered := answer_pending(state, _text(latest))):
            return _asked(answered, config, runtime)
        goal = _text(latest) if latest else ""
        fresh: dict[str, Any] = {
            "goal": goal,
            "goal_message_id": latest.id if latest else None,
            "goal_context": goal,
            "clarifications": [],
            "question": "",
            "tasklist": None,
            "notes": [],
            "revisions": 0,
            "instruction": "",
            "decision": "",
            "summary": "",
            "artifact": None,
        }
        if not goal:
            return {**fresh, **_ended("blocked", "Tell me the goal you want a tasklist for.")}
        expanded, read = await resolve_references(goal)
        unreadable = [name for name in find_references(goal) if name not in read]
        if unreadable:
            names = ", ".join(f"{REFERENCE_PREFIX}{n}" for n in unreadable)
            return {
                **fresh,
                **_ended(
                    "blocked",
                    f"I could not read {names}, so I have not planned anything. Check the "
                    "document name and ask again.",
                ),
            }
        return {**fresh, "goal_context": expanded, "status": "planning"}

    async def judge(
        self, state: TasklistState, config: RunnableConfig, runtime: Runtime[SessionContext]
    ) -> dict[str, Any]:
        """Ready to plan, one question to ask, or a boundary to state."""
        try:
            verdict: Readiness = await self.ask(
                Readiness, JUDGE_PROMPT, _goal_block(state), config, runtime
            )
        except Exception as exc:
            log.warning("tasklist readiness check failed (%s)", type(exc).__name__)
            return _ended(
                "failed", "The planning model is unavailable right now; nothing was saved."
            )
        if verdict.verdict == "ready":
            return {"status": "drafting"}
        if verdict.verdict == "out_of_scope":
            message = verdict.message.strip() or "This is not something I can turn into a tasklist."
            return _ended("blocked", message)
        question = (
            verdict.question.strip() or "Could you describe the outcome you want in more detail?"
        )
        if len(state.get("clarifications", [])) < TASKLIST_MAX_CLARIFICATIONS:
            return _asked({"status": "clarifying", "question": question}, config, runtime)
        return _ended("blocked", f"I need more detail before I can plan this: {question}")

    def clarify(
        self, state: TasklistState, config: RunnableConfig, runtime: Runtime[SessionContext]
    ) -> dict[str, Any]:
        """Ask the user the clarifying question (an interrupt) and fold the answer into the goal."""
        question = state.get("question", "")
        answer = _ask(
            {
                **hitl_request(
                    CLARIFY_ACTION_NAME,
                    {QUESTION_ARG: question, ANSWER_ARG: ""},
                    f"{question}\n\nWrite your answer in *Answer* and submit it (or just send it "
                    "as a message), or reject to stop planning.",
                    CLARIFY_DECISIONS,
                ),
                "kind": "clarification",
                "question": question,
                "allowedActions": list(CLARIFY_ACTIONS),
            },
            state,
            config,
            runtime,
        )
        if answer is RESOLVED:
            return _ended("rejected", QUESTION_RESOLVED)
        try:
            parsed = ReviewAnswer.for_clarification(answer)
        except ValidationError:
            parsed = ReviewAnswer(action="respond")
        return _asked(apply_clarification(state, parsed), config, runtime)

    async def draft(
        self, state: TasklistState, config: RunnableConfig, runtime: Runtime[SessionContext]
    ) -> dict[str, Any]:
        """Draft (or revise) the tasklist with structured output, then validate and repair it."""
        previous = _current(state)
        block = _goal_block(state)
        if previous is not None and state.get("instruction"):
            block += "\n\n" + tagged("current_tasklist", render_markdown(previous, state["goal"]))
            block += "\n\n" + tagged(INSTRUCTION_TAG, state["instruction"])
        try:
            raw = await self.ask(TasklistDraft, DRAFT_PROMPT, block, config, runtime)
            repaired = repair_tasklist(raw)
            notes = list(repaired.notes)
        except Exception as exc:
            log.warning("tasklist draft failed (%s)", type(exc).__name__)
            repaired, notes = None, ["the planning model did not return a usable tasklist"]
        if repaired is not None and repaired.tasklist is not None:
            update = {"status": "reviewing", "tasklist": repaired.tasklist.model_dump()}
            return _asked({**update, "notes": notes}, config, runtime)
        if previous is not None:
            notes.append("the revision could not be used; the previous tasklist is shown again")
            return _asked({"status": "reviewing", "notes": notes}, config, runtime)
        return _ended(
            "failed",
            "I could not draft a valid tasklist this time ("
            + "; ".join(notes)
            + "). Nothing was saved; please try again.",
            notes=notes,
        )

    def review(
        self, state: TasklistState, config: RunnableConfig, runtime: Runtime[SessionContext]
    ) -> dict[str, Any]:
        """Human review: an interrupt carrying the proposal and the allowed actions."""
        tasklist = _current(state)
        if tasklist is None:  # cannot happen through the edges; never crash on it
            return _ended("failed", "The tasklist was lost; nothing was saved.")
        rounds = state.get("revisions", 0)
        left = max(TASKLIST_MAX_REVISIONS - rounds, 0)
        allowed = REVIEW_ACTIONS if left else FINAL_DECISION_ACTIONS
        markdown = render_markdown(tasklist, state.get("goal", ""))
        notes = list(state.get("notes", []))
        answer = _ask(
            {
                **hitl_request(
                    REVIEW_ACTION_NAME,
                    {TASKS_ARG: task_lines(list(tasklist.tasks))},
                    review_description(markdown, notes, left),
                    REVIEW_DECISIONS,
                ),
                "kind": "tasklist-review",
                "goal": state.get("goal", ""),
                "tasklist": tasklist.model_dump(),
                "markdown": markdown,
                "notes": notes,
                "allowedActions": list(allowed),
                "revisionRound": rounds,
                "revisionsLeft": left,
            },
            state,
            config,
            runtime,
        )
        if answer is RESOLVED:
            return _ended("rejected", REVIEW_RESOLVED)
        try:
            parsed = ReviewAnswer.for_review(answer)
        except ValidationError:
            update = {
                "status": "reviewing",
                "notes": [
                    'unrecognised answer; resume with {"decisions": [{"type": "approve"}]} '
                    f"(or edit / reject), or one of the actions {', '.join(allowed)}"
                ],
            }
            return _asked(update, config, runtime)
        return _asked(apply_review(state, parsed), config, runtime)

    def conclude(self, state: TasklistState) -> dict[str, Any]:
        """The artifact and the short summary message the user sees (memory gets the summary).

        A final plan is also shown as a message before the summary, so a client that only
        renders ``messages`` (agent-chat-ui) shows the plan that was approved.
        """
        status = state.get("status", "failed")
        update: dict[str, Any] = {}
        shown: list[AIMessage] = []
        summary = state.get("summary", "")
        if status == "approved":
            tasklist = _current(state)
            if tasklist is None:
                status, summary = "failed", "The tasklist was lost; nothing was saved."
            else:
                status, summary = "final", final_summary(tasklist, state)
                update["artifact"] = render_markdown(tasklist, state.get("goal", ""))
                shown.append(AIMessage(content=update["artifact"], id=str(uuid.uuid4())))
        elif status not in ("blocked", "rejected", "failed"):
            status, summary = "failed", "Planning stopped unexpectedly; nothing was saved."
        message_id = summary_message_id(state.get("goal_message_id")) or str(uuid.uuid4())
        return {
            **update,
            "status": status,
            "summary": summary,
            "messages": [*shown, AIMessage(content=summary, id=message_id)],
        }


def route(*targets: str) -> Any:
    by_status = {
        "planning": "judge",
        "clarifying": "clarify",
        "drafting": "draft",
        "reviewing": "review",
        "revising": "draft",
    }

    def pick(state: TasklistState) -> str:
        target = by_status.get(state.get("status", ""), "conclude")
        return target if target in targets else "conclude"

    return pick
