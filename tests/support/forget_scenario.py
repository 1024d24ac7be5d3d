"""A session with something everywhere a server keeps it, for the forget tests (contract §9a).

``fill`` puts a unique marker, through the real graphs and routes, into a chat thread
(two turns), a tasklist thread left waiting on its human review, a delivery-chain
thread, a stateless chat turn (the page's kind), a cron on the chat thread and a
stateless cron, an assistant of its own (two versions), a store item under its
namespace, a pin and the summary — so the marker is in threads, runs, checkpoints,
crons, assistants and their versions, the store and the memory thread. Used on
``langgraph dev`` (SQLite and PostgreSQL) and on Aegra alike.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient

YEARLY = "0 0 1 1 *"
"""A schedule that never fires while a test runs."""


def human(text: str, message_id: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "user", "content": text}
    if message_id:
        message["id"] = message_id
    return {"messages": [message]}


def new_marker(name: str) -> str:
    return f"{name}{uuid.uuid4().hex}"


@dataclass
class Filled:
    marker: str
    threads: list[str] = field(default_factory=list)
    crons: list[str] = field(default_factory=list)
    pin_id: str = ""
    identity: str = ""
    assistant_id: str = ""
    store_namespace: list[str] = field(default_factory=list)


async def _cron_runs(client: LangGraphClient) -> list[dict[str, Any]]:
    """Runs started by the session's crons (on threads it owns)."""
    runs = []
    for thread in await client.threads.search(limit=100):
        for run in await client.runs.list(thread["thread_id"]):
            if run["status"] in ("pending", "running"):
                runs.append(run)
    return runs


async def fill(client: LangGraphClient, marker: str) -> Filled:
    """Write ``marker`` everywhere a session can have it (``client`` is the session's)."""
    filled = Filled(marker)
    chat = (await client.threads.create())["thread_id"]
    for n in range(2):
        await client.runs.wait(
            chat, "chat", input=human(f"Turn {n}: we decided the code word is {marker}.")
        )
    tasklist = (await client.threads.create())["thread_id"]
    await client.runs.wait(
        tasklist, "tasklist-agent", input=human(f"Plan the launch of product {marker} next month")
    )
    state = await client.threads.get_state(tasklist)
    assert state["tasks"] and state["tasks"][0]["interrupts"], "the review should be pending"
    delivery = (await client.threads.create())["thread_id"]
    await client.runs.wait(
        delivery, "delivery-chain", input=human(f"Add a CSV export named {marker}.")
    )
    await client.runs.wait(None, "chat", input=human(f"A stateless turn about {marker}."))
    filled.threads += [chat, tasklist, delivery]
    await client.crons.create_for_thread(
        chat, "chat", schedule=YEARLY, input=human(f"Yearly reminder about {marker}.")
    )
    await client.crons.create(
        "chat", schedule=YEARLY, input=human(f"Yearly stateless reminder about {marker}.")
    )
    # Aegra starts a cron's first run at once (and answers with it): let those end.
    for run in await _cron_runs(client):
        try:
            await client.runs.join(run["thread_id"], run["run_id"])
        except httpx.HTTPStatusError as exc:  # it ended and went before the join
            if exc.response.status_code != 404:
                raise
    filled.crons = [c["cron_id"] for c in await client.crons.search()]
    assert len(filled.crons) == 2
    pin = await client.http.post("/api/chat/memory/pins", json={"text": f"Pinned {marker}."})
    filled.pin_id = pin["id"]
    await client.http.put("/api/chat/memory/summary", json={"text": f"Summary with {marker}."})
    # the session's identity is its memory thread's id without the prefix
    memory = await client.http.get("/api/chat/memory/export")
    filled.identity = str(memory["threadId"]).split(":", 1)[1]
    filled.store_namespace = [filled.identity, "notes"]
    await client.store.put_item(filled.store_namespace, "note", {"text": f"A note on {marker}."})
    made = await client.assistants.create(
        "chat", name=f"Assistant {marker}", metadata={"topic": f"about {marker}"}
    )
    filled.assistant_id = made["assistant_id"]
    await client.assistants.update(filled.assistant_id, name=f"Assistant v2 {marker}")
    return filled


async def owned(client: LangGraphClient, filled: Filled) -> dict[str, Any]:
    """What of ``filled``'s the session still reaches: its assistants and store items."""
    assistants = [
        a["assistant_id"]
        for a in await client.assistants.search(limit=100)
        if (a.get("metadata") or {}).get("owner") == filled.identity
    ]
    items = await client.store.search_items([filled.identity], limit=100)
    return {"assistants": assistants, "store": [i["key"] for i in items["items"]]}
