"""End to end under ``langgraph dev``: SDK run → review interrupt → resume → hydration."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_client

from harness.langgraph_server import langgraph_server
from tests.tasklist.support import raw_thread_bytes

pytestmark = pytest.mark.e2e

TOKEN = "tasklist-e2e-session-0001"
HEADERS = {"X-AIMind-Session": TOKEN}
GOAL = "Plan the launch of our recipe app in Spain"
MARK = "SERVERMARK31d9"


async def test_sdk_review_resume_and_hydration(db_url: str, tmp_path: Path) -> None:
    env = {"AIMIND_SESSION_SECRET": "s" * 40}
    with langgraph_server(database_url=db_url, data_dir=tmp_path / "data", env=env) as server:
        client = get_client(url=server.base_url, headers=HEADERS)
        thread_id = (await client.threads.create())["thread_id"]

        paused = await client.runs.wait(
            thread_id, "tasklist-agent", input={"messages": [{"role": "user", "content": GOAL}]}
        )
        assert paused["status"] == "reviewing"
        state = await client.threads.get_state(thread_id)
        (review,) = [i["value"] for t in state["tasks"] for i in t.get("interrupts", [])]
        assert review["kind"] == "tasklist-review" and "[offline]" in review["markdown"]

        async with httpx.AsyncClient(base_url=server.base_url, headers=HEADERS) as http:
            assert (await http.get("/api/chat/thread")).json()["restored"] is False

            revised = await client.runs.wait(
                thread_id,
                "tasklist-agent",
                command={"resume": {"action": "respond", "text": f"add a press kit {MARK}"}},
            )
            assert revised["status"] == "reviewing"
            done = await client.runs.wait(
                thread_id, "tasklist-agent", command={"resume": {"action": "approve"}}
            )
            assert done["status"] == "final" and MARK in done["artifact"]
            assert done["messages"][-1]["type"] == "ai"
            assert done["messages"][-1]["content"] == done["summary"]

            dto = (await http.get("/api/chat/thread")).json()
        assert [(m["role"], m["text"]) for m in dto["messages"]] == [
            ("user", GOAL),
            ("assistant", done["summary"]),
        ]
        assert MARK not in str(dto)
        assert not thread_id.startswith("chat:")
        memory_bytes = raw_thread_bytes(db_url, dto["threadId"])
        assert GOAL.encode() in memory_bytes and MARK.encode() not in memory_bytes
        assert MARK.encode() in raw_thread_bytes(db_url, thread_id)
