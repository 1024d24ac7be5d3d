"""A served deployment configured the way an operator writes it: relative paths, MCP, a provider.

``AIMIND_DOCS_DIR`` and ``AIMIND_MCP_CONFIG`` are relative to the server's
working directory, and ``mcp.json`` sits in a sub-folder, so its servers run in
another working directory than ``langgraph dev``. ``langgraph dev`` runs with its
blocking-call checker on: a node that resolves a relative path or reads a file on
the event loop fails the run. The model is the OpenAI-compatible stub, answering
by what it is asked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from harness.langgraph_server import LangGraphServer, langgraph_server
from harness.openai_stub import OpenAIStub, Reply, json_reply, running_stub, text, tool_call
from tests.support import mcp_tool_server

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[2]
RESOURCE_MARKER = "RESOURCE-MARKER-5b2e"
GLOSSARY_MARKER = "GLOSSARY-MARKER-81c4"
RUBRIC_MARKER = "RUBRIC-MARKER-d07a"
ANSWER = "Answered from the stub."
LOOKUP, BROKEN = "[[lookup]]", "[[broken]]"
"""Words in the user's text that make the stub call a tool."""
STRUCTURED = {
    "Readiness": {"verdict": "ready", "question": "", "message": ""},
    "TasklistDraft": {
        "tasks": [
            {"id": "T1", "title": "Write the plan", "acceptance": "It is written", "depends_on": []}
        ]
    },
    "DeliveryPlan": {"summary": "Ship it.", "milestones": ["Build"], "assumptions": []},
    "TaskBreakdown": {"tasks": [{"title": "Build it", "estimate_hours": 2, "depends_on": []}]},
    "ReviewVerdict": {"verdict": "pass", "findings": []},
    "ReportDraft": {"markdown": "Everything is in place."},
}


def provider(body: dict[str, Any]) -> Reply:
    """Structured output by schema name; chat calls the tool its user text names, then answers."""
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
    if schema is not None:
        return json_reply(STRUCTURED[schema])
    last = body["messages"][-1]
    if last["role"] == "user" and LOOKUP in str(last["content"]):
        return tool_call("lookup_term", {"term": "zebra"})
    if last["role"] == "user" and BROKEN in str(last["content"]):
        return tool_call("broken_lookup", {"term": "zebra"})
    return text(ANSWER)


@dataclass
class Served:
    server: LangGraphServer
    stub: OpenAIStub

    def client(self, token: str) -> Any:
        return get_client(url=self.server.base_url, headers={"X-AIMind-Session": token})

    def requests_with(self, marker: str) -> list[dict[str, Any]]:
        return [r for r in self.stub.requests if marker in json.dumps(r)]


def write_workdir(work: Path) -> None:
    """Documents and ``config/mcp.json`` inside the server's working directory."""
    docs = work / "docs"
    (docs / "rubrics").mkdir(parents=True)
    (docs / "plan.md").write_text(f"# Plan\n\nThe code word is {RESOURCE_MARKER}.\n")
    (docs / "glossary.md").write_text(f"- **zebra**: a striped term, see {GLOSSARY_MARKER}.\n")
    (docs / "rubrics" / "review.md").write_text(f"Check the plan. {RUBRIC_MARKER}\n")
    (work / "config").mkdir()
    servers = {
        "aimind-docs": {
            "command": "python",
            "args": ["-m", "aimind_memory.adapters.tools.mcp.server"],
        },
        "test-tools": {"command": "python", "args": [mcp_tool_server.__file__]},
    }
    (work / "config" / "mcp.json").write_text(json.dumps({"mcpServers": servers}))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("served-config")
    work = root / "work"
    work.mkdir()
    write_workdir(work)
    with running_stub(provider) as stub:
        env = {
            "AIMIND_SESSION_SECRET": "s" * 40,
            "AIMIND_DOCS_DIR": "docs",
            "AIMIND_MCP_CONFIG": "config/mcp.json",
            "OPENAI_API_KEY": "sk-test-not-a-real-key",
            "OPENAI_BASE_URL": stub.base_url,
        }
        url = f"sqlite:///{root / 'db' / 'aimind.sqlite'}"
        with langgraph_server(url, root / "data", workdir=work, env=env) as server:
            yield Served(server, stub)


