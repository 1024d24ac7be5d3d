"""Helpers for the tasklist-agent tests: a scripted agent run and raw checkpoint reads."""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass, field
from typing import Any

import psycopg
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from aimind_memory.graphs.tasklist_agent import agent_config, compile_agent
from aimind_memory.graphs.tasklist_agent.models import Readiness
from aimind_memory.memory.storage import backend_of, sqlite_path
from tests.support.fakes import ScriptedChatModel

TOKEN = "tasklist-session-0001"
CONTEXT = {"session_id": TOKEN}
READY = Readiness(verdict="ready")


def task(
    tid: str, title: str, acceptance: str = "it is done", deps: list[str] | None = None
) -> dict:
    return {"id": tid, "title": title, "acceptance": acceptance, "depends_on": deps or []}


PLAN = {
    "tasks": [
        task("T1", "Collect requirements", "requirements list signed off"),
        task("T2", "Build the thing", "demo runs", ["T1"]),
        task("T3", "Ship it", "released to users", ["T2"]),
    ]
}


@dataclass
class AgentRun:
    """One tasklist-agent conversation on its own thread, driven by a scripted model."""

    saver: BaseCheckpointSaver
    script: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.model = ScriptedChatModel(script=list(self.script))
        self.graph: CompiledStateGraph = compile_agent(self.saver, model=self.model)
        self.config = agent_config()
        self.thread_id: str = self.config["configurable"]["thread_id"]

    def _run(self) -> dict[str, Any]:
        """Each call is its own run, with a run id as a server gives it."""
        return {**self.config, "run_id": uuid.uuid4()}

    async def start(self, goal: str, **message: Any) -> dict[str, Any]:
        msg = {"role": "user", "content": goal, **message}
        return await self.graph.ainvoke({"messages": [msg]}, self._run(), context=CONTEXT)

    async def send(self, text: str) -> dict[str, Any]:
        """A new user message on the thread (a new run with input, not a resume)."""
        return await self.start(text)

    async def resume(self, value: Any) -> dict[str, Any]:
        return await self.graph.ainvoke(Command(resume=value), self._run(), context=CONTEXT)

    async def command(self, **command: Any) -> dict[str, Any]:
        """Any other command, e.g. agent-chat-ui's "Mark as Resolved": ``goto="__end__"``."""
        return await self.graph.ainvoke(Command(**command), self._run(), context=CONTEXT)


def payload(result: dict[str, Any]) -> dict[str, Any]:
    """The value of the one pending interrupt in an ``ainvoke`` result."""
    interrupts = result.get("__interrupt__") or []
    assert len(interrupts) == 1, f"expected one pending interrupt, got {result!r}"
    return interrupts[0].value


def _as_bytes(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return str(value).encode()


def raw_thread_bytes(url: str, thread_id: str) -> bytes:
    """Every stored byte of ``thread_id``'s checkpoints, blobs and writes, straight from the DB."""
    chunks: list[bytes] = []
    if backend_of(url) == "sqlite":
        with sqlite3.connect(sqlite_path(url)) as conn:
            for table in ("checkpoints", "writes"):
                rows = conn.execute(f"SELECT * FROM {table} WHERE thread_id = ?", (thread_id,))
                chunks.extend(_as_bytes(v) for row in rows for v in row)
        return b"\n".join(chunks)
    queries = {
        "checkpoints": "checkpoint::text, metadata::text",
        "checkpoint_blobs": "channel, blob",
        "checkpoint_writes": "channel, blob",
    }
    with psycopg.connect(url) as conn:
        for table, columns in queries.items():
            rows = conn.execute(f"SELECT {columns} FROM {table} WHERE thread_id = %s", (thread_id,))
            chunks.extend(_as_bytes(v) for row in rows for v in row)
    return b"\n".join(chunks)


def stored_thread_ids(url: str) -> set[str]:
    """The thread ids that have checkpoints in the database."""
    if backend_of(url) == "sqlite":
        with sqlite3.connect(sqlite_path(url)) as conn:
            return {r[0] for r in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}
    with psycopg.connect(url) as conn:
        return {r[0] for r in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}
