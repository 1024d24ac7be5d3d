"""Turns quicker than the model under a real ``langgraph dev`` (contract §5): the model's
compaction, overtaken by inline folds, still lands as the base of memory.

A configured model (an OpenAI-compatible stub on loopback, ChatOpenAI's real wire
path) answers chat at once and compaction 2 s after the client's last turn, so the
compaction the fifth turn starts is in flight through all thirteen turns sent
back to back: the window passes 12 messages and is folded inline by the
extractive compactor (twice). When the model's result lands, memory carries it:
its summary and pin are the base, what the inline folds took beyond it is folded
onto it, and every turn is in the window or the summary.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client

from aimind_memory.memory import open_memory
from harness.langgraph_server import langgraph_server
from harness.openai_stub import Reply, json_reply, running_stub, text

pytestmark = [pytest.mark.e2e]

SECRET = "overtaken-test-secret-" + "s" * 24
SESSION = "overtaken-session-0001"
TURNS = 13
MODEL_DELAY_S = 2.0
MODEL_PIN = "MODEL-PIN: the user keeps every review on Friday."
LAND_TIMEOUT_S = 60.0
TAG = re.compile(r"\[t(\d+)\]")


class SlowModel:
    """Chat at once; compaction ``MODEL_DELAY_S`` after ``turns_sent``, its summary the
    previous one plus the folded turns' tags."""

    def __init__(self) -> None:
        self.turns_sent = threading.Event()
        self.compactions: list[list[str]] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        if not body.get("response_format"):
            return text("Noted; here is my answer.")
        payload = json.loads(body["messages"][-1]["content"])
        tags = [f"[t{n}]" for m in payload["fold"] for n in TAG.findall(m["text"])]
        self.compactions.append(tags)
        summary = " ".join(filter(None, ["MODEL SUMMARY:", payload["previous_summary"], *tags]))
        reply = json_reply({"summary": summary, "pinned_decisions": [MODEL_PIN]})
        reply.after, reply.delay_s = self.turns_sent, MODEL_DELAY_S
        return reply


def question(n: int) -> str:
    return f"[t{n}] Fact {n}: the review of project P{n} is in room {n}B at {n}:30 on Friday."


async def test_back_to_back_turns_end_with_the_model_summary_in_memory(
    tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = SlowModel()
    monkeypatch.setenv("AIMIND_SESSION_SECRET", SECRET)
    with running_stub(model) as stub:
        env = {
            "AIMIND_SESSION_SECRET": SECRET,
            "OPENAI_API_KEY": "sk-test-not-a-real-key",
            "OPENAI_BASE_URL": stub.base_url,
        }
        with langgraph_server(db_url, tmp_path / "data", env=env) as server:
            client = get_client(url=server.base_url, headers={"X-AIMind-Session": SESSION})
            for n in range(1, TURNS + 1):
                await client.runs.wait(
                    None, "chat", input={"messages": [{"role": "user", "content": question(n)}]}
                )
            async with open_memory(db_url) as mem:
                overtaken = await mem.snapshot(SESSION)
                model.turns_sent.set()
                loop = asyncio.get_running_loop()
                deadline = loop.time() + LAND_TIMEOUT_S
                while (snapshot := await mem.snapshot(SESSION)).last_compaction["compactor"] != (
                    "llm"
                ):
                    assert loop.time() < deadline, server.log_tail()
                    await asyncio.sleep(0.1)
    state = snapshot.state
    assert overtaken.last_compaction is not None
    assert overtaken.last_compaction["compactor"] == "extractive"  # folded inline meanwhile
    assert "MODEL SUMMARY:" not in overtaken.state.summary
    assert model.compactions == [["[t1]", "[t2]", "[t3]"]]  # the one the fifth turn started
    assert "MODEL SUMMARY: [t1] [t2] [t3]" in state.summary  # the model's work is the base
    assert MODEL_PIN in state.pinned_decisions
    memory = " ".join([*(m.text for m in state.messages), state.summary, *state.pinned_decisions])
    for n in range(1, TURNS + 1):  # every turn: in the window, the summary or a pin (the
        assert f"[t{n}]" in memory, n  # review the answer "Noted" is a statement taken on)
    assert state.messages == overtaken.state.messages
    assert snapshot.landed is not None and snapshot.landed["status"] == "succeeded"
