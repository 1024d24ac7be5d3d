"""An error no route handled: one safe log line and a JSON 500, on every route of both servers.

Why a middleware and not only an exception handler: Starlette hands an unhandled
exception to the app's ``Exception`` handler *and then re-raises it*, so the server
(uvicorn) logs "Exception in ASGI application" with the whole traceback — and a
database driver's exception text quotes the failing row (Aegra logged the SQL and the
user's text of a path holding a NUL; psycopg quotes the JSON around a bad character).
The re-raise also drops the connection, so a client's next request on it fails.

``UnhandledErrors`` wraps every route (``langgraph dev``'s, Aegra's and ours) inside
the servers' own error middleware: an exception that escapes them all is logged here
by its type and the place it was raised — never its message — and answered with
``{"detail": "Something went wrong on the server."}``; nothing is re-raised. An
exception after the response started (a stream) is logged the same way and the
response ends there.
"""

from __future__ import annotations

import logging
import traceback
from pathlib import Path

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from aimind_memory.adapters.server.refusals import refuse

__all__ = ["GENERIC_ERROR", "UnhandledErrors", "log_unhandled"]

log = logging.getLogger("aimind.http")

GENERIC_ERROR = "Something went wrong on the server."


def log_unhandled(exc: BaseException) -> None:
    """Where an unhandled error was raised, never what it said (it may quote user text)."""
    frame = traceback.extract_tb(exc.__traceback__)[-1:]
    where = f" at {Path(frame[0].filename).name}:{frame[0].lineno}" if frame else ""
    log.error("unhandled error in a request (%s%s)", type(exc).__name__, where)


class UnhandledErrors:
    """Answer an unhandled exception with a JSON 500 and a one-line log; never re-raise it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            log_unhandled(exc)
            if not started:
                await refuse(scope, receive, send, 500, GENERIC_ERROR)
