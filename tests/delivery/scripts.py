"""Scripted subagents for the delivery chain: one fake model per stage, valid by default."""

from __future__ import annotations

import itertools
from typing import Any

from aimind_memory.graphs.delivery_chain.prompts import REVIEWERS
from aimind_memory.graphs.delivery_chain.stages import PLAN, SYNTHESIZE, TASK
from tests.support.fakes import ScriptedChatModel

REPORT_BODY = "The team will deliver CSV export in two milestones; reviewers are satisfied."
_tokens = itertools.count()


def new_session() -> str:
    """A fresh valid session token, so each test has its own memory thread."""
    return f"delivery-session-{next(_tokens):06d}-test"


def plan_output(marker: str = "") -> dict[str, Any]:
    return {
        "summary": f"Export reports as CSV {marker}".strip(),
        "milestones": [f"Backend export {marker}".strip(), "UI button"],
        "assumptions": [f"Reports are small {marker}".strip()],
    }


def task_output(marker: str = "") -> dict[str, Any]:
    return {
        "tasks": [
            {"title": f"Write exporter {marker}".strip(), "estimate_hours": 6},
            {"title": "Add button", "estimate_hours": 2, "depends_on": ["Write exporter"]},
        ]
    }


def verdict(kind: str = "pass", *findings: str) -> dict[str, Any]:
    return {"verdict": kind, "findings": list(findings)}


def report_output(markdown: str = REPORT_BODY) -> dict[str, Any]:
    return {"markdown": markdown}


def stage_models(**steps: Any) -> dict[str, ScriptedChatModel]:
    """A ScriptedChatModel per stage; ``steps[stage]`` overrides that stage's one step."""
    defaults: dict[str, Any] = {
        PLAN: plan_output(),
        TASK: task_output(),
        **{name: verdict() for name in REVIEWERS},
        SYNTHESIZE: report_output(),
    }
    defaults.update(steps)
    return {stage: ScriptedChatModel(script=[step]) for stage, step in defaults.items()}
