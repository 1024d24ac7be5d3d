"""The plan as text a reviewer reads and edits: one task per line, parsed back.

A stock review card (agent-chat-ui) shows each ``args`` value in a text box and sends
back what is in it, so the tasks travel as lines, not as JSON::

    T1: Book the venue | done when: a signed contract | after: T3

A line is read tolerantly: numbering (``1.``, ``2)``, ``(3)``), bullets and check boxes
before it are dropped, blank lines are skipped, the id and the fields are optional
(``done when:`` / ``acceptance:``, ``after:`` / ``depends on:``), and a ``|`` that
starts no field stays in the title. What is still wrong after that (a missing id, a
dependency on a task that is gone) is repaired by ``validation.repair_tasklist``. Text
with no line that looks like a task (no id, numbering, bullet or field anywhere) is not
a plan: the caller takes it as a request for changes.
"""

from __future__ import annotations

import re

from aimind_memory.graphs.tasklist_agent.models import Task, TaskDraft

__all__ = ["parse_task_lines", "task_line", "task_lines"]

FIELD_SEPARATOR = " | "
ACCEPTANCE_LABEL = "done when"
DEPENDS_LABEL = "after"
_LABELS = {
    "done when": "acceptance",
    "acceptance": "acceptance",
    "accepted when": "acceptance",
    "after": "depends_on",
    "depends on": "depends_on",
    "depends": "depends_on",
}
_MARKER = re.compile(r"^\s*(?:[-*+•·–—]|\d{1,3}\s*[.)、]|\(\d{1,3}\)|\[[ xX✓]?\])\s*")
_TASK_ID = r"[A-Za-z]{1,4}-?\d{1,4}"
_ID = re.compile(
    rf"^(?:\[(?P<boxed>{_TASK_ID})\]\s*[:：.\-–—]?|(?P<id>{_TASK_ID})\s*[:：.)\-–—])\s*(?=\S)"
)
_FIELD = re.compile(
    r"^\s*(?P<label>" + "|".join(sorted(map(re.escape, _LABELS), key=len, reverse=True)) + r")"
    r"\s*[:：]\s*(?P<value>.*)$",
    re.IGNORECASE,
)
_SPLIT = re.compile(r"\s*[|｜]\s*")
_DEPENDENCY = re.compile(_TASK_ID)


def task_line(task: Task) -> str:
    """One task as the line a reviewer sees."""
    parts = [f"{task.id}: {task.title}", f"{ACCEPTANCE_LABEL}: {task.acceptance}"]
    if task.depends_on:
        parts.append(f"{DEPENDS_LABEL}: {', '.join(task.depends_on)}")
    return FIELD_SEPARATOR.join(parts)


def task_lines(tasks: list[Task]) -> str:
    """The whole plan, one task per line (what a review's ``args.tasks`` holds)."""
    return "\n".join(task_line(task) for task in tasks)


def _read_line(line: str) -> tuple[TaskDraft, bool]:
    """The task a line describes, and whether the line looked like a task at all."""
    text, marked = line, False
    while match := _MARKER.match(text):
        text, marked = text[match.end() :], True
    task_id = ""
    if match := _ID.match(text):
        task_id, text = match["boxed"] or match["id"], text[match.end() :]
    title: list[str] = []
    fields: dict[str, str] = {}
    for index, part in enumerate(_SPLIT.split(text.strip())):
        field = _FIELD.match(part) if index else None  # the first part is the title
        if field:
            fields[_LABELS[field["label"].lower()]] = field["value"].strip()
        else:
            title.append(part)
    depends = _DEPENDENCY.findall(fields.get("depends_on", ""))
    draft = TaskDraft(
        id=task_id,
        title=" | ".join(p for p in title if p).strip(),
        acceptance=fields.get("acceptance", ""),
        depends_on=depends,
    )
    return draft, bool(marked or task_id or fields)


def parse_task_lines(text: str) -> list[TaskDraft] | None:
    """The tasks of an edited text, one per non-blank line; None when no line looks like
    a task (the text is then an instruction, not a plan)."""
    read = [_read_line(line) for line in text.splitlines() if line.strip()]
    if not any(looks_like_task for _, looks_like_task in read):
        return None
    return [draft for draft, _ in read]
