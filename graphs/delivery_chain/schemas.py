"""Structured outputs of the delivery-chain subagents, and the RuntimeArtifact they become.

Every schema has an ``offline_example`` so the offline model (contract §11) returns
a deterministic, valid, clearly labelled instance instead of a bare placeholder.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

OFFLINE_TAG = "[offline]"
REQUIREMENT_HEADER = "Requirement:"
"""The line that opens the requirement in every subagent prompt (offline examples quote it)."""
OFFLINE_QUOTE_CHARS = 80

Verdict = Literal["pass", "concerns", "block"]


def quoted_requirement(prompt_text: str) -> str:
    """The requirement's first line as the prompt gave it, clipped; for offline labels.

    The last header counts: the plan's context holds memory first, where an earlier
    report may quote an earlier requirement.
    """
    _, found, rest = prompt_text.rpartition(REQUIREMENT_HEADER)
    first = next((line.strip() for line in rest.splitlines() if line.strip()), "") if found else ""
    if len(first) > OFFLINE_QUOTE_CHARS:
        first = first[: OFFLINE_QUOTE_CHARS - 1].rstrip() + "…"
    return first or "the requirement"


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _non_empty(value: list[Any]) -> list[Any]:
    if not value:
        raise ValueError("must not be empty")
    return value


NonBlank = Annotated[str, AfterValidator(_non_blank)]
"""Text a subagent must fill in (checked locally; the JSON schema stays plain)."""


class DeliveryPlan(BaseModel):
    """The plan subagent's answer: what gets delivered, in which milestones."""

    model_config = ConfigDict(extra="forbid")

    summary: NonBlank = Field(description="One paragraph: what will be delivered.")
    milestones: Annotated[list[str], AfterValidator(_non_empty)] = Field(
        description="Ordered delivery milestones (at least one)."
    )
    assumptions: list[str] = Field(default_factory=list)

    @classmethod
    def offline_example(cls, prompt_text: str) -> DeliveryPlan:
        subject = quoted_requirement(prompt_text)
        return cls(
            summary=f"{OFFLINE_TAG} Deterministic plan for: {subject}",
            milestones=[
                f"{OFFLINE_TAG} Clarify scope",
                f"{OFFLINE_TAG} Build",
                f"{OFFLINE_TAG} Verify and release",
            ],
            assumptions=[f"{OFFLINE_TAG} No model is configured; this plan is a placeholder."],
        )


class TaskItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: NonBlank
    estimate_hours: float = Field(description="Effort estimate in hours (> 0).")
    depends_on: list[str] = Field(default_factory=list)

    @field_validator("estimate_hours")
    @classmethod
    def _estimate(cls, value: float) -> float:
        if not value > 0:
            raise ValueError("an estimate must be more than 0 hours")
        return value


class TaskBreakdown(BaseModel):
    """The task subagent's answer: the plan cut into estimated tasks."""

    model_config = ConfigDict(extra="forbid")

    tasks: Annotated[list[TaskItem], AfterValidator(_non_empty)] = Field(
        description="The tasks (at least one)."
    )

    @classmethod
    def offline_example(cls, prompt_text: str) -> TaskBreakdown:
        return cls(
            tasks=[
                TaskItem(title=f"{OFFLINE_TAG} Clarify scope", estimate_hours=2),
                TaskItem(title=f"{OFFLINE_TAG} Build", estimate_hours=8, depends_on=["Clarify"]),
                TaskItem(title=f"{OFFLINE_TAG} Verify", estimate_hours=3, depends_on=["Build"]),
            ]
        )


class ReviewVerdict(BaseModel):
    """One reviewer's structured verdict: ``block`` stops the delivery (status ``blocked``)."""

    model_config = ConfigDict(extra="forbid")

    verdict: Verdict
    findings: list[str] = Field(default_factory=list)

    @classmethod
    def offline_example(cls, prompt_text: str) -> ReviewVerdict:
        return cls(
            verdict="pass",
            findings=[f"{OFFLINE_TAG} Not reviewed by a model; no findings."],
        )


class ReportDraft(BaseModel):
    """The manager's report body (markdown); the title and status are added locally."""

    model_config = ConfigDict(extra="forbid")

    markdown: NonBlank

    @classmethod
    def offline_example(cls, prompt_text: str) -> ReportDraft:
        subject = quoted_requirement(prompt_text)
        return cls(
            markdown=(
                f"{OFFLINE_TAG} This report was written by the offline model: no OPENAI_API_KEY "
                f"is set, so the plan, tasks and reviews are deterministic placeholders.\n\n"
                f"Requirement: {subject}"
            )
        )


class LoadedRequirement(BaseModel):
    """The load stage's output: the requirement as the subagents see it, and the rubrics."""

    text: str
    from_reference: bool
    rubrics: list[str]


class RuntimeArtifact(BaseModel):
    """One stage's output as kept in the graph's own state (never in chat memory)."""

    model_config = ConfigDict(extra="forbid")

    stage: str
    kind: str
    content: dict[str, Any]
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())

    @classmethod
    def of(cls, stage: str, output: BaseModel) -> dict[str, Any]:
        """The artifact as plain JSON values, so checkpoints hold no pickled classes."""
        artifact = cls(stage=stage, kind=type(output).__name__, content=output.model_dump())
        return artifact.model_dump(mode="json")
