"""Memory the user can see and correct, over HTTP (contract §9a): the routes of both servers.

| route | answers |
|---|---|
| ``POST /api/chat/memory/pins`` ``{"text", "messageId"?, …}`` (``PinBody``) | 201, the pin |
| ``PATCH /api/chat/memory/pins/{id}`` ``{"text"}`` | the pin, now the user's |
| ``DELETE /api/chat/memory/pins/{id}`` | the pin that was removed |
| ``PUT /api/chat/memory/summary`` ``{"text"}`` | the memory panel (as ``GET /api/chat/memory``) |
| ``GET /api/chat/memory/export`` | the whole memory as one JSON document |
| ``DELETE /api/chat/session`` | ``{"forgotten", "threads", "crons", "assistants", "storeItems"}`` |

``GET /api/chat/memory`` (the panel, pins with provenance) is in ``adapters.server.app``
beside ``GET /api/chat/thread``, whose fresh-session handling it shares.

One ``APIRouter`` with two dependencies: ``caller`` (the session, read as every route
reads it: ``adapters.server.session_token``; neither server runs custom auth on custom
routes) and ``memory`` (the process's ``MemoryService``). The route class answers every
refusal with ``{"detail": "<one sentence>"}``: a bad body (not JSON, not an object,
a wrong type, a key the route does not take) is a 422 that says what to send; memory's
own errors map by class (``STATUS``). Request bodies are pydantic models, so both
servers' ``/openapi.json`` document them. Every answer passes the §9 field guard
(``adapters.server.replies``).

Writes need a session (401 without one): a browser has its cookie from the page's first
``GET /api/chat/thread``. A write the cookie alone authenticates must be
``application/json`` from the page's own origin (``adapters.server.cross_site``, before
any route runs), so another page — even on another port of the same host, which
``SameSite`` lets the cookie reach — cannot send these writes with it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Mapping
from typing import Annotated, Any, ClassVar, get_type_hints

from fastapi import APIRouter, Depends
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import Response

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.errors import ForgetIncompleteError, SessionTokenError
from aimind_memory.adapters.server.forget import forget_session
from aimind_memory.adapters.server.memory_panel import MemoryPanel, memory_panel_reply
from aimind_memory.adapters.server.replies import MEMORY_UNAVAILABLE, error_reply, json_reply
from aimind_memory.adapters.server.server_errors import GENERIC_ERROR
from aimind_memory.adapters.server.session_token import request_identity
from aimind_memory.memory import MemoryService
from aimind_memory.memory.config.limits import MESSAGE_ID_MAX_CHARS
from aimind_memory.memory.errors import (
    AIMindError,
    MemoryEditError,
    MemoryUnavailableError,
    PinLimitError,
    PinNotFoundError,
)
from aimind_memory.memory.models import Role
from aimind_memory.memory.session import SessionHash
from aimind_memory.memory.views.hydration import PinDTO, pin_dto

__all__ = ["Caller", "Memory", "MemoryRoute", "documented_errors", "router"]

log = logging.getLogger("aimind.http")

EXPORT_FILENAME = "aimind-memory.json"
STATUS: tuple[tuple[type[AIMindError], int], ...] = (
    (PinNotFoundError, 404),
    (PinLimitError, 409),
    (MemoryEditError, 422),
    (ForgetIncompleteError, 503),
    (MemoryUnavailableError, 503),
)
"""Memory's errors by class, most specific first; their messages are safe sentences."""


# --- bodies ------------------------------------------------------------------------------------


class Body(BaseModel):
    """A JSON object with exactly the keys the route documents, each of its type."""

    model_config = ConfigDict(extra="forbid", strict=True)
    USAGE: ClassVar[str] = '{"text": "..."}'
    MUST_BE: ClassVar[Mapping[str, str]] = {}
    """What a field must be, where "a string" does not say it."""


def _text_only(value: object) -> object:
    """An ISO 8601 time is sent as text: not a number read as seconds since 1970."""
    if not isinstance(value, str):
        raise ValueError("not text")  # answered by Body.MUST_BE, never shown as is
    return value


IsoTime = Annotated[AwareDatetime, BeforeValidator(_text_only), Field(strict=False)]


