"""Shared MCP sessions under real subprocesses: one caller's cancel, a config change, errors.

The server is ``tests/support/mcp_tool_server.py`` (test-only); it appends its
process id to a file at each start, so the tests count starts.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool

from aimind_memory.adapters.tools.mcp.client import cached_mcp_tools
from aimind_memory.adapters.tools.mcp.sessions import close_mcp_sessions
from tests.support import mcp_tool_server

CALL_LIMIT_S = 30.0
"""Far above a call's real time; a call that hangs fails the test instead."""
START_DELAY_S = 1.0
"""How long the slow-starting server waits before it answers the MCP handshake."""


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


class ToolServer:
    """``mcp.json`` with the test server; ``starts`` lists the process ids it started as."""

    def __init__(self, folder: Path) -> None:
        self.config = folder / "mcp.json"
        self.starts_file = folder / "starts.txt"
        self.write()

    def write(self, **env: str) -> None:
        entry = {
            "command": "python",
            "args": [mcp_tool_server.__file__],
            "env": {mcp_tool_server.STARTS_ENV: str(self.starts_file), **env},
        }
        previous = self.config.stat().st_mtime_ns if self.config.exists() else 0
        self.config.write_text(json.dumps({"mcpServers": {"test-tools": entry}}))
        stamp = max(self.config.stat().st_mtime_ns, previous + 1_000_000)
        os.utime(self.config, ns=(stamp, stamp))  # a new version even within one clock tick

    @property
    def starts(self) -> list[int]:
        if not self.starts_file.exists():
            return []
        return [int(line) for line in self.starts_file.read_text().split()]


@pytest.fixture
def tool_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop_mcp_servers: None
) -> ToolServer:
    server = ToolServer(tmp_path)
    monkeypatch.setenv("AIMIND_MCP_CONFIG", str(server.config))
    return server


async def tools() -> dict[str, BaseTool]:
    return {t.name: t for t in await cached_mcp_tools()}


async def echo(tool: BaseTool, text: str, seconds: float = 0.0) -> str:
    blocks = await asyncio.wait_for(tool.ainvoke({"text": text, "seconds": seconds}), CALL_LIMIT_S)
    return "".join(block["text"] for block in blocks)


async def test_a_cancelled_call_ends_only_that_call(tool_server: ToolServer) -> None:
    slow = (await tools())["slow_echo"]
    (pid,) = tool_server.starts
    others = [asyncio.ensure_future(echo(slow, f"other-{i}", 1.0)) for i in range(2)]
    mine = asyncio.ensure_future(echo(slow, "mine", 30.0))
    await asyncio.sleep(0.3)

    mine.cancel()  # the stop button, or a tool timeout
    with pytest.raises(asyncio.CancelledError):
        await mine
    answers = await asyncio.gather(*others)

    assert answers == [f"other-{i} pid={pid}" for i in range(2)]
    assert await echo(slow, "after") == f"after pid={pid}"  # the same session goes on
    assert tool_server.starts == [pid]


async def test_a_caller_cancelled_while_the_server_starts_does_not_stop_the_start(
    tool_server: ToolServer,
) -> None:
    tool_server.write(**{mcp_tool_server.START_DELAY_ENV: str(START_DELAY_S)})
    slow = (await tools())["slow_echo"]  # listing starts the server once
    await close_mcp_sessions()  # so the next call starts it again

    mine = asyncio.ensure_future(echo(slow, "mine"))
    await asyncio.sleep(0.1)
    other = asyncio.ensure_future(echo(slow, "other"))
    await asyncio.sleep(0.1)
    mine.cancel()  # while the server is still starting
    with pytest.raises(asyncio.CancelledError):
        await mine

    answer = await other
    starts = tool_server.starts  # one for the listing, one for the calls
    assert len(starts) == 2, "the cancelled caller's start was thrown away and done again"
    assert answer == f"other pid={starts[1]}"


async def test_a_config_change_stops_the_old_servers(tool_server: ToolServer) -> None:
    old_tool = (await tools())["slow_echo"]
    (old,) = tool_server.starts
    assert await echo(old_tool, "v1") == f"v1 pid={old}"

    tool_server.write(VERSION="2")
    new_tool = (await tools())["slow_echo"]
    answer = await echo(new_tool, "v2")

    new = tool_server.starts[-1]
    assert new != old and answer == f"v2 pid={new}"
    assert not alive(old)
    with pytest.raises(Exception, match="configuration changed"):
        await echo(old_tool, "stale")  # a tool from before the change does not revive it
    assert not alive(old) and tool_server.starts == [old, new]


async def test_a_tool_error_reaches_the_model_as_a_sentence(
    tool_server: ToolServer, caplog: pytest.LogCaptureFixture
) -> None:
    broken = (await tools())["broken_lookup"]
    call: dict[str, Any] = {"name": "broken_lookup", "args": {"term": "x"}, "id": "c1"}
    with caplog.at_level(logging.WARNING, logger="aimind.mcp"):
        result = await asyncio.wait_for(broken.ainvoke({**call, "type": "tool_call"}), 30)

    assert isinstance(result, ToolMessage) and result.status == "error"
    assert "the details are in the server log" in str(result.content)
    for private in (mcp_tool_server.PRIVATE_PATH, mcp_tool_server.PRIVATE_HOST, "OSError"):
        assert private not in str(result.content)
    assert mcp_tool_server.PRIVATE_PATH in caplog.text