def test_the_blocking_call_checker_is_on(served: Served) -> None:
    """Without it these tests would not catch a blocking call (``--allow-blocking`` warns)."""
    assert "allows synchronous blocking" not in served.server.log_tail(200_000)


async def test_chat_reads_a_reference_and_calls_an_mcp_tool(served: Served) -> None:
    client = served.client("served-config-chat-0001")
    question = f"What is a zebra? {LOOKUP} See @docs/plan.md."
    out = await client.runs.wait(
        None, "chat", input={"messages": [{"role": "user", "content": question}]}
    )

    assert out["messages"][-1]["content"] == ANSWER, served.server.log_tail()
    # The thread keeps the answer, not the tool loop (contract §8a): the tool's result is in
    # the model's second request.
    assert not [m for m in out["messages"] if m["type"] == "tool"]
    assert served.requests_with(GLOSSARY_MARKER)  # the MCP server read docs/ too
    (first_call, *_) = served.requests_with(LOOKUP)
    assert RESOURCE_MARKER in json.dumps(first_call)  # the reference reached the model


async def test_tasklist_reads_a_reference(served: Served) -> None:
    client = served.client("served-config-tasklist-01")
    goal = "Plan the work described in @docs/plan.md"
    out = await client.runs.wait(
        None, "tasklist-agent", input={"messages": [{"role": "user", "content": goal}]}
    )

    assert out["status"] == "reviewing", served.server.log_tail()
    assert any("Readiness" in json.dumps(r) for r in served.requests_with(RESOURCE_MARKER))


async def test_delivery_reads_its_rubrics_and_reference(served: Served) -> None:
    client = served.client("served-config-delivery-01")
    out = await client.runs.wait(
        None, "delivery-chain", input={"requirement": "Deliver what @docs/plan.md asks for"}
    )

    assert out["status"] == "completed", served.server.log_tail()
    assert served.requests_with(RUBRIC_MARKER)  # the review rubric came from docs/
    assert any("DeliveryPlan" in json.dumps(r) for r in served.requests_with(RESOURCE_MARKER))


async def test_a_failing_tool_shows_a_sentence_not_its_error(served: Served) -> None:
    client = served.client("served-config-leaks-0001")
    question = f"Look zebra up {BROKEN}, and read @docs/missing.md."
    seen: list[Any] = []
    async for part in client.runs.stream(
        None,
        "chat",
        input={"messages": [{"role": "user", "content": question}]},
        stream_mode=["values", "updates", "messages", "custom", "events"],
    ):
        seen.append(part.data)
    streamed = json.dumps(seen)

    assert ANSWER in streamed
    assert "the details are in the server log" in streamed
    for private in (mcp_tool_server.PRIVATE_PATH, mcp_tool_server.PRIVATE_HOST, "OSError"):
        assert private not in streamed
        assert private not in json.dumps(served.stub.requests)  # nor does the model see it
    assert mcp_tool_server.PRIVATE_PATH in served.server.log_tail(200_000)  # the log has it
    assert str(served.server.workdir) not in streamed


async def test_start_log_is_clean_and_routes_are_documented(served: Served) -> None:
    log = served.server.log_tail(200_000)
    assert "Traceback" not in log
    assert "ScannerError" not in log
    async with httpx.AsyncClient(base_url=served.server.base_url) as http:
        spec = (await http.get("/openapi.json")).json()
    thread = spec["paths"]["/api/chat/thread"]
    assert thread["get"]["summary"] and thread["delete"]["summary"]
