"""What each delivery-chain subagent is told: system prompts, rubrics and the stage inputs.

Rubrics ship as local documents (``adapters/tools/documents/rubrics/<reviewer>.md``,
``@docs/rubrics/review.md``) so they can be edited without touching code and are
read like any other resource.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from aimind_memory.adapters.chat_memory.final_turn import RecallHit, ThreadState, build_context
from aimind_memory.adapters.errors import ResourceError
from aimind_memory.adapters.tools.resources import DEFAULT_DOCS_DIR, read_resource
from aimind_memory.graphs.delivery_chain.schemas import REQUIREMENT_HEADER
from aimind_memory.graphs.errors import RubricMissingError

REVIEWERS: tuple[str, ...] = ("review", "risk", "boundary")
RUBRICS_FOLDER = "rubrics"

PLAN_PROMPT = (
    "You are the plan subagent of a delivery chain. Turn the requirement into a delivery "
    "plan: a one-paragraph summary, ordered milestones and the assumptions you made."
)
TASK_PROMPT = (
    "You are the task subagent of a delivery chain. Break the delivery plan into concrete "
    "tasks, each with an effort estimate in hours and the tasks it depends on."
)
REVIEWER_PROMPT = (
    "You are the {name} reviewer of a delivery chain. Judge the plan and tasks against the "
    "rubric below and answer with a verdict (pass, concerns or block) and your findings.\n\n"
    "{rubric}"
)
MANAGER_PROMPT = (
    "You are the delivery manager. Write the body of the delivery report in markdown for the "
    "person who asked: what will be delivered, the main tasks and estimates, and what the "
    "reviewers found. The overall status is {status}. Do not add a top-level title."
)


def rubric(reviewer: str) -> str:
    """The reviewer's rubric: ``@docs/rubrics/<reviewer>.md``, else the packaged copy.

    Reading through the resource reader lets an ``AIMIND_DOCS_DIR`` override the
    rubrics; a folder without them still gets the shipped ones.
    """
    try:
        text = read_resource(f"{RUBRICS_FOLDER}/{reviewer}.md").strip()
    except ResourceError:
        text = ""
    if text:
        return text
    packaged = DEFAULT_DOCS_DIR / RUBRICS_FOLDER / f"{reviewer}.md"
    try:
        text = packaged.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise RubricMissingError(f"the {reviewer} rubric document is missing") from exc
    if not text:
        raise RubricMissingError(f"the {reviewer} rubric document is empty")
    return text


async def load_rubrics() -> dict[str, str]:
    """Every reviewer's rubric, read in a worker thread (nodes run on the event loop)."""
    return await asyncio.to_thread(lambda: {name: rubric(name) for name in REVIEWERS})


def _section(title: str, value: BaseModel | str) -> str:
    body = value if isinstance(value, str) else json.dumps(value.model_dump(), indent=2)
    return f"{title}\n{body}"


def plan_messages(
    requirement: str, memory: ThreadState | None, recalled: Sequence[RecallHit] = ()
) -> list[BaseMessage]:
    """The plan prompt on the session's memory (summary, pins, what the archive recalls
    for the requirement, recent turns), then the requirement as the latest user message."""
    return build_context(
        memory,
        system_prompt=PLAN_PROMPT,
        latest_user_text=_section(REQUIREMENT_HEADER, requirement),
        recalled=recalled,
    )


def task_messages(requirement: str, plan: BaseModel) -> list[BaseMessage]:
    text = "\n\n".join(
        [_section(REQUIREMENT_HEADER, requirement), _section("Delivery plan:", plan)]
    )
    return [SystemMessage(TASK_PROMPT), HumanMessage(text)]


def reviewer_messages(
    name: str, rubric_text: str, requirement: str, plan: BaseModel, tasks: BaseModel
) -> list[BaseMessage]:
    text = "\n\n".join(
        [
            _section(REQUIREMENT_HEADER, requirement),
            _section("Delivery plan:", plan),
            _section("Task breakdown:", tasks),
        ]
    )
    system = REVIEWER_PROMPT.format(name=name, rubric=rubric_text)
    return [SystemMessage(system), HumanMessage(text)]


def manager_messages(
    status: str,
    requirement: str,
    plan: BaseModel,
    tasks: BaseModel,
    verdicts: Mapping[str, BaseModel],
) -> list[BaseMessage]:
    sections = [
        _section(REQUIREMENT_HEADER, requirement),
        _section("Delivery plan:", plan),
        _section("Task breakdown:", tasks),
        *(_section(f"{name} reviewer verdict:", verdicts[name]) for name in REVIEWERS),
    ]
    system = MANAGER_PROMPT.format(status=status)
    return [SystemMessage(system), HumanMessage("\n\n".join(sections))]
