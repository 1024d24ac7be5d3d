"""Custom HTTP routes: ``http.app`` of ``langgraph.json`` and of ``aegra.json`` (contract §9, §15).

* ``GET /api/chat/thread`` — the hydration DTO for the caller's session; a
  browser with no session cookie gets a fresh token (HttpOnly cookie) and an
  empty DTO.
* ``DELETE /api/chat/thread`` — clears the caller's chat memory.
* ``GET /api/chat/memory`` — what the page's memory panel shows: the whole
  summary, the pins, the window and the last compaction (``adapters.server.memory_panel``).
* The user's corrections and ``DELETE /api/chat/session`` (forget everywhere):
  ``adapters.server.memory_routes``, included here.
* ``GET /`` and ``/static/*`` — the browser chat page, when it is installed.

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

import asyncio
import logging
import sys
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles

from adapters.chat_memory.runtime import close_memory, get_memory
from adapters.server import storage_notice
from adapters.server.aegra import runs as aegra_runs
from adapters.server.aegra import start as aegra_start
from adapters.server.identity_guard import IdentityGuard
from adapters.server.langgraph_dev import delta_history as dev_delta_history
from adapters.server.langgraph_dev import run_queue as dev_run_queue
from adapters.server.memory_panel import memory_panel_dto, memory_panel_reply
from adapters.server.memory_routes import router as memory_router
from adapters.server.replies import MEMORY_UNAVAILABLE
from adapters.server.replies import error_reply as _error
from adapters.server.replies import json_reply as _json
from adapters.server.request_guard import RequestGuard
from adapters.server.server_errors import GENERIC_ERROR, UnhandledErrors, log_unhandled
from adapters.server.session_token import (
    COOKIE_SOURCE,
    SESSION_COOKIE,
    SessionTokenError,
    session_identity,
)
from adapters.server.thread_labels import ThreadLabels
from memory import MemoryLimits
from memory.hydration import hydration_dto
from memory.session import SessionHash, hash_token, load_secret, memory_thread_id, new_token

log = logging.getLogger("aimind.http")

STATIC_DIR = Path(__file__).resolve().parent / "static"
INDEX_FILE = "index.html"
SESSION_COOKIE_MAX_AGE_S = 365 * 24 * 3600
"""A year: the chat memory should outlive a browser restart."""
NO_PAGE = "The chat page is not installed on this server."

# Loaded at start-up, like the auth module: a missing production secret stops the server.
_SECRET = load_secret()
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


def identity_of(request: Request) -> SessionHash:
    """The caller's identity; raises SessionTokenError (missing or malformed token)."""
    return session_identity(request.headers, _SECRET)


def is_https(request: Request) -> bool:
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme == "https" or forwarded == "https"


def set_session_cookie(response: Response, token: str, *, secure: bool) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=SESSION_COOKIE_MAX_AGE_S,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure,
    )


def _fresh_session(request: Request, empty: Callable[[SessionHash], dict[str, Any]]) -> Response:
    """A new token in the cookie and ``empty(identity)``: the DTO of its (empty) memory."""
    token = new_token()
    response = _json(empty(hash_token(token, _SECRET)))
    set_session_cookie(response, token, secure=is_https(request))
    return response


def _reader(request: Request) -> SessionHash | None:
    """The identity of a reading route's caller; None when the browser needs a fresh
    session (no token, or a malformed cookie: page script cannot clear an HttpOnly
    cookie). A malformed header is the caller's bug: SessionTokenError (a 401)."""
    try:
        return identity_of(request)
    except SessionTokenError as exc:
        if exc.source in (None, COOKIE_SOURCE):
            return None
        raise


def _empty_thread(identity: SessionHash) -> dict[str, Any]:
    return hydration_dto(memory_thread_id(identity), None)


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
    """Open chat memory at start-up (a bad database URL shows in the log at once) and
    close it, and the MCP servers the chat started, at shutdown: after this replica's
    runs (Aegra: ``aegra_runs.drain``), so their pending compactions get their grace to
    land. A failure to open is logged and retried on first use. Under Aegra this runs
    after Aegra's own start-up: the next replica may start now (``aegra_start``)."""
    try:
        await get_memory()
    except Exception as exc:
        log.warning(
            "chat memory could not be opened at start-up; retrying on first use (%s)",
            type(exc).__name__,
        )
    finally:
        await aegra_start.release()
    yield
    await aegra_runs.drain()
    if "adapters.tools.mcp.sessions" in sys.modules:  # the chat graph started MCP servers
        await sys.modules["adapters.tools.mcp.sessions"].close_mcp_sessions()
    await close_memory()


