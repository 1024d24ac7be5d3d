"""The repo's stdio MCP server, started as a real subprocess through ``mcp.json``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.errors import MCPServerLostError
from aimind_memory.adapters.tools.mcp.client import (
    RESOURCE_TOOL_NAME,
    cached_mcp_tools,
    is_mcp_tool,
    load_connections,
    load_mcp_tools,
)
from aimind_memory.adapters.tools.mcp.sessions import close_mcp_sessions
from aimind_memory.graphs.chat import build_graph
from tests.chat.conftest import MCP_MARKER
from tests.chat.helpers import TOKEN, user
from tests.support.fakes import ScriptedChatModel


async def test_real_mcp_server_tool_and_resource(docs: Path, mcp_config: Path) -> None:
    tools = {t.name: t for t in await load_mcp_tools()}
    assert set(tools) == {"lookup_term", RESOURCE_TOOL_NAME}
    assert all(is_mcp_tool(t) for t in tools.values())

    found = await tools["lookup_term"].ainvoke(
        {"name": "lookup_term", "args": {"term": "zebra"}, "id": "c1", "type": "tool_call"}
    )
    assert isinstance(found, ToolMessage) and MCP_MARKER in str(found.content)
    missing = await tools["lookup_term"].ainvoke({"term": "no-such-term"})
    assert "no glossary entry" in str(missing)

    listing = await tools[RESOURCE_TOOL_NAME].ainvoke({"uri": ""})
    assert "aimind://glossary" in listing
    content = await tools[RESOURCE_TOOL_NAME].ainvoke({"uri": "aimind://glossary"})
    assert MCP_MARKER in content
    unknown = await tools[RESOURCE_TOOL_NAME].ainvoke({"uri": "aimind://nothing"})
    assert unknown.startswith("error:")


CALL_LIMIT_S = 30.0
"""Far above a call's real time (ms); a call that hangs fails the test instead."""


def mcp_servers_running() -> list[int]:
    """PIDs of the live (not zombie) repo MCP server processes this test process started."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if (
            int(stat[1]) == os.getpid()
            and stat[0] != "Z"
            and b"aimind_memory.adapters.tools.mcp.server" in command
        ):
            found.append(int(entry.name))
    return found


async def test_one_server_process_serves_every_call_until_closed(
    docs: Path, mcp_config: Path
) -> None:
    tools = {t.name: t for t in await load_mcp_tools()}
    for term in ("zebra", "no-such-term", "zebra"):
        await tools["lookup_term"].ainvoke({"term": term})
    assert "aimind://glossary" in await tools[RESOURCE_TOOL_NAME].ainvoke({"uri": ""})
    assert MCP_MARKER in await tools[RESOURCE_TOOL_NAME].ainvoke({"uri": "aimind://glossary"})
    # an unknown resource is the server's answer, not a broken session
    assert (await tools[RESOURCE_TOOL_NAME].ainvoke({"uri": "aimind://x"})).startswith("error:")
    assert len(mcp_servers_running()) == 1

    await close_mcp_sessions()
    assert mcp_servers_running() == []


async def test_a_server_killed_mid_call_fails_that_call_and_starts_again(
    docs: Path, mcp_config: Path
) -> None:
    tools = {t.name: t for t in await load_mcp_tools()}
    await tools["lookup_term"].ainvoke({"term": "zebra"})
    (killed,) = mcp_servers_running()

    # Freeze the server so a large request fills its input pipe and stays in flight,
    # then kill it: the SDK can drop such a request without ever failing it.
    os.kill(killed, signal.SIGSTOP)
    in_flight = asyncio.ensure_future(tools["lookup_term"].ainvoke({"term": "x" * 1_000_000}))
    await asyncio.sleep(0.2)
    os.kill(killed, signal.SIGKILL)
    with pytest.raises(MCPServerLostError, match="starts again on the next call"):
        await asyncio.wait_for(in_flight, CALL_LIMIT_S)  # it ends: no waiting forever

    found = await asyncio.wait_for(tools["lookup_term"].ainvoke({"term": "zebra"}), CALL_LIMIT_S)
    assert MCP_MARKER in str(found)
    (restarted,) = mcp_servers_running()
    assert restarted != killed


@pytest.fixture
def with_a_broken_server(tmp_path: Path, mcp_config: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``mcp_config`` plus a server whose command does not exist."""
    servers = json.loads(mcp_config.read_text())["mcpServers"]
    servers["broken"] = {"command": str(tmp_path / "no-such-mcp-server")}
    config = tmp_path / "two-servers.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    monkeypatch.setenv("AIMIND_MCP_CONFIG", str(config))
    return config


async def test_an_unreachable_server_leaves_the_others_working(
    docs: Path, with_a_broken_server: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tools = {t.name: t for t in await cached_mcp_tools()}

    assert set(tools) == {"lookup_term", RESOURCE_TOOL_NAME}
    assert "MCP server 'broken' unavailable" in caplog.text
    assert MCP_MARKER in str(await tools["lookup_term"].ainvoke({"term": "zebra"}))
    listing = await tools[RESOURCE_TOOL_NAME].ainvoke({"uri": ""})
    assert listing == "MCP resources: aimind://glossary (glossary)"

    # The next run tries the broken server again, on the working server's live session.
    again = {t.name: t for t in await cached_mcp_tools()}
    assert set(again) == set(tools)
    assert len(mcp_servers_running()) == 1


async def test_default_graph_uses_mcp_tools_and_labels_source(
    memory_url: str, docs: Path, mcp_config: Path
) -> None:
    model = ScriptedChatModel(
        script=[
            AIMessage(
                "", tool_calls=[{"name": "lookup_term", "args": {"term": "zebra"}, "id": "c1"}]
            ),
            AIMessage("A zebra is a striped term."),
        ]
    )
    graph = build_graph(model=model)  # default tools: local + MCP from mcp.json
    updates = [
        u
        async for u in graph.astream(
            {"messages": [user("What is a zebra?")]},
            context={"session_id": TOKEN},
            stream_mode="updates",
        )
    ]
    (tools_update,) = [u["tools"] for u in updates if "tools" in u]
    assert tools_update["source"] == "mcp-resource"
    assert MCP_MARKER in str(tools_update["messages"][0].content)
    names = {t.name for t in model.bound_tools}
    assert {"calculator", "current_time", "read_resource", "lookup_term"} <= names
    state = await (await get_memory()).load(TOKEN)
    assert [m.text for m in state.messages] == ["What is a zebra?", "A zebra is a striped term."]


def test_config_runs_this_python_and_keeps_secrets_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("AIMIND_DOCS_DIR", "/somewhere/docs")
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "local": {"command": "python", "args": ["-m", "x"], "env": {"EXTRA": "1"}},
                    "remote": {"url": "http://127.0.0.1:9/mcp"},
                }
            }
        )
    )
    connections = load_connections(path)
    local = connections["local"]
    assert local["transport"] == "stdio" and local["command"] == sys.executable
    assert local["cwd"] == str(tmp_path.resolve())
    assert local["env"]["EXTRA"] == "1"
    assert local["env"]["AIMIND_DOCS_DIR"] == "/somewhere/docs"
    assert "OPENAI_API_KEY" not in local["env"]
    assert connections["remote"] == {
        "transport": "streamable_http",
        "url": "http://127.0.0.1:9/mcp",
    }
    assert load_connections(tmp_path / "missing.json") == {}
