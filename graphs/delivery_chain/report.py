"""The text the user sees at the end of a delivery chain: the report, or why it failed.

The report is the manager's markdown under a fixed title, with the status and
the reviewers' verdict labels. Reviewer findings and stage outputs are not
copied in: the manager's own text is the only prose, so nothing from the
stages reaches chat memory except what the manager chose to say.
"""

from __future__ import annotations

import re

from aimind_memory.graphs.delivery_chain.prompts import REVIEWERS
from aimind_memory.graphs.delivery_chain.schemas import Verdict

REPORT_TITLE = "# Delivery Chain Report"
_LEADING_H1 = re.compile(r"\A\s*#\s[^\n]*\n*")

FAILURE_REASONS: dict[str, str] = {
    "unsupported": "the configured model does not support structured output (tool calling)",
    "invalid": "the subagent's answer did not match the expected structure",
    "resource": "the referenced requirement could not be read",
    "empty": "no requirement was given",
    "rubric": "a review rubric document is missing",
    "error": "the subagent raised an error",
}


def overall_status(verdicts: dict[str, Verdict]) -> str:
    """``blocked`` when any reviewer blocks, else ``completed``."""
    return "blocked" if "block" in verdicts.values() else "completed"


def render_report(status: str, verdicts: dict[str, Verdict], body: str) -> str:
    """Title, status line, verdict table, then the manager's markdown (its own H1 dropped)."""
    blockers = [name for name in REVIEWERS if verdicts.get(name) == "block"]
    status_line = f"**Status:** {status}"
    if blockers:
        status_line += " — blocked by the " + ", ".join(blockers) + " review"
    table = ["| Reviewer | Verdict |", "|---|---|"]
    table += [f"| {name} | {verdicts.get(name, 'pass')} |" for name in REVIEWERS]
    body = _LEADING_H1.sub("", body.strip(), count=1).strip()
    return "\n\n".join([REPORT_TITLE, status_line, "\n".join(table), body]).strip()


def failure_message(stage: str, reason: str, detail: str | None = None) -> str:
    """A clear, safe message for the user: which stage failed and why, and what was not done."""
    why = FAILURE_REASONS.get(reason, FAILURE_REASONS["error"])
    if detail:
        why = f"{why} ({detail})"
    return (
        f"The delivery chain failed at the **{stage}** stage: {why}. "
        "No report was produced and nothing was written to chat memory."
    )
