"""With ``OPENAI_API_KEY`` set, the served graphs use ``ChatOpenAI`` with no other change.

The "provider" is the OpenAI-compatible stub on loopback. Its delivery report is
longer than a stored message may be, so the report the user gets is whole and
the one in chat memory is capped with the truncation marker (contract §6).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from aimind_memory.memory.config.limits import MESSAGE_CHAR_CAP, TRUNCATION_MARKER
from aimind_memory.memory.session import new_token
from harness.langgraph_server import langgraph_server
from harness.openai_stub import Reply, json_reply, running_stub, text
from tests.support.deployment import SESSION_COOKIE, SESSION_HEADER

pytestmark = pytest.mark.e2e

CHAT_REPLY = "Hello from the provider behind OPENAI_BASE_URL."
LONG_REPORT = "# Report\n\n" + "Every stage passed its review and the export is ready. " * 300
STRUCTURED = {
    "DeliveryPlan": {
        "summary": "Export memory as JSON.",
        "milestones": ["Build"],
        "assumptions": [],
    },
    "TaskBreakdown": {
        "tasks": [{"title": "Write the exporter", "estimate_hours": 3, "depends_on": []}]
    },
    "ReviewVerdict": {"verdict": "pass", "findings": []},
    "ReportDraft": {"markdown": LONG_REPORT},
}


def provider(body: dict[str, Any]) -> Reply:
    """Structured output by schema name; plain chat gets a fixed answer."""
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
    if schema is None:
        return text(CHAT_REPLY)
    assert schema in STRUCTURED, f"the stub has no answer for schema {schema!r}"
    return json_reply(STRUCTURED[schema])


async def test_served_graphs_use_the_configured_provider_and_cap_the_stored_report(
    db_url: str, tmp_path: Path
) -> None:
    assert len(LONG_REPORT) > MESSAGE_CHAR_CAP
    token = new_token()
    with (
        running_stub(provider) as stub,
        langgraph_server(
            db_url,
            tmp_path / "data",
            env={"OPENAI_API_KEY": "sk-test-not-a-real-key", "OPENAI_BASE_URL": stub.base_url},
        ) as server,
    ):
        client = get_client(url=server.base_url, headers={SESSION_HEADER: token})
        chat = await client.runs.wait(
            None, "chat", input={"messages": [{"role": "user", "content": "Say hello."}]}
        )
        final = await client.runs.wait(
            None, "delivery-chain", input={"requirement": "Export a session's memory as JSON"}
        )
        async with httpx.AsyncClient(base_url=server.base_url) as http:
            response = await http.get(
                "/api/chat/thread", headers={"Cookie": f"{SESSION_COOKIE}={token}"}
            )

    assert chat["messages"][-1]["content"] == CHAT_REPLY
    assert any(r.get("response_format") for r in stub.requests)  # ChatOpenAI's wire path
    assert final["status"] == "completed"
    assert len(final["report"]) > MESSAGE_CHAR_CAP  # the user gets the whole report

    messages = response.json()["messages"]
    assert [(m["role"], m["text"]) for m in messages[:2]] == [
        ("user", "Say hello."),
        ("assistant", CHAT_REPLY),
    ]
    stored = messages[3]["text"]
    assert messages[2]["text"] == "Export a session's memory as JSON"
    assert len(stored) <= MESSAGE_CHAR_CAP
    assert stored.endswith(TRUNCATION_MARKER)
    assert final["report"].startswith(stored.removesuffix(TRUNCATION_MARKER))
