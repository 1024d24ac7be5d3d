"""Stopping the server with a model compaction pending (contract §5).

The fifth turn's run ends at once and its compaction runs after it, on the
server's run loop. When ``langgraph dev`` is stopped (SIGTERM) right then, the
shutdown gives the compaction its grace period to land instead of dropping it.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client

from aimind_memory.memory import open_memory
from harness.langgraph_server import langgraph_server
from harness.openai_stub import Reply, json_reply, running_stub, text

pytestmark = [pytest.mark.e2e]

SECRET = "shutdown-test-secret-" + "s" * 24
SESSION = "shutdown-session-0001"
SUMMARY = "The user asked five questions; SHUTDOWN-SUMMARY-MARKER."
COMPACTION_S = 2.0
"""The compaction's model call takes this long: the server is stopped while it runs."""
compacted = threading.Event()
"""Set when the model has answered the compaction."""


def responder(body: dict[str, Any]) -> Reply:
    if body.get("response_format"):  # the compaction's structured output: slow
        time.sleep(COMPACTION_S)
        compacted.set()
        return json_reply({"summary": SUMMARY, "pinned_decisions": []})
    return text(f"Answer {len(body['messages'])}.")


async def test_stopping_the_server_lets_a_pending_compaction_land(
    tmp_path: Path, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    compacted.clear()
    with running_stub(responder) as stub:
        env = {
            "AIMIND_SESSION_SECRET": SECRET,
            "OPENAI_API_KEY": "sk-test-not-a-real-key",
            "OPENAI_BASE_URL": stub.base_url,
        }
        with langgraph_server(sqlite_url, tmp_path / "data", env=env) as server:
            client = get_client(url=server.base_url, headers={"X-AIMind-Session": SESSION})
            for i in range(1, 6):
                await client.runs.wait(
                    None, "chat", input={"messages": [{"role": "user", "content": f"Q{i}?"}]}
                )
            assert not compacted.is_set()  # the fifth run ended before its compaction did
            server.stop()
            log = server.log_tail(20_000)
    monkeypatch.setenv("AIMIND_SESSION_SECRET", SECRET)
    async with open_memory(sqlite_url) as mem:
        state = await mem.load(SESSION)
    assert state.summary == SUMMARY, log
    assert [m.text for m in state.messages if m.role == "user"] == ["Q4?", "Q5?"]
