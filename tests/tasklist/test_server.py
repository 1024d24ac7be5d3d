"""End to end under ``langgraph dev``: SDK run → review interrupt → resume → hydration.

On the suite's shared server of each backend (``tests/support/deployment.py``), as a
session of its own."""

from __future__ import annotations

import httpx
import pytest
from langgraph_sdk import get_client

from tests.support.deployment import SESSION_HEADER, Deployment
from tests.tasklist.support import raw_thread_bytes

pytestmark = pytest.mark.e2e

GOAL = "Plan the launch of our recipe app in Spain"
MARK = "SERVERMARK31d9"


async def test_sdk_review_resume_and_hydration(deployment: Deployment) -> None:
    db_url, headers = deployment.database_url, {SESSION_HEADER: deployment.token()}
    client = get_client(url=deployment.url, headers=headers)
    thread_id = (await client.threads.create())["thread_id"]

    paused = await client.runs.wait(
        thread_id, "tasklist-agent", input={"messages": [{"role": "user", "content": GOAL}]}
    )
    assert paused["status"] == "reviewing"
    state = await client.threads.get_state(thread_id)
    (review,) = [i["value"] for t in state["tasks"] for i in t.get("interrupts", [])]
    assert review["kind"] == "tasklist-review" and "[offline]" in review["markdown"]

    async with httpx.AsyncClient(base_url=deployment.url, headers=headers) as http:
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
