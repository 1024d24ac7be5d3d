"""A pin made and edited through the memory routes while a model compaction is pending keeps
its new wording when the compaction lands, under a real ``langgraph dev`` (contract §9a,
"An edit survives a landing compaction").

A configured model (an OpenAI-compatible stub on loopback, ChatOpenAI's real wire path)
answers chat at once and holds the compaction the fifth turn starts until the test lets
it go. Meanwhile the user pins the decision the first turn stated ("Remember") and
corrects it; the model, which folded that turn, pins the old wording. Once it lands the
pins are the user's correction alone.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client

from harness.langgraph_server import langgraph_server
from harness.openai_stub import Reply, json_reply, running_stub, text

pytestmark = [pytest.mark.e2e]

SESSION = "edit-during-compaction-01"
POSTGRES = "We decided to use Postgres for the database."
MYSQL = "We decided to use MySQL for the database."
MODEL_SUMMARY = "MODEL SUMMARY: the database was chosen."
LAND_TIMEOUT_S = 60.0
TURNS = 5
"""The fifth turn takes the window past ``RECENT_TURNS`` (4): it starts the compaction."""


class HeldModel:
    """Chat at once; every compaction held until ``release``, pinning the old wording."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.asked = threading.Event()

    def __call__(self, body: dict[str, Any]) -> Reply:
        if not body.get("response_format"):
            return text("Noted.")
        self.asked.set()
        reply = json_reply({"summary": MODEL_SUMMARY, "pinned_decisions": [POSTGRES]})
        reply.after = self.release
        return reply


def ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def test_a_pin_edited_while_a_compaction_runs_keeps_its_new_wording(
    tmp_path: Path, db_url: str
) -> None:
    model = HeldModel()
    with running_stub(model) as stub:
        env = {"OPENAI_API_KEY": "sk-test-not-a-real-key", "OPENAI_BASE_URL": stub.base_url}
        with langgraph_server(db_url, tmp_path / "data", env=env) as server:
            client = get_client(url=server.base_url, api_key=SESSION)
            thread = (await client.threads.create())["thread_id"]
            await client.runs.wait(thread, "chat", input=ask(POSTGRES))
            for n in range(2, TURNS + 1):
                await client.runs.wait(thread, "chat", input=ask(f"Question {n}?"))
            await asyncio.to_thread(model.asked.wait, LAND_TIMEOUT_S)
            assert model.asked.is_set(), "no compaction was asked for"

            said = (await client.http.get("/api/chat/memory/export"))["messages"][0]
            assert said["text"] == POSTGRES
            pin = await client.http.post(
                "/api/chat/memory/pins", json={"text": POSTGRES, "messageId": said["id"]}
            )
            edited = await client.http.patch(
                f"/api/chat/memory/pins/{pin['id']}", json={"text": MYSQL}
            )
            model.release.set()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + LAND_TIMEOUT_S
            while (panel := await client.http.get("/api/chat/memory"))["summary"] != MODEL_SUMMARY:
                assert loop.time() < deadline, server.log_tail()
                await asyncio.sleep(0.2)
    assert panel["pinnedDecisions"] == [MYSQL]
    assert [p["id"] for p in panel["pins"]] == [edited["id"]]
    assert panel["pins"][0]["origin"] == "user" and panel["pins"][0]["editedAt"]
