"""A test-only stdio MCP server (never shipped): a slow tool and a tool that fails.

Run as a script (``python tests/support/mcp_tool_server.py``): the test's
``mcp.json`` names this file by its path. With ``AIMIND_TEST_MCP_STARTS`` set,
each start appends the process id to that file, so a test can count starts;
``AIMIND_TEST_MCP_START_DELAY`` (seconds) makes the start that much slower.
``broken_lookup`` raises an error whose text carries a private path and host,
which must reach the server log only, never a client.
"""

from __future__ import annotations

import asyncio
import os
import time

from mcp.server.fastmcp import FastMCP

STARTS_ENV = "AIMIND_TEST_MCP_STARTS"
START_DELAY_ENV = "AIMIND_TEST_MCP_START_DELAY"
PRIVATE_PATH = "/srv/aimind-private/tenant-7/ledger.sqlite"
PRIVATE_HOST = "db-7.internal.example"

server = FastMCP("aimind-test-tools", log_level="WARNING")


@server.tool()
async def slow_echo(text: str, seconds: float = 0.0) -> str:
    """Answer ``text`` and this server's process id after ``seconds``."""
    await asyncio.sleep(seconds)
    return f"{text} pid={os.getpid()}"


@server.tool()
def broken_lookup(term: str) -> str:
    """Always fails, with private details in the error's text."""
    raise OSError(f"cannot open {PRIVATE_PATH} on {PRIVATE_HOST} for {term!r}")


if __name__ == "__main__":
    if starts := os.environ.get(STARTS_ENV):
        with open(starts, "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()}\n")
    time.sleep(float(os.environ.get(START_DELAY_ENV) or 0))
    server.run("stdio")