class PinBody(Body):
    text: str = Field(description="The pin's text: not blank, at most 300 characters.")
    messageId: str | None = Field(
        default=None,
        max_length=MESSAGE_ID_MAX_CHARS,
        description="The message it was taken from ('Remember' on a message): its source.",
    )
    role: Role | None = Field(
        default=None,
        description=(
            "Who said that message. With createdAt and excerpt it describes a message older "
            "than memory's window, which memory no longer holds; a message still in the "
            "window is its own source whatever is sent."
        ),
    )
    createdAt: IsoTime | None = Field(
        default=None, description="When that message was said, if known (ISO 8601, with zone)."
    )
    excerpt: str | None = Field(
        default=None,
        description=(
            "That message's words the pin was taken from, when the pin's text is not them "
            "(shortened); default the pin's text. Memory keeps 160 characters of it."
        ),
    )
    USAGE: ClassVar[str] = (
        '{"text": "..."} and, optionally, the message it came from: "messageId" and, for '
        'a message older than memory\'s window, "role", "createdAt" and "excerpt"'
    )
    MUST_BE: ClassVar[Mapping[str, str]] = {
        "role": '"user" or "assistant"',
        "createdAt": "an ISO 8601 date and time with its time zone",
    }


class PinTextBody(Body):
    text: str = Field(description="The pin's new text: not blank, at most 300 characters.")


class SummaryBody(Body):
    text: str = Field(description="The new summary, at most 2,500 characters; blank clears it.")


class Detail(BaseModel):
    detail: str


class Forgot(BaseModel):
    forgotten: bool
    threads: int
    """The session's threads deleted, with their runs and checkpoints."""
    crons: int
    assistants: int
    """The assistants the session made, with their versions."""
    storeItems: int
    """The items under the session's namespace of the store."""


def body_error(exc: RequestValidationError, body: type[Body]) -> str:
    """One sentence for a body the route cannot take; it never repeats what was sent."""
    first = exc.errors()[0] if exc.errors() else {}
    kind, loc = first.get("type", ""), tuple(first.get("loc", ()))
    field = loc[1] if len(loc) >= 2 and isinstance(loc[1], str) else None
    if kind == "json_invalid":
        problem = "The request body is not valid JSON"
    elif kind == "missing" and field is None:
        problem = "The request needs a JSON body"
    elif field is None:
        problem = "The request body must be a JSON object sent as application/json"
    elif kind == "extra_forbidden":
        problem = "The request body has a key this route does not take"
    elif kind == "missing":
        problem = f'The request body lacks "{field}"'
    elif kind == "string_too_long":
        problem = f'The "{field}" field is too long'
    else:
        problem = f'The "{field}" field must be {body.MUST_BE.get(field, "a string")}'
    return f"{problem}: send {body.USAGE}."


def refusal(exc: AIMindError) -> tuple[int, str]:
    for kind, status in STATUS:
        if isinstance(exc, kind):
            message = MEMORY_UNAVAILABLE if kind is MemoryUnavailableError else str(exc)
            return status, message
    return 500, GENERIC_ERROR


class MemoryRoute(APIRoute):
    """Refusals as ``{"detail": sentence}``, whichever server runs the route."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        hints = get_type_hints(self.endpoint).values()
        body = next((h for h in hints if isinstance(h, type) and issubclass(h, Body)), Body)

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                return error_reply(422, body_error(exc, body))
            except SessionTokenError as exc:
                return error_reply(401, exc.message)
            except AIMindError as exc:
                return error_reply(*refusal(exc))

        return answer


# --- dependencies -------------------------------------------------------------------------------


async def caller(request: Request) -> SessionHash:
    """The session that sent the request; SessionTokenError (a 401) when there is none."""
    return await request_identity(request.headers)


async def memory_service() -> MemoryService:
    """The process's memory service; MemoryUnavailableError (a 503) when it cannot open."""
    try:
        return await get_memory()
    except Exception as exc:
        log.warning("chat memory could not be opened (%s)", type(exc).__name__)
        raise MemoryUnavailableError() from exc


Caller = Annotated[SessionHash, Depends(caller)]
Memory = Annotated[MemoryService, Depends(memory_service)]


