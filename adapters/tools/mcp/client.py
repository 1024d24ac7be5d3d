"""MCP tools and resources for the chat graph, from an ``mcp.json`` (``{"mcpServers": …}``).

The config is ``AIMIND_MCP_CONFIG`` if set, else ``mcp.json`` at the repo root;
a missing file means no MCP tools. Each server entry is the common format:
``{"command", "args", "env", "cwd"}`` for stdio, or ``{"url", "transport",
"headers"}`` for HTTP. A stdio ``command`` of ``python``/``python3`` runs this
interpreter (so the repo's server starts inside the same environment), the
working directory defaults to the config file's folder, and the child gets the
MCP SDK's minimal environment plus ``AIMIND_*`` settings (``AIMIND_DOCS_DIR``
made absolute, since the child runs elsewhere) plus the entry's own ``env`` —
never the whole parent environment with its API keys.

The config is read once per version of the file (path and modification time),
off the event loop; when the file changes, the old version's servers are stopped.

Besides each server's tools, one ``mcp_resource`` tool lists and reads the
servers' resources. Every MCP-backed tool carries ``metadata["aimind_source"] =
"mcp-resource"`` so the chat graph can label the turn's source.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from langchain_mcp_adapters.resources import load_mcp_resources
from langchain_mcp_adapters.tools import load_mcp_tools as tools_of_session
from mcp.client.stdio import get_default_environment
from pydantic import BaseModel, ConfigDict, Field

from aimind_memory.adapters.errors import MCPConfigError
from aimind_memory.adapters.settings import AdapterSettings, adapter_settings
from aimind_memory.adapters.tools.mcp.sessions import MCPServers
from aimind_memory.adapters.tools.resources import DOCS_DIR_ENV, docs_dir
from aimind_memory.memory.config.settings import MemorySettings

log = logging.getLogger("aimind.mcp")

MCP_CONFIG_ENV = AdapterSettings.env_name("mcp_config")
REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_MCP_CONFIG = REPO_ROOT / "mcp.json"
MCP_SOURCE = "mcp-resource"
SOURCE_METADATA_KEY = "aimind_source"
RESOURCE_TOOL_NAME = "mcp_resource"
MCP_LOAD_TIMEOUT_S = 30.0
_PYTHON_ALIASES = frozenset({"python", "python3"})
_FORWARDED_ENV_PREFIX = "AIMIND_"
_FORWARDED_ENV_DENY = frozenset(
    {MemorySettings.env_name("session_secret"), MemorySettings.env_name("database_url")}
)


class MCPServerConfig(BaseModel):
    """One ``mcpServers`` entry in the common format."""

    model_config = ConfigDict(extra="ignore")

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    transport: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)


class MCPConfig(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    servers: dict[str, MCPServerConfig] = Field(default_factory=dict, alias="mcpServers")


def mcp_config_path() -> Path:
    return adapter_settings().mcp_config or DEFAULT_MCP_CONFIG


def _child_env(extra: dict[str, str]) -> dict[str, str]:
    """The MCP SDK's minimal environment, plus our settings as this process has them (the
    documents folder resolved) except the secret and the database: forwarded, not read."""
    env = get_default_environment()
    env.update(
        {
            key: value
            for key, value in os.environ.items()
            if key.startswith(_FORWARDED_ENV_PREFIX) and key not in _FORWARDED_ENV_DENY
        }
    )
    if DOCS_DIR_ENV in env:
        env[DOCS_DIR_ENV] = str(docs_dir())
    env.update(extra)
    return env


def _connection(entry: MCPServerConfig, base: Path) -> dict[str, Any]:
    if entry.command:
        command = sys.executable if entry.command in _PYTHON_ALIASES else entry.command
        cwd = Path(entry.cwd) if entry.cwd else base
        return {
            "transport": "stdio",
            "command": command,
            "args": list(entry.args),
            "env": _child_env(entry.env),
            "cwd": str(cwd if cwd.is_absolute() else base / cwd),
        }
    if entry.url:
        transport = entry.transport or "streamable_http"
        connection: dict[str, Any] = {"transport": transport, "url": entry.url}
        if entry.headers:
            connection["headers"] = dict(entry.headers)
        return connection
    raise MCPConfigError("each MCP server needs a 'command' (stdio) or a 'url' (http)")


def load_connections(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """The MCP connections named by ``mcp.json``; {} if there is none. Blocking (file reads,
    path resolution): async code calls it in a thread."""
    path = path or mcp_config_path()
    if not path.is_file():
        return {}
    try:
        config = MCPConfig.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, OSError) as exc:
        raise MCPConfigError(f"{path.name} is not a valid mcpServers config: {exc}") from exc
    base = path.resolve().parent
    return {name: _connection(entry, base) for name, entry in config.servers.items()}


def _mark(tool: BaseTool) -> BaseTool:
    tool.metadata = {**(tool.metadata or {}), SOURCE_METADATA_KEY: MCP_SOURCE}
    return tool


def _blob_text(blob: Any) -> str:
    try:
        text: str = blob.as_string()
        return text
    except Exception:
        return f"[binary resource, {len(blob.as_bytes())} bytes]"


def resource_tool(servers: MCPServers) -> BaseTool:
    """One tool over every server's resources: empty ``uri`` lists them, else reads one."""

    async def mcp_resource(uri: str = "") -> str:
        if not uri.strip():
            lines: list[str] = []
            for name in servers.connections:
                try:
                    listed = await servers.call(name, lambda session: session.list_resources())
                except Exception as exc:
                    log.warning(
                        "MCP server %r could not list its resources (%s)", name, type(exc).__name__
                    )
                    continue
                lines += [f"{r.uri} ({r.name})" for r in listed.resources]
            return "MCP resources: " + (", ".join(lines) if lines else "(none)")
        for name in servers.connections:
            try:
                blobs = await servers.call(
                    name, lambda session: load_mcp_resources(session, uris=uri.strip())
                )
            except Exception as exc:
                log.info("MCP server %r did not read %r (%s)", name, uri, type(exc).__name__)
                continue
            if blobs:
                return "\n".join(_blob_text(b) for b in blobs)
        return f"error: no MCP server has the resource {uri!r}"

    return _mark(
        StructuredTool.from_function(
            coroutine=mcp_resource,
            name=RESOURCE_TOOL_NAME,
            description=(
                "Read a resource from the configured MCP servers by URI "
                "(e.g. aimind://glossary). Call with an empty uri to list them."
            ),
        )
    )


