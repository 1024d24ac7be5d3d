"""The page's reads and its clear, over HTTP (contract §9), and the page itself.

* ``GET /api/chat/thread`` — the hydration DTO for the caller's session;
* ``GET /api/chat/memory`` — what the page's memory panel shows: the whole summary, the
  pins, the window and the last compaction (``adapters.server.memory_panel``);
* ``DELETE /api/chat/thread`` — clears the caller's chat memory;
* ``GET /`` — the browser chat page, when it is installed.

The two reads are one handler (``session_read``) with two fillings: a browser with no
session (or a cookie page script cannot clear) gets a fresh token in an HttpOnly cookie
and the empty DTO; a malformed header is the caller's bug, a 401. They share
``adapters.server.memory_routes``' route class (refusals as ``{"detail": sentence}``) and
its dependencies for the caller and the memory service.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from starlette.requests import Request
from starlette.responses import FileResponse, Response

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.errors import SessionTokenError
from aimind_memory.adapters.server.memory_panel import memory_panel_dto, memory_panel_reply
from aimind_memory.adapters.server.memory_routes import (
    Caller,
    Memory,
    MemoryRoute,
    documented_errors,
)
from aimind_memory.adapters.server.replies import error_reply, json_reply
from aimind_memory.adapters.server.session_token import (
    COOKIE_SOURCE,
    SESSION_COOKIE,
    request_identity,
    server_secret,
)
from aimind_memory.memory.config.settings import memory_settings
from aimind_memory.memory.errors import MemoryUnavailableError
from aimind_memory.memory.session import SessionHash, hash_token, memory_thread_id, new_token
from aimind_memory.memory.views.hydration import hydration_dto

__all__ = ["STATIC_DIR", "page_router", "router"]

log = logging.getLogger("aimind.http")

STATIC_DIR = Path(__file__).resolve().parent / "static"
INDEX_FILE = "index.html"
SESSION_COOKIE_MAX_AGE_S = 365 * 24 * 3600
"""A year: the chat memory should outlive a browser restart."""
NO_PAGE = "The chat page is not installed on this server."

Empty = Callable[[SessionHash], dict[str, Any]]
Read = Callable[[SessionHash], Awaitable[Response]]


async def reader(request: Request) -> SessionHash | None:
    """The identity of a reading route's caller; None when the browser needs a fresh
    session (no token, or a malformed cookie: page script cannot clear an HttpOnly
    cookie). A malformed header is the caller's bug: SessionTokenError (a 401)."""
    try:
        return await request_identity(request.headers)
    except SessionTokenError as exc:
        if exc.source in (None, COOKIE_SOURCE):
            return None
        raise


Reader = Annotated[SessionHash | None, Depends(reader)]


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


def session_read(empty: Empty, read: Read) -> Callable[[Request, SessionHash | None], Any]:
    """A reading route: ``read(identity)``, or for a browser without a session a new token
    in the cookie and ``empty(identity)`` (the DTO of its empty memory)."""

    async def endpoint(request: Request, identity: Reader) -> Response:
        if identity is not None:
            return await read(identity)
        token = new_token()
        response = json_reply(empty(hash_token(token, await server_secret())))
        set_session_cookie(response, token, secure=is_https(request))
        return response

    return endpoint


def _empty_thread(identity: SessionHash) -> dict[str, Any]:
    return hydration_dto(memory_thread_id(identity), None)


def _empty_panel(identity: SessionHash) -> dict[str, Any]:
    return memory_panel_dto(None, memory_settings().limits)


async def _hydrated(identity: SessionHash) -> Response:
    """The hydration DTO; an empty one when memory cannot be read (the page still loads)."""
    try:
        memory = await get_memory()
        dto = await memory.hydrate(identity)
    except Exception as exc:
        log.warning("hydration failed; returning an empty thread (%s)", type(exc).__name__)
        dto = _empty_thread(identity)
    return json_reply(dto)


async def _panel(identity: SessionHash) -> Response:
    try:
        memory = await get_memory()
        snapshot = await memory.snapshot(identity)
    except Exception as exc:
        log.warning("reading the memory panel failed (%s)", type(exc).__name__)
        raise MemoryUnavailableError() from exc
    return memory_panel_reply(identity, snapshot, memory.limits)


router = APIRouter(prefix="/api/chat", tags=["chat memory"], route_class=MemoryRoute)
router.add_api_route(
    "/thread",
    session_read(_empty_thread, _hydrated),
    methods=["GET"],
    name="get_thread",
    summary="Read the session's chat memory",
    description=(
        "The session's chat memory as the hydration DTO (threadId, messages, "
        "summaryPreview, pinnedDecisions, restored). A request without a session gets "
        "a new session cookie and an empty DTO."
    ),
    responses={
        200: {"description": "The hydration DTO; empty when memory cannot be read."},
        **documented_errors((401, "The X-AIMind-Session header is malformed.")),
    },
)
router.add_api_route(
    "/memory",
    session_read(_empty_panel, _panel),
    methods=["GET"],
    name="get_memory_panel",
    summary="Read the session's memory status",
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
    responses={
        200: {"description": "The memory panel DTO."},
        **documented_errors(
            (401, "The X-AIMind-Session header is malformed."),
            (503, "Chat memory is unavailable right now."),
        ),
    },
)


@router.delete(
    "/thread",
    summary="Clear the session's chat memory",
    description="Deletes the session's chat memory and returns the now empty hydration DTO.",
    responses={
        200: {"description": "The empty hydration DTO."},
        **documented_errors(
            (401, "No session, or a malformed one."),
            (503, "Chat memory is unavailable; nothing was cleared."),
        ),
    },
)
async def delete_thread(identity: Caller, memory: Memory) -> Response:
    """Clear the session's chat memory; answers with the (now empty) DTO."""
    try:
        await memory.clear(identity)
    except Exception as exc:
        log.warning("clearing chat memory failed (%s)", type(exc).__name__)
        raise MemoryUnavailableError() from exc
    return json_reply(_empty_thread(identity))


page_router = APIRouter(tags=["chat page"])


@page_router.get(
    "/",
    summary="The browser chat page",
    responses={
        200: {"description": "The page's HTML."},
        404: {"description": NO_PAGE},
    },
)
async def index() -> Response:
    """The browser chat page. No session is needed to load it."""
    page = STATIC_DIR / INDEX_FILE
    if not await asyncio.to_thread(page.is_file):
        return error_reply(404, NO_PAGE)
    return FileResponse(page, headers={"Cache-Control": "no-cache"})
