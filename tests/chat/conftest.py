"""Fixtures for the chat-graph tests: memory on a real database, documents with markers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from aimind_memory.adapters.chat_memory.runtime import close_memory
from aimind_memory.adapters.tools.mcp.sessions import close_mcp_sessions
from harness.openai_stub import OpenAIStub, running_stub

RESOURCE_MARKER = "RESOURCE-CONTENT-MARKER-7c1d"
MCP_MARKER = "MCP-RESULT-MARKER-3f9a"


@pytest.fixture
async def memory_url(db_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    """The graphs' memory on ``db_url`` (SQLite file and Postgres), closed afterwards."""
    monkeypatch.setenv("AIMIND_DATABASE_URL", db_url)
    yield db_url
    await close_memory()


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A documents folder whose contents carry markers that must never reach memory."""
    root = tmp_path / "documents"
    root.mkdir()
    (root / "secret-plan.md").write_text(f"# Plan\n\nThe code word is {RESOURCE_MARKER}.\n")
    (root / "glossary.md").write_text(f"- **zebra**: a striped term, see {MCP_MARKER}.\n")
    monkeypatch.setenv("AIMIND_DOCS_DIR", str(root))
    return root


@pytest.fixture
async def stop_mcp_servers() -> AsyncIterator[None]:
    """Stops the MCP servers the test started on its event loop."""
    yield
    await close_mcp_sessions()


@pytest.fixture
def mcp_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop_mcp_servers: None) -> Path:
    """An mcp.json starting the repo's stdio MCP server (a real subprocess)."""
    repo = Path(__file__).resolve().parents[2]
    path = tmp_path / "mcp.json"
    server = {
        "command": "python",
        "args": ["-m", "aimind_memory.adapters.tools.mcp.server"],
        "cwd": str(repo),
    }
    path.write_text(json.dumps({"mcpServers": {"aimind-docs": server}}))
    monkeypatch.setenv("AIMIND_MCP_CONFIG", str(path))
    return path


@pytest.fixture
def openai_stub() -> Iterator[OpenAIStub]:
    with running_stub() as stub:
        yield stub
