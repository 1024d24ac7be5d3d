"""Turn a draft tasklist (from the model or a reviewer's edit) into a valid plan, or say why not.

Small faults are repaired and noted — blank or duplicate ids, dependencies on
unknown tasks or on the task itself, cycles, too many tasks, missing acceptance
text — so one sloppy draft does not end the run. Only a draft with no usable
task at all is reported as unusable. Nothing here raises on bad input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from aimind_memory.graphs.tasklist_agent.models import (
    TASKLIST_ACCEPTANCE_CHARS,
    TASKLIST_MAX_TASKS,
    TASKLIST_TITLE_CHARS,
    Task,
    TaskDraft,
    Tasklist,
    TasklistDraft,
    find_cycle,
)

MISSING_ACCEPTANCE = "(no acceptance criterion was given: agree one before starting)"


@dataclass(frozen=True)
class Repaired:
    """The usable plan (or None) and what had to be fixed to get it."""

    tasklist: Tasklist | None
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.tasklist is not None


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _parse(raw: Any) -> tuple[list[TaskDraft] | None, str | None]:
    if isinstance(raw, Tasklist):
        raw = raw.model_dump()
    if isinstance(raw, TasklistDraft):
        return list(raw.tasks), None
    try:
        return list(TasklistDraft.model_validate(raw).tasks), None
    except ValidationError as exc:
        places = sorted({".".join(str(p) for p in e["loc"]) or "tasklist" for e in exc.errors()})
        return None, f"the tasklist could not be read (problem at: {', '.join(places[:5])})"


def _unique_ids(drafts: list[TaskDraft], notes: list[str]) -> tuple[list[str], dict[str, str]]:
    """Final ids in order, and each original id's first owner (for dependency lookups)."""
    taken: set[str] = set()
    owner: dict[str, str] = {}
    ids: list[str] = []
    counter = 0
    for draft in drafts:
        wanted = draft.id.strip()
        final = wanted
        if not wanted or wanted in taken:
            while True:
                counter += 1
                final = f"T{counter}"
                if final not in taken and final not in {d.id.strip() for d in drafts}:
                    break
            notes.append(
                f"task {final}: {'duplicate id ' + repr(wanted) if wanted else 'missing id'} "
                "was replaced"
            )
        taken.add(final)
        if wanted:
            owner.setdefault(wanted, final)
        ids.append(final)
    return ids, owner


def _break_cycles(deps: dict[str, list[str]], notes: list[str]) -> None:
    while cycle := find_cycle(deps):
        task, dep = cycle[-2], cycle[-1]
        deps[task].remove(dep)
        notes.append(f"dependency {task} → {dep} removed to break the cycle {' → '.join(cycle)}")


def _topological(tasks: list[Task]) -> list[Task]:
    """Dependencies first, otherwise the draft's order (stable)."""
    done: set[str] = set()
    ordered: list[Task] = []
    pending = list(tasks)
    while pending:
        ready = next(t for t in pending if all(d in done for d in t.depends_on))
        ordered.append(ready)
        done.add(ready.id)
        pending.remove(ready)
    return ordered


def repair_tasklist(raw: Any) -> Repaired:
    """A valid ``Tasklist`` from ``raw`` with notes on what was fixed, or None and why."""
    drafts, error = _parse(raw)
    if drafts is None:
        return Repaired(None, (error or "the tasklist could not be read",))
    notes: list[str] = []
    usable = [d for d in drafts if d.title.strip()]
    if len(usable) < len(drafts):
        notes.append(f"{len(drafts) - len(usable)} task(s) without a title were dropped")
    if len(usable) > TASKLIST_MAX_TASKS:
        notes.append(
            f"{len(usable) - TASKLIST_MAX_TASKS} task(s) beyond {TASKLIST_MAX_TASKS} dropped"
        )
        usable = usable[:TASKLIST_MAX_TASKS]
    if not usable:
        return Repaired(None, (*notes, "the draft has no usable task"))
    ids, owner = _unique_ids(usable, notes)
    deps: dict[str, list[str]] = {}
    for task_id, draft in zip(ids, usable, strict=True):
        kept: list[str] = []
        for wanted in (d.strip() for d in draft.depends_on):
            target = owner.get(wanted)
            if target is None:
                notes.append(f"task {task_id}: dependency on unknown task {wanted!r} removed")
            elif target == task_id:
                notes.append(f"task {task_id}: dependency on itself removed")
            elif target not in kept:
                kept.append(target)
        deps[task_id] = kept
    _break_cycles(deps, notes)
    tasks: list[Task] = []
    for task_id, draft in zip(ids, usable, strict=True):
        acceptance = draft.acceptance.strip()
        if not acceptance:
            notes.append(f"task {task_id}: no acceptance criterion given")
            acceptance = MISSING_ACCEPTANCE
        tasks.append(
            Task(
                id=task_id,
                title=_cut(draft.title, TASKLIST_TITLE_CHARS),
                acceptance=_cut(acceptance, TASKLIST_ACCEPTANCE_CHARS),
                depends_on=deps[task_id],
            )
        )
    return Repaired(Tasklist(tasks=_topological(tasks)), tuple(notes))


def render_markdown(tasklist: Tasklist, goal: str) -> str:
    """The artifact: the plan as markdown, dependencies first."""
    heading = _cut(goal.splitlines()[0] if goal.strip() else "Tasklist", 120)
    lines = [f"# Tasklist: {heading}", ""]
    for number, task in enumerate(tasklist.tasks, start=1):
        lines.append(f"{number}. **{task.id} — {task.title}**")
        lines.append(f"   - Acceptance: {task.acceptance}")
        if task.depends_on:
            lines.append(f"   - Depends on: {', '.join(task.depends_on)}")
    return "\n".join(lines) + "\n"