def _documented(summary: str, *codes: tuple[int, str], description: str | None = None) -> Any:
    """The OpenAPI entry of one of our routes (both servers publish FastAPI's)."""
    return {
        "summary": summary,
        "description": description,
        "responses": {code: {"description": text} for code, text in codes},
    }


app = FastAPI(
    title="AI Mind memory runtime",
    exception_handlers={HTTPException: _http_error_handler, Exception: _server_error_handler},
    lifespan=lifespan,
)
app.add_middleware(ThreadLabels)
app.add_middleware(IdentityGuard)
app.add_middleware(RequestGuard)
app.add_middleware(UnhandledErrors)  # the outermost of ours: it sees what the others raise


@app.get(
    "/api/chat/thread",
    tags=["chat memory"],
    **_documented(
        "Read the session's chat memory",
        (200, "The hydration DTO; empty when memory cannot be read."),
        (401, "The X-AIMind-Session header is malformed."),
        description=(
            "The session's chat memory as the hydration DTO (threadId, messages, "
            "summaryPreview, pinnedDecisions, restored). A request without a session gets "
            "a new session cookie and an empty DTO."
        ),
    ),
)
async def get_thread(request: Request) -> Response:
    """The hydration DTO; mints the session cookie when the browser has no valid one."""
    try:
        identity = _reader(request)
    except SessionTokenError as exc:
        return _error(401, exc.message)
    if identity is None:
        return _fresh_session(request, _empty_thread)
    try:
        memory = await get_memory()
        dto = await memory.hydrate(identity)
    except Exception as exc:
        log.warning("hydration failed; returning an empty thread (%s)", type(exc).__name__)
        dto = _empty_thread(identity)
    return _json(dto)


@app.get(
    "/api/chat/memory",
    tags=["chat memory"],
    **_documented(
        "Read the session's memory status",
        (200, "The memory panel DTO."),
        (401, "The X-AIMind-Session header is malformed."),
        (503, "Chat memory is unavailable right now."),
        description=(
            "The whole summary, the pins with where each came from (pins: [{id, text, "
            "pinnedAt, origin, sources: [{messageId, role, excerpt, createdAt}]}]), the "
            "pinned decisions' texts, turnsInWindow, summaryLength, "
            'lastCompaction ({at, status, compactor}: status "failed" means the model '
            "compactor failed and the extractive fallback folded the turns), pending (a "
            "compaction is due or running; the summary changes when it lands), "
            "messageCharCap and truncationMarker (how memory cuts a long message), "
            "pinCharCap and summaryCharCap (how long a pin and the summary may be). A "
            "request without a session gets a new session cookie and an empty panel."
        ),
    ),
)
async def get_memory_panel(request: Request) -> Response:
    """What the page's memory panel shows; the session is handled as by GET /api/chat/thread."""
    try:
        identity = _reader(request)
    except SessionTokenError as exc:
        return _error(401, exc.message)
    if identity is None:
        return _fresh_session(request, lambda _: memory_panel_dto(None, MemoryLimits.from_env()))
    try:
        memory = await get_memory()
        snapshot = await memory.snapshot(identity)
    except Exception as exc:
        log.warning("reading the memory panel failed (%s)", type(exc).__name__)
        return _error(503, MEMORY_UNAVAILABLE)
    return memory_panel_reply(identity, snapshot, memory.limits)


@app.delete(
    "/api/chat/thread",
    tags=["chat memory"],
    **_documented(
        "Clear the session's chat memory",
        (200, "The empty hydration DTO."),
        (401, "No session, or a malformed one."),
        (503, "Chat memory is unavailable; nothing was cleared."),
        description="Deletes the session's chat memory and returns the now empty hydration DTO.",
    ),
)
async def delete_thread(request: Request) -> Response:
    """Clear the session's chat memory; answers with the (now empty) DTO."""
    try:
        identity = identity_of(request)
    except SessionTokenError as exc:
        return _error(401, exc.message)
    try:
        memory = await get_memory()
        await memory.clear(identity)
    except Exception as exc:
        log.warning("clearing chat memory failed (%s)", type(exc).__name__)
        return _error(503, MEMORY_UNAVAILABLE)
    return _json(_empty_thread(identity))


@app.get(
    "/",
    tags=["chat page"],
    **_documented(
        "The browser chat page",
        (200, "The page's HTML."),
        (404, "The chat page is not installed on this server."),
    ),
)
async def index() -> Response:
    """The browser chat page. No session is needed to load it."""
    page = STATIC_DIR / INDEX_FILE
    if not await asyncio.to_thread(page.is_file):
        return _error(404, NO_PAGE)
    return FileResponse(page, headers={"Cache-Control": "no-cache"})


app.include_router(memory_router)
app.mount("/static", PageFiles(directory=STATIC_DIR, check_dir=False), name="static")
