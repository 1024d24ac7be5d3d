"""What the chat page reads from a real ``langgraph dev`` to rebuild itself, and the runs it
refuses: ``GET /api/chat/memory``, the agent threads a reload finds with
``threads.search``, the message ids that say a turn was a command, and the 422s for
input that carries no turn. Once on SQLite, once on PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from aimind_memory.memory.config.limits import (
    MESSAGE_CHAR_CAP,
    PIN_CHARS,
    SUMMARY_CHARS,
    SUMMARY_PREVIEW_CHARS,
    TRUNCATION_MARKER,
)
from aimind_memory.memory.views.guard import assert_no_forbidden_fields
from tests.support.deployment import SESSION_COOKIE, SESSION_HEADER, Deployment

pytestmark = pytest.mark.e2e

PANEL_KEYS = {
    "summary",
    "pinnedDecisions",
    "pins",
    "replaced",
    "turnsInWindow",
    "summaryLength",
    "lastCompaction",
    "pending",
    "messageCharCap",
    "truncationMarker",
    "pinCharCap",
    "summaryCharCap",
}
TIMEOUT = httpx.Timeout(120.0)
GOAL = "Plan the launch of the team wiki with a migration and a training session"


def sdk(deployment: Deployment, token: str) -> LangGraphClient:
    return get_client(url=deployment.url, headers={SESSION_HEADER: token}, timeout=TIMEOUT)


def http(deployment: Deployment) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=deployment.url, timeout=TIMEOUT)


def human(text: str, message_id: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "user", "content": text}
    if message_id:
        message["id"] = message_id
    return {"messages": [message]}


async def panel(deployment: Deployment, token: str) -> dict[str, Any]:
    async with http(deployment) as client:
        response = await client.get(
            "/api/chat/memory", headers={"Cookie": f"{SESSION_COOKIE}={token}"}
        )
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert set(body) == PANEL_KEYS
    assert_no_forbidden_fields(body)
    return body


async def hydrate(deployment: Deployment, token: str) -> dict[str, Any]:
    async with http(deployment) as client:
        response = await client.get("/api/chat/thread", headers={SESSION_HEADER: token})
    assert response.status_code == 200, response.text
    return response.json()


# --- GET /api/chat/memory -----------------------------------------------------------------------


async def test_memory_panel_shows_the_whole_summary_and_a_status(deployment: Deployment) -> None:
    token = deployment.token()
    empty = await panel(deployment, token)
    assert empty == {
        "summary": "",
        "pinnedDecisions": [],
        "pins": [],
        "replaced": [],
        "turnsInWindow": 0,
        "summaryLength": 0,
        "lastCompaction": None,
        "pending": False,
        "messageCharCap": MESSAGE_CHAR_CAP,
        "truncationMarker": TRUNCATION_MARKER,
        "pinCharCap": PIN_CHARS,
        "summaryCharCap": SUMMARY_CHARS,
    }
    client = sdk(deployment, token)
    for n in range(1, 9):
        text = f"Turn {n}: crate {n} goes to the depot in town{n}, says the courier from dock {n}."
        await client.runs.wait(None, "chat", input=human(text))
    # Compactions after turns 5 and 8 folded turns 1-6; turns 7 and 8 stay verbatim.
    shown = await panel(deployment, token)
    dto = await hydrate(deployment, token)
    assert shown["turnsInWindow"] == 2 == len(dto["messages"]) // 2
    assert shown["summaryLength"] == len(shown["summary"]) > SUMMARY_PREVIEW_CHARS
    assert shown["summary"].startswith(dto["summaryPreview"])
    assert "Turn 6: crate 6" in shown["summary"]  # the newest folded turn: past the preview
    assert "Turn 6" not in dto["summaryPreview"]
    assert shown["pinnedDecisions"] == dto["pinnedDecisions"]
    last = shown["lastCompaction"]
    assert last["status"] == "succeeded" and last["compactor"] == "extractive", last
    assert last["at"].startswith("20")
    assert shown["pending"] is False


async def test_memory_panel_handles_the_session_like_hydration(deployment: Deployment) -> None:
    async with http(deployment) as client:
        fresh = await client.get("/api/chat/memory")
        broken = await client.get("/api/chat/memory", headers={"Cookie": f"{SESSION_COOKIE}=x"})
        malformed = await client.get("/api/chat/memory", headers={SESSION_HEADER: "short"})
        spec = (await client.get("/openapi.json")).json()
    for response in (fresh, broken):
        assert response.status_code == 200
        token = response.cookies[SESSION_COOKIE]
        assert "httponly" in response.headers["set-cookie"].lower()
        deployment.tokens.append(token)
        assert response.json()["turnsInWindow"] == 0
    assert malformed.status_code == 401
    assert set(malformed.json()) == {"detail"}
    assert "X-AIMind-Session" in malformed.json()["detail"]
    documented = spec["paths"]["/api/chat/memory"]["get"]
    assert documented["summary"] == "Read the session's memory status"
    assert {"200", "401", "503"} <= set(documented["responses"])


# --- the agent threads a reload finds -----------------------------------------------------------


async def test_a_reload_finds_the_pending_review_and_the_finished_plan(
    deployment: Deployment,
) -> None:
    token, other = deployment.token(), deployment.token()
    client = sdk(deployment, token)
    thread = await client.threads.create()
    goal_id = "goal-0001"
    await client.runs.wait(thread["thread_id"], "tasklist-agent", input=human(GOAL, goal_id))

    async def search(who: str, **query: Any) -> list[dict[str, Any]]:
        return await sdk(deployment, who).threads.search(
            metadata={"graph_id": "tasklist-agent"}, sort_by="updated_at", limit=5, **query
        )

    (pending,) = await search(token, status="interrupted")
    (interrupt,) = [i for group in pending["interrupts"].values() for i in group]
    assert interrupt["id"] and interrupt["value"]["action_requests"][0]["name"] == (
        "review_tasklist"
    )
    assert await search(other, status="interrupted") == []  # owner-scoped

    await client.runs.wait(
        thread["thread_id"],
        "tasklist-agent",
        command={"resume": {"decisions": [{"type": "approve"}]}},
    )
    assert await search(token, status="interrupted") == []
    (finished,) = await search(token, values={"status": "final"})
    assert finished["values"]["artifact"].startswith("# Tasklist")
    # Memory keeps the goal and summary under ids that say the turn was a /tasklist.
    ids = [m["id"] for m in (await hydrate(deployment, token))["messages"]]
    assert ids == [goal_id, f"{goal_id}:tasklist-summary"]


async def test_the_delivery_report_id_names_its_requirement(deployment: Deployment) -> None:
    token = deployment.token()
    client = sdk(deployment, token)
    thread = await client.threads.create()
    final = await client.runs.wait(
        thread["thread_id"], "delivery-chain", input=human("Add a CSV export.", "req-0001")
    )
    assert final["status"] == "completed"
    dto = await hydrate(deployment, token)
    assert [m["id"] for m in dto["messages"]] == ["req-0001", "req-0001:delivery-report"]
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["report_message_id"] == "req-0001:delivery-report"


# --- input that carries no turn ------------------------------------------------------------------

NO_TURN = {
    "no messages key": {"msgs": []},
    "empty messages": {"messages": []},
    "empty content": {"messages": [{"role": "user", "content": ""}]},
    "whitespace content": {"messages": [{"role": "user", "content": " \n\t "}]},
    "blank text blocks": {
        "messages": [{"type": "human", "content": [{"type": "text", "text": " "}]}]
    },
    "no user message": {"messages": [{"role": "assistant", "content": "Hello"}]},
    "empty requirement": {"requirement": "   "},
}


@pytest.mark.parametrize("payload", NO_TURN.values(), ids=NO_TURN.keys())
async def test_input_without_a_turn_is_refused_before_a_run_is_queued(
    deployment: Deployment, payload: dict[str, Any]
) -> None:
    token = deployment.token()
    client = sdk(deployment, token)
    thread = await client.threads.create()
    async with http(deployment) as raw:
        stateless = await raw.post(
            "/runs/wait",
            json={"assistant_id": "chat", "input": payload},
            headers={SESSION_HEADER: token},
        )
        threaded = await raw.post(
            f"/threads/{thread['thread_id']}/runs/stream",
            json={"assistant_id": "tasklist-agent", "input": payload},
            headers={SESSION_HEADER: token},
        )
    for response in (stateless, threaded):
        assert response.status_code == 422, response.text
        (detail,) = response.json().values()
        assert detail.endswith(".") and detail[0].isupper() and "Traceback" not in detail
        assert "message" in detail
    assert await client.runs.list(thread["thread_id"]) == []  # nothing was queued
    assert (await hydrate(deployment, token))["restored"] is False


async def test_a_resume_and_a_requirement_still_run(deployment: Deployment) -> None:
    """Runs without messages that do carry a turn: a resume (no input) and the delivery
    chain's ``{"requirement": ...}``."""
    token = deployment.token()
    client = sdk(deployment, token)
    thread = await client.threads.create()
    await client.runs.wait(thread["thread_id"], "tasklist-agent", input=human(GOAL))
    resumed = await client.runs.wait(
        thread["thread_id"],
        "tasklist-agent",
        command={"resume": {"decisions": [{"type": "reject"}]}},
    )
    assert resumed["status"] == "rejected"
    delivered = await client.runs.wait(
        None, "delivery-chain", input={"requirement": "Add a CSV export."}
    )
    assert delivered["status"] == "completed"