def documented_errors(*codes: tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI entries of a route's refusals, each a ``{"detail": sentence}``."""
    return {code: {"description": text, "model": Detail} for code, text in codes}


def _responses(*codes: tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    return documented_errors(
        (401, "No session, or a malformed one."), (503, MEMORY_UNAVAILABLE), *codes
    )


router = APIRouter(prefix="/api/chat", tags=["chat memory"], route_class=MemoryRoute)


# --- routes -----------------------------------------------------------------------------------


@router.post(
    "/memory/pins",
    status_code=201,
    summary="Pin a text (remember this)",
    response_model=PinDTO,
    responses=_responses(
        (409, "Every pin is the user's own and the pins are full: unpin or edit one first."),
        (422, "Blank or too long, or not a body this route takes."),
    ),
)
async def pin(body: PinBody, identity: Caller, memory: Memory) -> Response:
    """Pin ``text`` as the user's own: it stays through every compaction. With
    ``messageId``, that message is the pin's source: memory's copy of it while it is in
    memory's window; an older one (the page shows the whole conversation) as ``role``,
    ``createdAt`` and ``excerpt`` describe it — the user is the authority on where their
    own pin came from. Text already pinned becomes the user's pin."""
    made = await memory.pin(
        identity,
        body.text,
        message_id=body.messageId,
        role=body.role,
        created_at=body.createdAt,
        excerpt=body.excerpt,
    )
    return json_reply(pin_dto(made), 201)


@router.patch(
    "/memory/pins/{pin_id}",
    summary="Edit a pin",
    response_model=PinDTO,
    responses=_responses(
        (404, "This session's memory has no pin with that id."),
        (422, "Blank or too long, or not a body this route takes."),
    ),
)
async def edit_pin(pin_id: str, body: PinTextBody, identity: Caller, memory: Memory) -> Response:
    """Change a pin's text; it keeps its id and sources and becomes the user's."""
    return json_reply(pin_dto(await memory.edit_pin(identity, pin_id, body.text)))


@router.delete(
    "/memory/pins/{pin_id}",
    summary="Unpin",
    response_model=PinDTO,
    responses=_responses((404, "This session's memory has no pin with that id.")),
)
async def unpin(pin_id: str, identity: Caller, memory: Memory) -> Response:
    """Remove a pin: no later compaction pins its text again. Answers with the pin removed."""
    return json_reply(pin_dto(await memory.unpin(identity, pin_id)))


@router.put(
    "/memory/summary",
    summary="Replace the summary",
    response_model=MemoryPanel,
    responses=_responses((422, "Over 2,500 characters, or not a body this route takes.")),
)
async def set_summary(body: SummaryBody, identity: Caller, memory: Memory) -> Response:
    """Replace the summary with the user's text (blank clears it): new turns fold onto it.
    Answers with the memory panel, as ``GET /api/chat/memory``."""
    await memory.set_summary(identity, body.text)
    return memory_panel_reply(identity, await memory.snapshot(identity), memory.limits)


@router.get(
    "/memory/export",
    summary="Export the session's memory",
    responses=_responses(),
)
async def export(identity: Caller, memory: Memory) -> Response:
    """The session's whole memory as one JSON document: summary, pins with provenance,
    pinned decisions, the recent messages, the last compaction and the unpinned texts.
    Sent as a download (``aimind-memory.json``)."""
    document = await memory.export(identity)
    disposition = f'attachment; filename="{EXPORT_FILENAME}"'
    return json_reply(document, headers={"Content-Disposition": disposition})


@router.delete(
    "/session",
    summary="Forget the session everywhere",
    response_model=Forgot,
    responses=_responses(),
)
async def forget(request: Request, identity: Caller, memory: Memory) -> Response:
    """Delete the session's memory and every thread (with its runs and checkpoints), cron,
    assistant and store item it owns, on this server's database; a run in flight is
    cancelled first. On SQLite not even free pages or the WAL keep its text. A 503 means
    it did not finish: sending it again completes it. The session token stays valid, for
    a session that now has nothing."""
    forgotten = await forget_session(request.app, request.headers, identity, memory)
    return json_reply(
        {
            "forgotten": True,
            "threads": forgotten.threads,
            "crons": forgotten.crons,
            "assistants": forgotten.assistants,
            "storeItems": forgotten.store_items,
        }
    )
