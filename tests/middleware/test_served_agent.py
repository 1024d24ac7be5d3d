"""The ``agent`` graph served by a real ``langgraph dev`` (blocking-call checker on), its model
the OpenAI-compatible stub, its MCP tools the real stdio servers, called as a client does.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from harness.langgraph_server import LangGraphServer, langgraph_server
from harness.openai_stub import OpenAIStub, Reply, json_reply, running_stub, text, tool_call
from tests.server.test_served_config import write_workdir
from tests.support import mcp_tool_server

pytestmark = pytest.mark.e2e

LOOKUP, BROKEN = "[[lookup]]", "[[broken]]"
GLOSSARY_MARKER = "GLOSSARY-MARKER-81c4"  # what write_workdir's glossary carries
COMPACTED = {
    "summary": "The user asked numbered questions.",
    "pinned_decisions": ["Answer the questions in order."],  # holds nothing nobody said
}


def provider(body: dict[str, Any]) -> Reply:
    """Compaction by JSON; a question naming a tool calls it (once), else an answer."""
    if body.get("response_format"):
        return json_reply(COMPACTED)
    last = body["messages"][-1]
    if last["role"] == "user" and LOOKUP in str(last["content"]):
        return tool_call("lookup_term", {"term": "zebra"})
    if last["role"] == "user" and BROKEN in str(last["content"]):
        return tool_call("broken_lookup", {"term": "zebra"})
    asked = next(m for m in reversed(body["messages"]) if m["role"] == "user")
    return text(f"Answer to {asked['content']}")


@dataclass
class Served:
    server: LangGraphServer
    stub: OpenAIStub

    def client(self, token: str) -> Any:
        return get_client(url=self.server.base_url, headers={"X-AIMind-Session": token})

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.stub.requests if not r.get("response_format")]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("served-agent")
    work = root / "work"
    work.mkdir()
    write_workdir(work)
    with running_stub(provider) as stub:
        env = {
            "AIMIND_SESSION_SECRET": "a" * 40,
            "AIMIND_DOCS_DIR": "docs",
            "AIMIND_MCP_CONFIG": "config/mcp.json",
            "OPENAI_API_KEY": "sk-test-not-a-real-key",
            "OPENAI_BASE_URL": stub.base_url,
        }
        url = f"sqlite:///{root / 'db' / 'aimind.sqlite'}"
        with langgraph_server(url, root / "data", workdir=work, env=env) as server:
            yield Served(server, stub)


def user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def memory_of(served: Served, token: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=served.server.base_url) as http:
        response = await http.get("/api/chat/thread", headers={"X-AIMind-Session": token})
    assert response.status_code == 200
    return response.json()


async def test_stateless_runs_share_the_sessions_memory(served: Served) -> None:
    token = "served-agent-session-0001"
    client = served.client(token)
    first = await client.runs.wait(None, "agent", input=user("We ship on Friday."))
    assert first["messages"][-1]["content"] == "Answer to We ship on Friday.", (
        served.server.log_tail()
    )
    await client.runs.wait(None, "agent", input=user("When do we ship?"))
    sent = [(m["role"], m["content"]) for m in served.chat_requests()[-1]["messages"]]
    assert sent[-3:] == [
        ("user", "We ship on Friday."),
        ("assistant", "Answer to We ship on Friday."),
        ("user", "When do we ship?"),
    ]
    dto = await memory_of(served, token)
    assert [m["text"] for m in dto["messages"]] == [
        "We ship on Friday.",
        "Answer to We ship on Friday.",
        "When do we ship?",
        "Answer to When do we ship?",
    ]


async def test_a_thread_keeps_its_conversation_and_an_mcp_tool_stays_out_of_memory(
    served: Served,
) -> None:
    token = "served-agent-session-0002"
    client = served.client(token)
    thread = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread, "agent", input=user("Hello there."))
    out = await client.runs.wait(thread, "agent", input=user(f"What is a zebra? {LOOKUP}"))
    kinds = [m["type"] for m in out["messages"]]
    assert kinds == ["human", "ai", "human", "ai", "tool", "ai"], served.server.log_tail()
    assert GLOSSARY_MARKER in str(out["messages"][4]["content"])  # the real MCP server answered
    state = await client.threads.get_state(thread)
    assert len(state["values"]["messages"]) == 6
    stored = json.dumps(await memory_of(served, token))
    assert f"What is a zebra? {LOOKUP}" in stored
    assert GLOSSARY_MARKER not in stored


async def test_a_failing_tool_shows_a_sentence_not_its_error(served: Served) -> None:
    client = served.client("served-agent-session-0003")
    out = await client.runs.wait(None, "agent", input=user(f"Look zebra up {BROKEN}"))
    streamed = json.dumps(out)
    assert "the details are in the server log" in streamed, served.server.log_tail()
    for private in (mcp_tool_server.PRIVATE_PATH, mcp_tool_server.PRIVATE_HOST, "OSError"):
        assert private not in streamed
        assert private not in json.dumps(served.stub.requests)


async def test_compaction_status_is_on_the_custom_stream(served: Served) -> None:
    token = "served-agent-session-0004"
    client = served.client(token)

    async def statuses(question: str) -> list[str]:
        events = []
        async for part in client.runs.stream(
            None, "agent", input=user(question), stream_mode=["custom"]
        ):
            if part.event == "custom" and part.data.get("type") == "thread-memory-status":
                events.append(part.data["status"])
        return events

    for i in range(1, 5):
        assert await statuses(f"Question {i}?") == []
    assert await statuses("Question 5?") == ["started"]  # the model compacts after the run
    for _ in range(200):  # it lands (the stub answers at once) …
        if (await memory_of(served, token))["pinnedDecisions"]:
            break
        await asyncio.sleep(0.05)
    assert (await memory_of(served, token))["pinnedDecisions"] == COMPACTED["pinned_decisions"]
    # … and the next run's stream reports it
    assert await statuses("Question 6?") == ["succeeded"], served.server.log_tail()


async def test_a_run_without_a_turn_is_refused(served: Served) -> None:
    """The run-input check knows the agent's runs are turns (``TURN_GRAPHS``)."""
    async with httpx.AsyncClient(base_url=served.server.base_url) as http:
        response = await http.post(
            "/runs/wait",
            headers={"X-AIMind-Session": "served-agent-session-0005"},
            json={"assistant_id": "agent", "input": {"messages": []}},
        )
    assert response.status_code == 422
    assert "no messages" in response.json()["detail"]


async def test_studio_sees_its_schemas_and_its_runs_have_a_memory(served: Served) -> None:
    """Studio (``x-auth-scheme: langsmith`` under ``langgraph dev``) draws the agent, finds
    ``session_id`` in its context schema, and its runs share Studio's own memory."""
    studio = get_client(url=served.server.base_url, headers={"x-auth-scheme": "langsmith"})
    [assistant] = await studio.assistants.search(graph_id="agent")
    schemas = await studio.assistants.get_schemas(assistant["assistant_id"])
    assert "messages" in schemas["input_schema"]["properties"]
    assert "session_id" in schemas["context_schema"]["properties"]
    drawn = await studio.assistants.get_graph(assistant["assistant_id"])
    assert {"model", "tools", "ChatMemoryMiddleware.after_agent"} <= {
        n["id"] for n in drawn["nodes"]
    }
    await studio.runs.wait(None, "agent", input=user("Studio says: the code word is heron."))
    await studio.runs.wait(None, "agent", input=user("Studio asks: what is the code word?"))
    sent = [m["content"] for m in served.chat_requests()[-1]["messages"]]
    assert "Studio says: the code word is heron." in sent
