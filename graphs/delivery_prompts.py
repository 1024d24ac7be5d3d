"""What each delivery-chain subagent is told: system prompts, rubrics and the stage inputs.

Rubrics ship as local documents (``adapters/documents/rubrics/<reviewer>.md``)
so they can be edited without touching code and read like any other resource.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from graphs.delivery_schemas import REQUIREMENT_HEADER

REVIEWERS: tuple[str, ...] = ("review", "risk", "boundary")
RUBRICS_FOLDER = "documents/rubrics"

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


class RubricMissingError(RuntimeError):
    """A shipped rubric document is missing: the package was installed without its data."""


@cache
def rubric(reviewer: str) -> str:
    """The rubric document for one reviewer (read once per process)."""
    path = resources.files("adapters").joinpath(RUBRICS_FOLDER, f"{reviewer}.md")
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise RubricMissingError(f"the {reviewer} rubric document is missing") from exc
    if not text:
        raise RubricMissingError(f"the {reviewer} rubric document is empty")
    return text


def load_rubrics() -> dict[str, str]:
    return {name: rubric(name) for name in REVIEWERS}


def _section(title: str, value: BaseModel | str) -> str:
    body = value if isinstance(value, str) else json.dumps(value.model_dump(), indent=2)
    return f"{title}\n{body}"


def plan_messages(requirement: str) -> list[BaseMessage]:
    return [SystemMessage(PLAN_PROMPT), HumanMessage(_section(REQUIREMENT_HEADER, requirement))]


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
    verdicts: dict[str, BaseModel],
) -> list[BaseMessage]:
    sections = [
        _section(REQUIREMENT_HEADER, requirement),
        _section("Delivery plan:", plan),
        _section("Task breakdown:", tasks),
        *(_section(f"{name} reviewer verdict:", verdicts[name]) for name in REVIEWERS),
    ]
    system = MANAGER_PROMPT.format(status=status)
    return [SystemMessage(system), HumanMessage("\n\n".join(sections))]
