"""Live MCP sessions: one per configured server and event loop, shared by every call.

Without them each MCP tool call starts its server again; for a stdio server that is a
new Python process, about half a second per call. The MCP SDK's stdio transport must be
entered and left in one task, so each session lives in a task of its own and calls from
any task on the loop use it. A call that fails for any reason other than an error the
server itself answered drops the session: that call fails (it is not retried, since it
may have run), and the next call starts the server again.

Sessions are shared by every user's runs, so a caller that gives up (the stop button, a
tool timeout) ends only its own request: the session, a start in progress and the other
callers' requests go on. A tool's error answer reaches the model as a fixed sentence;
its text (which may carry paths, hosts or data) goes to the log only.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from langchain_mcp_adapters.interceptors import MCPToolCallRequest
from langchain_mcp_adapters.sessions import Connection, create_session
from mcp import ClientSession
from mcp.shared.exceptions import McpError
from mcp.types import CONNECTION_CLOSED, CallToolResult, TextContent

from aimind_memory.adapters.errors import MCPConfigReplacedError, MCPServerLostError

__all__ = ["MCPConfigReplacedError", "MCPServerLostError", "MCPServers", "close_mcp_sessions"]

log = logging.getLogger("aimind.mcp")

MCP_START_TIMEOUT_S = 30.0
"""How long starting a server and its MCP handshake may take."""
MCP_TOOL_FAILED = "error: the MCP tool failed; the details are in the server log"

T = TypeVar("T")

_open: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[LiveSessions]] = (
    weakref.WeakKeyDictionary()
)


class _Held:
    """A session being started or running, and the task that holds it open until ``stop``."""

    def __init__(
        self, ready: asyncio.Future[ClientSession], task: asyncio.Task[None], stop: asyncio.Event
    ) -> None:
        self.ready, self.task, self.stop = ready, task, stop

    @property
    def alive(self) -> bool:
        return not self.task.done() and not self.stop.is_set()

    async def session(self) -> ClientSession:
        """The session once started. A caller that gives up waiting leaves the start to
        the others; a start that overruns ``MCP_START_TIMEOUT_S`` is given up for all."""
        try:
            return await asyncio.wait_for(asyncio.shield(self.ready), MCP_START_TIMEOUT_S)
        except TimeoutError:
            self.task.cancel()
            raise


class LiveSessions:
    """The live sessions of one set of servers on one event loop."""

    def __init__(self, connections: Mapping[str, Connection]) -> None:
        self._connections = connections
        self._held: dict[str, _Held] = {}
        self.closed = False

    async def call(self, server: str, use: Callable[[ClientSession], Awaitable[T]]) -> T:
        """``use(session)`` on ``server``'s live session, started if there is none.

        The call also ends when the session's task does: a server that dies with a request
        in flight may never answer it, and its session does not always fail the request.
        """
        held = self._held_for(server)
        work = asyncio.ensure_future(use(await held.session()))
        work.add_done_callback(_retrieve)
        try:
            await asyncio.wait((work, held.task), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # this caller gave up: only its own request ends
            work.cancel()
            raise
        if not work.done():
            work.cancel()
            raise MCPServerLostError(server)
        try:
            return work.result()
        except Exception as exc:
            if _server_answered(exc):
                raise  # its session still works
            held.stop.set()  # the next call starts the server again
            raise MCPServerLostError(server) from exc

    def _held_for(self, server: str) -> _Held:
        """``server``'s session, running or starting; a start if there is neither."""
        held = self._held.get(server)
        if held is None or not held.alive:
            held = self._held[server] = self._start(server)
        return held

    def _start(self, server: str) -> _Held:
        ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(_retrieve)  # a start nobody waits for must not warn later
        stop = asyncio.Event()
        # A fresh context: the session outlives the run that started it, and must not
        # keep that run's config and callbacks alive.
        task = asyncio.create_task(
            self._hold(server, ready, stop),
            name=f"mcp-session:{server}",
            context=contextvars.Context(),
        )
        task.add_done_callback(_log_failure)
        return _Held(ready, task, stop)

    async def _hold(
        self, server: str, ready: asyncio.Future[ClientSession], stop: asyncio.Event
    ) -> None:
        try:
            async with create_session(self._connections[server]) as session:
                await session.initialize()
                ready.set_result(session)
                await stop.wait()
        except BaseException as exc:
            if ready.done():
                raise
            if not isinstance(exc, Exception):  # cancelled while starting
                ready.set_exception(ConnectionError(f"MCP server {server!r} did not start"))
                raise
            ready.set_exception(exc)  # the caller gets why the server did not start

    async def aclose(self) -> None:
        """Stop every server this object started and wait until they are gone."""
        self.closed = True
        held, self._held = list(self._held.values()), {}
        for h in held:
            h.stop.set()
        await asyncio.gather(*(h.task for h in held), return_exceptions=True)


def _server_answered(exc: BaseException) -> bool:
    """An error the server sent back (its session still works), also when wrapped."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, McpError):
            return cause.error.code != CONNECTION_CLOSED
        cause = cause.__cause__
    return False


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.info("an MCP server session ended: %s", exc)


def _error_text(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, TextContent))


class MCPServers:
    """Configured MCP servers, reached through one live session per server and loop."""

    def __init__(self, connections: Mapping[str, Connection]) -> None:
        self.connections = dict(connections)
        self._live: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LiveSessions] = (
            weakref.WeakKeyDictionary()
        )
        self.replaced = False

    def live(self) -> LiveSessions:
        if self.replaced:
            raise MCPConfigReplacedError()
        loop = asyncio.get_running_loop()
        live = self._live.get(loop)
        if live is None or live.closed:
            live = self._live[loop] = LiveSessions(self.connections)
            opened = _open.setdefault(loop, [])
            opened[:] = [*(other for other in opened if not other.closed), live]
        return live

    async def call(self, server: str, use: Callable[[ClientSession], Awaitable[T]]) -> T:
        return await self.live().call(server, use)

    async def intercept(self, request: MCPToolCallRequest, handler: Any) -> CallToolResult:
        """Tool-call interceptor: run the call on the live session, not a new one, and
        hand the model a fixed sentence for a tool's error answer (its text is logged)."""
        result = await self.call(
            request.server_name, lambda session: session.call_tool(request.name, request.args)
        )
        if not result.isError:
            return result
        log.warning(
            "MCP tool %r of server %r failed: %s",
            request.name,
            request.server_name,
            _error_text(result),
        )
        return CallToolResult(
            content=[TextContent(type="text", text=MCP_TOOL_FAILED)], isError=True
        )

    async def replace(self) -> None:
        """This configuration was replaced: stop its servers on every loop; its tools
        refuse further calls instead of starting them again."""
        self.replaced = True
        current = asyncio.get_running_loop()
        for loop, live in list(self._live.items()):
            if loop is current:
                await live.aclose()
            elif not loop.is_closed():
                asyncio.run_coroutine_threadsafe(live.aclose(), loop)


async def close_mcp_sessions() -> None:
    """Stop the MCP servers this loop started (server shutdown, CLI exit, tests)."""
    for live in _open.pop(asyncio.get_running_loop(), []):
        await live.aclose()
