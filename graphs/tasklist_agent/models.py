"""Pydantic schemas at the tasklist agent's edges: model output, the plan, the reviewer's answer.

Model output (``TaskDraft``/``TasklistDraft``) is read leniently, because a
draft that is only slightly wrong should be repaired rather than rejected;
``Tasklist`` is the strict, validated plan the rest of the graph works with.
The structured-output schemas define ``offline_example`` so the offline model
(contract §11) returns a deterministic, clearly labelled plan.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from aimind_memory.graphs.tasklist_agent.answers import approves
from aimind_memory.graphs.tasklist_agent.word_count import word_count

TASKLIST_MAX_TASKS = 20
"""A tasklist-agent plan holds 1..this many tasks; longer drafts are cut, with a note."""
TASKLIST_MAX_REVISIONS = 2
"""Review rounds that may ask the model for a revision; the next request is decided."""
TASKLIST_MAX_CLARIFICATIONS = 1
"""Clarifying questions the tasklist agent may ask before it stops as ``blocked``."""
TASKLIST_TITLE_CHARS = 200
TASKLIST_ACCEPTANCE_CHARS = 1_000
OFFLINE_TAG = "[offline]"
OFFLINE_MIN_GOAL_WORDS = 3
"""The offline model calls a goal of fewer words (``word_count``) too vague to plan."""
GOAL_TAG = "goal"
INSTRUCTION_TAG = "reviewer_instruction"


def tagged(tag: str, text: str) -> str:
    """``text`` between ``<tag>`` lines: how prompts delimit data from instructions."""
    return f"<{tag}>\n{text}\n</{tag}>"


def last_tagged(tag: str, text: str) -> str | None:
    """The content of the last ``<tag>`` block in ``text`` (the offline model reads it)."""
    found = re.findall(rf"<{tag}>\n(.*?)\n</{tag}>", text or "", flags=re.DOTALL)
    return found[-1].strip() if found else None


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --- readiness -----------------------------------------------------------------------------


class Readiness(BaseModel):
    """Whether a goal can be planned now, needs one question answered, or is out of scope."""

    verdict: Literal["ready", "clarify", "out_of_scope"] = Field(
        description="ready: plannable now; clarify: one question would make it plannable; "
        "out_of_scope: a tasklist cannot serve this request"
    )
    question: str = Field(default="", description="the clarifying question, when clarify")
    message: str = Field(default="", description="a short boundary message, when out_of_scope")

    @classmethod
    def offline_example(cls, prompt_text: str) -> Readiness:
        goal = last_tagged(GOAL_TAG, prompt_text) or ""
        if word_count(goal) >= OFFLINE_MIN_GOAL_WORDS:
            return cls(verdict="ready")
        return cls(
            verdict="clarify",
            question=f"{OFFLINE_TAG} What outcome do you want, and by when? (The offline model "
            f"asks this when a goal has fewer than {OFFLINE_MIN_GOAL_WORDS} words.)",
        )


# --- the draft the model returns -----------------------------------------------------------


class TaskDraft(BaseModel):
    """One task as a model (or a reviewer's edit) wrote it; repaired before use."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(default="", description="short unique id such as T1")
    title: str = Field(default="", description="what to do, in a few words")
    acceptance: str = Field(default="", description="how a reviewer knows the task is done")
    depends_on: list[str] = Field(
        default_factory=list, description="ids of tasks that must be finished first"
    )

    @field_validator("id", "title", "acceptance", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)

    @field_validator("depends_on", mode="before")
    @classmethod
    def _ids(cls, value: Any) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str | int):
            value = [value]
        return [str(v) for v in value if v is not None]


