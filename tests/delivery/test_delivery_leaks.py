"""Only the requirement and the report reach chat memory: never stage outputs (contract §6).

Markers are planted in every stage output and reviewer finding, and in a
referenced document and a rubric. The raw bytes of the memory thread's
checkpoint rows, and the hydration DTO, must hold none of them. The agent's own
thread (same database) must hold them, which shows the scan can see a leak.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.tools.resources import DOCS_DIR_ENV
from aimind_memory.graphs.delivery_chain import build_graph
from aimind_memory.graphs.delivery_chain.stages import PLAN, SYNTHESIZE, TASK
from aimind_memory.memory.storage import backend_of, sqlite_path
from aimind_memory.memory.storage.checkpointer import open_checkpointer
from tests.delivery.scripts import (
    new_session,
    plan_output,
    report_output,
    stage_models,
    task_output,
    verdict,
)

PLAN_MARK = "PLANMARK-7f3a"
TASK_MARK = "TASKMARK-91c2"
FINDING_MARKS = {"review": "REVIEWMARK-a1", "risk": "RISKMARK-b2", "boundary": "BOUNDMARK-c3"}
RESOURCE_MARK = "RESOURCEMARK-d4"
RUBRIC_MARK = "RUBRICMARK-e5"
STAGE_MARKS = [PLAN_MARK, TASK_MARK, *FINDING_MARKS.values(), RESOURCE_MARK, RUBRIC_MARK]
REPORT_OWN = "REPORTOWN-0042 The manager's own words about the export."
REQUIREMENT = "Build the export described in @docs/export.md"
AGENT_THREAD = "delivery-agent-thread"

SQLITE_QUERIES = (
    "SELECT thread_id, checkpoint FROM checkpoints",
    "SELECT thread_id, metadata FROM checkpoints",
    "SELECT thread_id, value FROM writes",
)
POSTGRES_QUERIES = (
    "SELECT thread_id, checkpoint::text FROM checkpoints",
    "SELECT thread_id, metadata::text FROM checkpoints",
    "SELECT thread_id, blob FROM checkpoint_blobs",
    "SELECT thread_id, blob FROM checkpoint_writes",
)


def _bytes(value: Any) -> bytes:
    if value is None:
        return b""
    return value.encode() if isinstance(value, str) else bytes(value)


def raw_rows(url: str) -> dict[str, bytes]:
    """Every stored byte of every checkpoint table, concatenated per thread id."""
    rows: list[tuple[str, Any]] = []
    if backend_of(url) == "sqlite":
        with sqlite3.connect(sqlite_path(url)) as conn:
            for query in SQLITE_QUERIES:
                rows += conn.execute(query).fetchall()
    else:
        with psycopg.connect(url) as conn:
            for query in POSTGRES_QUERIES:
                rows += conn.execute(query).fetchall()
    by_thread: dict[str, bytes] = {}
    for thread_id, value in rows:
        by_thread[thread_id] = by_thread.get(thread_id, b"") + _bytes(value)
    return by_thread


@pytest.fixture
def docs_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A documents folder with the referenced requirement and an overriding review rubric."""
    folder = tmp_path / "docs"
    (folder / "rubrics").mkdir(parents=True)
    (folder / "export.md").write_text(f"Export all reports as CSV. {RESOURCE_MARK}\n")
    (folder / "rubrics" / "review.md").write_text(f"# Review rubric\nBe strict. {RUBRIC_MARK}\n")
    monkeypatch.setenv(DOCS_DIR_ENV, str(folder))
    return folder


def planted_models() -> dict[str, Any]:
    return stage_models(
        **{
            PLAN: plan_output(PLAN_MARK),
            TASK: task_output(TASK_MARK),
            **{name: verdict("concerns", f"see {mark}") for name, mark in FINDING_MARKS.items()},
            SYNTHESIZE: report_output(REPORT_OWN),
        }
    )


async def test_stage_outputs_never_reach_memory(memory_url: str, docs_dir: Path) -> None:
    session = new_session()
    models = planted_models()
    async with open_checkpointer(memory_url) as saver:
        chain = build_graph(models=models, checkpointer=saver)
        config = {"configurable": {"thread_id": AGENT_THREAD}}
        payload = {"requirement": REQUIREMENT}
        out = await chain.ainvoke(payload, config, context={"session_id": session})
        agent_state = (await chain.aget_state(config)).values

    assert out["status"] == "completed"
    assert RESOURCE_MARK in str(models[PLAN].calls[0]), "the plan subagent read the document"
    assert RUBRIC_MARK in str(models["review"].calls[0]), "the review used the overriding rubric"
    assert PLAN_MARK in json.dumps(agent_state["artifacts"]), "stage outputs live in GraphState"

    memory = await get_memory()
    memory_thread = memory.thread_id(session)
    dto = json.dumps(await memory.hydrate(session))
    stored = await asyncio.to_thread(raw_rows, memory_url)

    assert set(stored) == {memory_thread, AGENT_THREAD}
    assert REPORT_OWN.encode() in stored[memory_thread], "the scan sees the memory thread's text"
    assert REPORT_OWN in dto
    assert REQUIREMENT in dto, "memory keeps what the user typed, not the expanded document"
    for mark in STAGE_MARKS:
        assert mark.encode() not in stored[memory_thread], f"{mark} leaked into the memory thread"
        assert mark not in dto, f"{mark} leaked into hydration"
    for mark in (PLAN_MARK, TASK_MARK, *FINDING_MARKS.values()):
        assert mark.encode() in stored[AGENT_THREAD], "the agent thread keeps its own state"