async def _server_tools(servers: MCPServers, name: str) -> list[BaseTool]:
    """``name``'s tools, listed on its live session; their calls go through it too."""
    return await servers.call(
        name,
        lambda session: tools_of_session(
            session, server_name=name, tool_interceptors=[servers.intercept]
        ),
    )


async def load_mcp_tools(path: Path | None = None) -> list[BaseTool]:
    """Every reachable server's tools plus the resource tool; [] when none is configured
    or none can be reached. A server that cannot be reached is logged and left out.

    Calls run on one live session per server (``adapters.tools.mcp.sessions``), so a server
    starts once per event loop, not once per call.
    """
    connections = await asyncio.to_thread(load_connections, path)
    tools, _ = await _load(MCPServers(connections))  # type: ignore[arg-type]
    return tools


async def _load(servers: MCPServers) -> tuple[list[BaseTool], bool]:
    """(tools, whether every configured server could be listed)."""
    if not servers.connections:
        return [], True
    listed = await asyncio.wait_for(
        asyncio.gather(
            *(_server_tools(servers, name) for name in servers.connections),
            return_exceptions=True,
        ),
        MCP_LOAD_TIMEOUT_S,
    )
    tools: list[BaseTool] = []
    for name, result in zip(servers.connections, listed, strict=True):
        if isinstance(result, BaseException):
            log.warning("MCP server %r unavailable (%s); the chat runs without it", name, result)
        else:
            tools += map(_mark, result)
    reached = len(listed) - sum(isinstance(r, BaseException) for r in listed)
    if not reached:
        return [], False
    return [*tools, resource_tool(servers)], reached == len(listed)


ConfigVersion = tuple[str, int, int]
"""The config file's resolved path, modification time (ns) and size; all zero when absent."""
_cache: dict[ConfigVersion, list[BaseTool]] = {}
_servers: dict[ConfigVersion, MCPServers] = {}
"""The current config version's servers, so a run that lists again reuses the live sessions."""


def _config_version(path: Path) -> ConfigVersion:
    resolved = path.resolve()
    if not resolved.is_file():
        return (str(resolved), 0, 0)
    stat = resolved.stat()
    return (str(resolved), stat.st_mtime_ns, stat.st_size)


async def _servers_for(key: ConfigVersion, path: Path) -> MCPServers:
    """The servers of this config version; the file is read the first time, in a thread."""
    if (servers := _servers.get(key)) is None:
        connections = await asyncio.to_thread(load_connections, path)
        servers = _servers.setdefault(key, MCPServers(connections))  # type: ignore[arg-type]
    return servers


async def _replace_older(key: ConfigVersion) -> None:
    """Stop the servers of every other config version: the file changed."""
    for old in [k for k in _servers if k != key]:
        _cache.pop(old, None)
        await _servers.pop(old).replace()


async def cached_mcp_tools() -> list[BaseTool]:
    """``load_mcp_tools()`` once per config file version, kept once every server answered
    (until then each run tries the missing servers again); a failure means no MCP tools."""
    path = mcp_config_path()
    try:
        key = await asyncio.to_thread(_config_version, path)
    except OSError:
        return []
    await _replace_older(key)
    if key not in _cache:
        try:
            servers = await _servers_for(key, path)
            tools, complete = await _load(servers)
        except Exception as exc:
            log.warning("MCP tools unavailable (%s); the chat runs without them", exc)
            return []
        if not complete:
            return tools
        _cache[key] = tools
    return _cache[key]


def is_mcp_tool(tool: BaseTool) -> bool:
    return (tool.metadata or {}).get(SOURCE_METADATA_KEY) == MCP_SOURCE