class TasklistDraft(BaseModel):
    """The structured output asked of the model: a list of tasks."""

    model_config = ConfigDict(extra="ignore")

    tasks: list[TaskDraft] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, value: Any) -> Any:
        return {"tasks": value} if isinstance(value, list) else value

    @classmethod
    def offline_example(cls, prompt_text: str) -> TasklistDraft:
        goal = _short(last_tagged(GOAL_TAG, prompt_text) or "the goal")
        tasks = [
            TaskDraft(
                id="T1",
                title=f"{OFFLINE_TAG} Define what done means for: {goal}",
                acceptance=f"{OFFLINE_TAG} A short definition of done is written and agreed.",
            ),
            TaskDraft(
                id="T2",
                title=f"{OFFLINE_TAG} Do the main work",
                acceptance=f"{OFFLINE_TAG} The work meets the definition of done.",
                depends_on=["T1"],
            ),
            TaskDraft(
                id="T3",
                title=f"{OFFLINE_TAG} Check the result and hand it over",
                acceptance=f"{OFFLINE_TAG} A reviewer has checked the result.",
                depends_on=["T2"],
            ),
        ]
        instruction = last_tagged(INSTRUCTION_TAG, prompt_text)
        if instruction:
            tasks.insert(
                2,
                TaskDraft(
                    id="T4",
                    title=f"{OFFLINE_TAG} Apply the reviewer's request: {_short(instruction)}",
                    acceptance=f"{OFFLINE_TAG} The reviewer confirms the request is handled.",
                    depends_on=["T2"],
                ),
            )
            tasks[-1].depends_on.append("T4")
        return cls(tasks=tasks)


# --- the validated plan --------------------------------------------------------------------


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    acceptance: str = Field(min_length=1)
    depends_on: list[str] = Field(default_factory=list)


class Tasklist(BaseModel):
    """A plan that holds: 1..20 tasks, unique ids, known dependencies, no cycles."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: list[Task] = Field(min_length=1, max_length=TASKLIST_MAX_TASKS)

    @model_validator(mode="after")
    def _consistent(self) -> Tasklist:
        ids = [t.id for t in self.tasks]
        if len(set(ids)) != len(ids):
            raise ValueError("task ids must be unique")
        known = set(ids)
        for task in self.tasks:
            missing = [d for d in task.depends_on if d not in known or d == task.id]
            if missing:
                raise ValueError(f"task {task.id} depends on unknown or itself: {missing}")
        if find_cycle({t.id: list(t.depends_on) for t in self.tasks}):
            raise ValueError("task dependencies must not form a cycle")
        return self

    @property
    def dependency_count(self) -> int:
        return sum(len(t.depends_on) for t in self.tasks)


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One dependency cycle as a list of ids, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in graph.get(node, []):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep) :], dep]
            if dep in graph and dep not in state and (cycle := visit(dep)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in graph:
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


# --- the reviewer's answer -----------------------------------------------------------------
# Both interrupts speak LangChain v1's human-in-the-loop protocol (contract §8a): the value
# carries ``action_requests``/``review_configs`` and the answer is ``{"decisions": [...]}``.
# The project's earlier answers, ``{"action": ...}`` or a bare word, stay accepted.

ReviewAction = Literal["approve", "edit", "reject", "respond", "revise"]
"""``respond`` is the earlier "ask for changes"; ``revise`` asks for changes but never
finalises or discards (a typed message, an edit that held no task lines)."""
DecisionType = Literal["approve", "edit", "reject"]
REVIEW_ACTION_NAME = "review_tasklist"
"""The action a tasklist review asks about; its args are ``{"tasks": "<one task per line>"}``."""
CLARIFY_ACTION_NAME = "answer_question"
"""The action a clarifying question asks about; its args are ``{"question", "answer": ""}``."""
ANSWER_ARG = "answer"
QUESTION_ARG = "question"
TASKS_ARG = "tasks"


def hitl_request(
    name: str, args: dict[str, Any], description: str, allowed: list[DecisionType]
) -> dict[str, Any]:
    """An interrupt value in LangChain v1's ``HITLRequest`` shape (one action)."""
    return {
        "action_requests": [{"name": name, "args": args, "description": description}],
        "review_configs": [{"action_name": name, "allowed_decisions": list(allowed)}],
    }


