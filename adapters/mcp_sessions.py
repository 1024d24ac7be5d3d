"""Live MCP sessions: one per configured server and event loop, shared by every call.

Without them each MCP tool call starts its server again; for a stdio server that is a
new Python process, about half a second per call. The MCP SDK's stdio transport must be
entered and left in one task, so each session lives in a task of its own and calls from
any task on the loop use it. A call that fails for any reason other than an error the
server itself answered drops the session: that call fails (it is not retried, since it
may have run), and the next call starts the server again.
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
from mcp.types import CONNECTION_CLOSED, CallToolResult

__all__ = ["MCPServerLostError", "MCPServers", "close_mcp_sessions"]

log = logging.getLogger("aimind.mcp")

MCP_START_TIMEOUT_S = 30.0
"""How long starting a server and its MCP handshake may take."""

T = TypeVar("T")

_open: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[LiveSessions]] = (
    weakref.WeakKeyDictionary()
)


class MCPServerLostError(ConnectionError):
    """The server's session broke during a call; the next call starts the server again."""

    def __init__(self, server: str) -> None:
        super().__init__(
            f"the MCP server {server!r} stopped during the call; it starts again on the next call"
        )


class _Held:
    """A session and the task that holds it open until ``stop`` is set."""

    def __init__(
        self, session: ClientSession, task: asyncio.Task[None], stop: asyncio.Event
    ) -> None:
        self.session, self.task, self.stop = session, task, stop

    @property
    def alive(self) -> bool:
        return not self.task.done() and not self.stop.is_set()


class LiveSessions:
    """The live sessions of one set of servers on one event loop."""

    def __init__(self, connections: Mapping[str, Connection]) -> None:
        self._connections = connections
        self._held: dict[str, _Held] = {}
        self._starting: dict[str, asyncio.Lock] = {}
        self.closed = False

    async def call(self, server: str, use: Callable[[ClientSession], Awaitable[T]]) -> T:
        """``use(session)`` on ``server``'s live session, started if there is none.

        The call also ends when the session's task does: a server that dies with a request
        in flight may never answer it, and its session does not always fail the request.
        """
        held = await self._session(server)
        work = asyncio.ensure_future(use(held.session))
        try:
            await asyncio.wait((work, held.task), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the caller was cancelled (a timeout): drop a busy session
            work.cancel()
            held.stop.set()
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

    async def _session(self, server: str) -> _Held:
        held = self._held.get(server)
        if held is not None and held.alive:
            return held
        async with self._starting.setdefault(server, asyncio.Lock()):
            held = self._held.get(server)
            if held is None or not held.alive:
                held = self._held[server] = await self._start(server)
        return held

    async def _start(self, server: str) -> _Held:
        ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(_retrieve)  # a start given up on must not warn later
        stop = asyncio.Event()
        # A fresh context: the session outlives the run that started it, and must not
        # keep that run's config and callbacks alive.
        task = asyncio.create_task(
            self._hold(server, ready, stop),
            name=f"mcp-session:{server}",
            context=contextvars.Context(),
        )
        task.add_done_callback(_log_failure)
        try:
            session = await asyncio.wait_for(asyncio.shield(ready), MCP_START_TIMEOUT_S)
        except BaseException:
            stop.set()  # a start given up on (timeout, cancelled caller) still shuts down
            raise
        return _Held(session, task, stop)

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


class MCPServers:
    """Configured MCP servers, reached through one live session per server and loop."""

    def __init__(self, connections: Mapping[str, Connection]) -> None:
        self.connections = dict(connections)
        self._live: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LiveSessions] = (
            weakref.WeakKeyDictionary()
        )

    def live(self) -> LiveSessions:
        loop = asyncio.get_running_loop()
        live = self._live.get(loop)
        if live is None or live.closed:
            live = self._live[loop] = LiveSessions(self.connections)
            _open.setdefault(loop, []).append(live)
        return live

    async def call(self, server: str, use: Callable[[ClientSession], Awaitable[T]]) -> T:
        return await self.live().call(server, use)

    async def intercept(self, request: MCPToolCallRequest, handler: Any) -> CallToolResult:
        """Tool-call interceptor: run the call on the live session, not a new one."""
        return await self.call(
            request.server_name, lambda session: session.call_tool(request.name, request.args)
        )


async def close_mcp_sessions() -> None:
    """Stop the MCP servers this loop started (server shutdown, CLI exit, tests)."""
    for live in _open.pop(asyncio.get_running_loop(), []):
        await live.aclose()
