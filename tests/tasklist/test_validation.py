"""A draft tasklist is repaired into a valid plan (with notes) or reported; it never raises."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from aimind_memory.graphs.tasklist_agent.models import TASKLIST_MAX_TASKS, Tasklist
from aimind_memory.graphs.tasklist_agent.validation import render_markdown, repair_tasklist
from tests.tasklist.support import PLAN, task


def test_valid_draft_passes_unchanged() -> None:
    repaired = repair_tasklist(PLAN)
    assert repaired.ok and repaired.notes == ()
    assert [t.id for t in repaired.tasklist.tasks] == ["T1", "T2", "T3"]


def test_cycle_is_broken_with_a_note() -> None:
    repaired = repair_tasklist(
        [task("A", "a", deps=["C"]), task("B", "b", deps=["A"]), task("C", "c", deps=["B"])]
    )
    assert repaired.ok
    Tasklist.model_validate(repaired.tasklist.model_dump())  # re-validates: no cycle left
    assert any("cycle" in n for n in repaired.notes)
    assert repaired.tasklist.dependency_count == 2


def test_dangling_and_self_dependencies_are_dropped() -> None:
    repaired = repair_tasklist([task("A", "a", deps=["A", "ghost"]), task("B", "b", deps=["A"])])
    assert repaired.ok
    by_id = {t.id: t for t in repaired.tasklist.tasks}
    assert by_id["A"].depends_on == [] and by_id["B"].depends_on == ["A"]
    assert any("'ghost'" in n for n in repaired.notes)
    assert any("itself" in n for n in repaired.notes)


def test_duplicate_and_missing_ids_get_fresh_ones() -> None:
    repaired = repair_tasklist([task("X", "one"), task("X", "two"), task("", "three", deps=["X"])])
    ids = [t.id for t in repaired.tasklist.tasks]
    assert len(set(ids)) == 3 and ids[0] == "X"
    assert repaired.tasklist.tasks[-1].depends_on == ["X"]


def test_too_many_tasks_are_cut_to_the_limit() -> None:
    drafts = [task(f"T{i}", f"task {i}", deps=[f"T{i + 1}"]) for i in range(TASKLIST_MAX_TASKS + 5)]
    repaired = repair_tasklist(drafts)
    assert repaired.ok and len(repaired.tasklist.tasks) == TASKLIST_MAX_TASKS
    assert any("beyond" in n for n in repaired.notes)


def test_dependencies_come_first_in_the_plan() -> None:
    repaired = repair_tasklist([task("B", "b", deps=["A"]), task("A", "a")])
    assert [t.id for t in repaired.tasklist.tasks] == ["A", "B"]


@pytest.mark.parametrize(
    "raw",
    [None, [], {"tasks": []}, [task("A", "  ")], "not a tasklist", {"tasks": [42]}, 7],
)
def test_unusable_drafts_are_reported_not_raised(raw: object) -> None:
    repaired = repair_tasklist(raw)
    assert not repaired.ok and repaired.notes


def test_missing_acceptance_is_flagged_in_the_plan() -> None:
    repaired = repair_tasklist([task("A", "a", acceptance="")])
    assert repaired.ok and "no acceptance" in repaired.tasklist.tasks[0].acceptance
    assert any("acceptance" in n for n in repaired.notes)


def test_strict_tasklist_rejects_what_repair_fixes() -> None:
    with pytest.raises(ValidationError):
        Tasklist.model_validate({"tasks": [task("A", "a", deps=["B"]), task("B", "b", deps=["A"])]})
    with pytest.raises(ValidationError):
        Tasklist.model_validate({"tasks": []})


def test_markdown_lists_every_task_with_acceptance_and_dependencies() -> None:
    text = render_markdown(repair_tasklist(PLAN).tasklist, "Launch the app")
    assert text.startswith("# Tasklist: Launch the app")
    assert "**T2 — Build the thing**" in text
    assert "Acceptance: demo runs" in text and "Depends on: T1" in text