class Decision(BaseModel):
    """One LangChain v1 decision: approve, edit (``edited_action.args``) or reject (+message)."""

    model_config = ConfigDict(extra="ignore")

    type: DecisionType
    edited_action: dict[str, Any] | None = None
    message: str | None = None

    @property
    def args(self) -> Any:
        """The edited action's args; a JSON string (what some UIs send) is parsed."""
        return _json_container((self.edited_action or {}).get("args"))


def _json_container(value: Any) -> Any:
    """``value``, or the list or object a JSON string holds (other strings stay text)."""
    if isinstance(value, str):
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
        return decoded if isinstance(decoded, list | dict) else value
    return value


def _edited_tasklist(args: Any) -> Any:
    """What the edited args hold as the plan: the ``tasks`` text (one task per line), or
    ``{"tasks": [...]}`` when they carry objects or JSON (earlier clients)."""
    if isinstance(args, dict):
        if TASKS_ARG in args:
            tasks = _json_container(args[TASKS_ARG])
            return tasks if isinstance(tasks, str) else {**args, TASKS_ARG: tasks}
        if "tasklist" in args:
            return _edited_tasklist(_json_container(args["tasklist"]))
    return args


def _decision(value: Any) -> Decision | None:
    """The (single) decision of a ``{"decisions": [...]}`` answer, else None."""
    if isinstance(value, dict) and isinstance(value.get("decisions"), list) and value["decisions"]:
        return Decision.model_validate(value["decisions"][0])
    return None


class ReviewAnswer(BaseModel):
    """What ``Command(resume=...)`` carries back from a review or a clarifying question.

    For a review a reject with ``text`` asks for a revision; for a question a
    ``respond`` carries the answer. Build it with ``for_review``/``for_clarification``,
    which read v1 decisions as well as the earlier ``{"action": ...}`` forms.
    """

    model_config = ConfigDict(extra="ignore")

    action: ReviewAction
    tasklist: Any = None
    text: str = ""

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        """A bare action string, and ``instruction``/``message`` as names for ``text``."""
        if isinstance(value, str):
            word = value.strip().lower()
            if word in ("approve", "reject"):
                return {"action": word}
            return {"action": "respond", "text": value}
        if isinstance(value, dict) and not value.get("text"):
            for alias in ("instruction", "message", "answer"):
                if isinstance(value.get(alias), str):
                    return {**value, "text": value[alias]}
        return value

    @classmethod
    def for_review(cls, value: Any) -> ReviewAnswer:
        """approve; edit → the edited tasklist; reject (+message: the revision wanted)."""
        decision = _decision(value)
        if decision is None:  # an earlier form: its reject never asked for a revision
            answer = cls.model_validate(value)
            return answer.model_copy(update={"text": ""}) if answer.action == "reject" else answer
        if decision.type == "edit":
            return cls(action="edit", tasklist=_edited_tasklist(decision.args))
        return cls(action=decision.type, text=(decision.message or "").strip())

    @classmethod
    def for_message(cls, text: str) -> ReviewAnswer:
        """A message typed while a review waits: approval words approve, anything else asks
        for changes with the message as the instruction (``answers.approves``)."""
        return cls(action="approve") if approves(text) else cls(action="revise", text=text)

    @classmethod
    def for_clarification(cls, value: Any) -> ReviewAnswer:
        """edit → the answer (``args.answer``, or the args as text); reject → stop planning;
        approve → plan without an answer."""
        decision = _decision(value)
        if decision is None:
            return cls.model_validate(value)
        if decision.type != "edit":
            return cls(action=decision.type)
        args = decision.args
        answer = args.get(ANSWER_ARG) if isinstance(args, dict) else args
        return cls(action="respond", text=answer if isinstance(answer, str) else "")
