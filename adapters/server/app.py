"""The HTTP app: ``http.app`` of ``langgraph.json`` and of ``aegra.json`` (contract §9, §15).

It assembles; the routes live with their concern, each on an ``APIRouter`` with
dependencies for the caller and the memory service:

* ``adapters.server.chat_routes`` — ``GET``/``DELETE /api/chat/thread``, ``GET
  /api/chat/memory`` (the memory panel) and the chat page ``GET /``; ``/static/*`` is
  mounted here;
* ``adapters.server.memory_routes`` — the user's corrections and ``DELETE
  /api/chat/session`` (forget everywhere).

One FastAPI app for both servers: Aegra takes only a FastAPI app, and FastAPI is
Starlette, which is what ``langgraph dev`` takes. Each server adds its own routes
to it and runs its lifespan (memory opened at start, pending compactions given
their grace at shutdown). Its middleware wraps every route of either server:
``adapters.server.identity_guard`` refuses a request with two session tokens before any
handler runs. What that middleware answers by itself carries the server's CORS headers
(``adapters.server.refusals``): ``langgraph dev`` runs it outside its own CORS layer.

Neither server runs custom auth on custom routes, so these routes read the
session themselves, with the function ``adapters.server.auth`` uses
(``adapters.server.session_token``). Errors are ``{"detail": "<one plain sentence>"}``,
as on LangGraph's routes: no stack, no database error, nothing from the runtime.
"""

from __future__ import annotations

import aimind_memory.adapters.server.settings_check  # noqa: F401  (first: a bad setting stops the server in one sentence)

# isort: split

import asyncio
import logging
import sys
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.staticfiles import StaticFiles

from aimind_memory.adapters.chat_memory.runtime import close_memory, get_memory
from aimind_memory.adapters.server import storage_notice
from aimind_memory.adapters.server.aegra import runs as aegra_runs
from aimind_memory.adapters.server.aegra import start as aegra_start
from aimind_memory.adapters.server.chat_routes import STATIC_DIR, page_router
from aimind_memory.adapters.server.chat_routes import router as chat_router
from aimind_memory.adapters.server.identity_guard import IdentityGuard
from aimind_memory.adapters.server.langgraph_dev import delta_history as dev_delta_history
from aimind_memory.adapters.server.langgraph_dev import run_queue as dev_run_queue
from aimind_memory.adapters.server.memory_routes import router as memory_router
from aimind_memory.adapters.server.replies import error_reply as _error
from aimind_memory.adapters.server.request_guard import RequestGuard
from aimind_memory.adapters.server.server_errors import (
    GENERIC_ERROR,
    UnhandledErrors,
    log_unhandled,
)
from aimind_memory.adapters.server.session_token import server_secret
from aimind_memory.adapters.server.thread_labels import ThreadLabels
from aimind_memory.memory.errors import said

log = logging.getLogger("aimind.http")

storage_notice.announce()  # once per process, whichever of the auth and the app loads first
dev_run_queue.activate()  # langgraph dev only: a new run starts without the queue's poll delay
dev_delta_history.activate()  # langgraph dev only: a chat transcript is read in one query
aegra_runs.activate()  # Aegra only: runs.wait and runs.join answer when the run ends
aegra_start.hold()  # Aegra only: one replica's start-up at a time (released by the lifespan)
# A stateless run (``/runs/stream`` with no thread, as SDK clients send) is run by
# langgraph_api without a checkpointer but with its default ``durability``, so LangGraph
# warns on every such run. Nothing is lost: chat memory keeps its own saver
# (``adapters.chat_memory.runtime``). Only that one message, from that one place, is silenced.
warnings.filterwarnings(
    "ignore",
    message=r"`durability` has no effect when no checkpointer is present\.",
    category=UserWarning,
    module=r"langgraph\.pregel\.main",
)


class PageFiles(StaticFiles):
    """The page's assets; a plain 404 (not a 500) while the page is not installed."""

    async def check_config(self) -> None:
        if await asyncio.to_thread(STATIC_DIR.is_dir):
            await super().check_config()


async def _http_error_handler(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) and status < 500 else GENERIC_ERROR
    return _error(status, str(detail))


async def _server_error_handler(request: Request, exc: Exception) -> Response:
    log_unhandled(exc)
    return _error(500, GENERIC_ERROR)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Read the session secret (in development it is made now, on the first start) and open
    chat memory at start-up (a bad database URL shows in the log at once); close memory,
    and the MCP servers the chat started, at shutdown: after this replica's runs (Aegra:
    ``aegra_runs.drain``), so their pending compactions get their grace to land. A failure
    to start either is logged and retried on first use. Under Aegra this runs after
    Aegra's own start-up: the next replica may start now (``aegra_start``)."""
    try:
        await server_secret()
        await get_memory()
    except Exception as exc:
        log.warning(
            "chat memory could not be opened at start-up; retrying on first use (%s)",
            said(exc),
        )
    finally:
        await aegra_start.release()
    yield
    await aegra_runs.drain()
    mcp_sessions = sys.modules.get("aimind_memory.adapters.tools.mcp.sessions")
    if mcp_sessions is not None:  # the chat graph started MCP servers
        await mcp_sessions.close_mcp_sessions()
    await close_memory()


app = FastAPI(
    title="AI Mind memory runtime",
    exception_handlers={HTTPException: _http_error_handler, Exception: _server_error_handler},
    lifespan=lifespan,
)
app.add_middleware(ThreadLabels)
app.add_middleware(IdentityGuard)
app.add_middleware(RequestGuard)
app.add_middleware(UnhandledErrors)  # the outermost of ours: it sees what the others raise


app.include_router(chat_router)
app.include_router(memory_router)
app.include_router(page_router)
app.mount("/static", PageFiles(directory=STATIC_DIR, check_dir=False), name="static")
