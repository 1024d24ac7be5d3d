"""The HTTP edge of both servers: what a request may carry before any route, auth or graph sees it.

An ASGI middleware of the HTTP app (``langgraph.json``'s and ``aegra.json``'s
``http.app``), so it wraps every route of ``langgraph dev`` and of Aegra, theirs and
ours (contract §8). In order, it refuses with ``{"detail": "<one sentence>"}``:

1. **413** a body larger than ``AIMIND_MAX_BODY_MB`` (``adapters.server.request_limits``),
   from its ``Content-Length`` before reading it, or as soon as a chunked body passes it.
2. **422** a path, query or JSON body holding a NUL or an unpaired surrogate, in any
   string or key. PostgreSQL's ``text`` and ``jsonb`` take neither and UTF-8 cannot
   encode a lone surrogate: Aegra answered such a path or content with a 500 and logged
   the SQL with the user's text; on ``langgraph dev`` over PostgreSQL a NUL in a
   tasklist goal failed the run with ``UntranslatableCharacter`` and logged the text
   around it. Refused here, they reach no handler, graph or database.
3. **403** a request naming a chat-memory thread (``adapters.server.memory_threads``): a
   path segment, or a body's ``thread_id`` / ``ids`` / ``thread_ids`` / ``contextId``,
   starting with ``chat:``. Aegra's ``/state`` and ``/history`` routes call no auth
   handler, so this is where they are closed.
4. **422** what ``adapters.server.body_rules`` refuses (a thread ``ttl`` that would
   empty a transcript, a store search ``langgraph dev`` crashes on), and, in place of the
   500, a route's failure on a request those rules know it may fail on.

Each refusal goes out as ``adapters.server.refusals`` answers: with the CORS headers the
server's own errors carry, so a browser on another origin reads it. A body is read (up
to the limit) and handed on unchanged. It is parsed only when it may
hold something to refuse — a ``\\u`` escape, a raw NUL, ``chat:``, or a route with a
rule — so a plain turn costs one scan of its bytes. A body that is not JSON is left to
the route, which answers it as it always has.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any
from urllib.parse import unquote_to_bytes

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketClose

from aimind_memory.adapters.server import body_rules
from aimind_memory.adapters.server.memory_threads import (
    MEMORY_THREAD_REFUSED,
    MEMORY_THREAD_STATUS,
    THREAD_ID_KEYS,
    names_memory_thread,
)
from aimind_memory.adapters.server.refusals import refuse
from aimind_memory.adapters.server.request_limits import BODY_LIMIT_ENV, RequestLimits
from aimind_memory.memory.session import MEMORY_THREAD_PREFIX

__all__ = ["RequestGuard", "body_problem"]

TOO_LARGE = (
    f"The request body is larger than this server accepts ({{limit}}; {BODY_LIMIT_ENV} sets it)."
)
BAD_TEXT = (
    "The request holds a NUL character or an unpaired surrogate, which cannot be stored: "
    "remove it and send again."
)
BAD_PATH = (
    "The request's path or query holds a NUL character or bytes that are not UTF-8: "
    "remove them and send again."
)
UNPROCESSABLE = 422
POLICY_VIOLATION = 1008
PARSE_IN_THREAD_BYTES = 256 * 1024
"""Bodies larger than this are parsed off the event loop."""
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
"""A NUL, or a surrogate: after ``json.loads`` only an unpaired one is left as such."""
MEMORY_SEGMENT = f"/{MEMORY_THREAD_PREFIX}"
_MAY_NEED_A_LOOK = (b"\\u", b"\x00", MEMORY_THREAD_PREFIX.encode())

Refusal = tuple[int, str]


def _unstorable(text: str) -> bool:
    return _UNSTORABLE.search(text) is not None


def body_problem(value: Any) -> Refusal | None:
    """The first thing in a parsed JSON body that is refused: unstorable text (422) or a
    chat-memory thread id (403). Iterative: a deeply nested body cannot exhaust the stack."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _unstorable(item):
                return UNPROCESSABLE, BAD_TEXT
        elif isinstance(item, dict):
            for key, child in item.items():
                if _unstorable(key):
                    return UNPROCESSABLE, BAD_TEXT
                if key in THREAD_ID_KEYS and names_memory_thread(child):
                    return MEMORY_THREAD_STATUS, MEMORY_THREAD_REFUSED
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _text_of(raw: bytes) -> str | None:
    """A percent-encoded path or query as text; None if it holds a NUL or is not UTF-8."""
    try:
        text = (unquote_to_bytes(raw) if b"%" in raw else raw).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if "\x00" in text else text


def _url_problem(scope: Scope) -> Refusal | None:
    """NUL or non-UTF-8 bytes in the path or query, or a path segment naming a memory
    thread (after decoding, so ``chat%3A…`` and a ``%2F`` before ``chat:`` count too)."""
    raw_path = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
    path = _text_of(raw_path)
    if path is None or _text_of(scope.get("query_string") or b"") is None:
        return UNPROCESSABLE, BAD_PATH
    if MEMORY_SEGMENT in path:
        return MEMORY_THREAD_STATUS, MEMORY_THREAD_REFUSED
    return None


def _megabytes(limit: int) -> str:
    return f"{limit / (1024 * 1024):g} MB"


class _TooLarge(Exception):
    pass


class RequestGuard:
    """Refuse what no route should see (see the module docstring); pass the rest on unchanged."""

    def __init__(self, app: ASGIApp, limits: RequestLimits | None = None) -> None:
        self.app = app
        self.limits = limits or RequestLimits.from_env()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        problem = _url_problem(scope)
        if problem is not None:
            await self._refuse(scope, receive, send, problem, inner=self.app)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        try:
            body = await self._read_body(scope, receive)
        except _TooLarge:
            await self._refuse(scope, receive, send, (413, self._too_large()))
            return
        if body is None:  # no body announced: nothing to look at
            await self.app(scope, receive, send)
            return
        parsed = await self._parsed(scope, body)
        problem = self._body_problem(scope, parsed)
        if problem is not None:
            await self._refuse(scope, receive, send, problem)
            return
        fallback = body_rules.if_it_fails(scope["method"], scope["path"], parsed)
        if fallback is None:
            await self.app(scope, _replay(body, receive), send)
        else:
            await self._call_or_answer(scope, _replay(body, receive), send, fallback)

    def _too_large(self) -> str:
        return TOO_LARGE.format(limit=_megabytes(self.limits.max_body_bytes))

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or None for a request that announces none; _TooLarge past the limit."""
        headers = Headers(scope=scope)
        length = headers.get("content-length")
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        if length is None and not chunked:
            return None
        limit = self.limits.max_body_bytes
        if length is not None and length.strip().isdigit() and int(length) > limit:
            raise _TooLarge
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return b"".join(chunks)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _parsed(self, scope: Scope, body: bytes) -> Any:
        """The JSON body when a rule may refuse it, else None (not JSON either: the route
        answers it as it always has)."""
        ruled = body_rules.wants_body(scope["method"], scope["path"])
        if not body or not (ruled or any(mark in body for mark in _MAY_NEED_A_LOOK)):
            return None
        try:
            if len(body) > PARSE_IN_THREAD_BYTES:
                return await asyncio.to_thread(json.loads, body)
            return json.loads(body)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past parsing
            return None

    def _body_problem(self, scope: Scope, parsed: Any) -> Refusal | None:
        problem = body_problem(parsed)
        if problem is None and (
            sentence := body_rules.refusal(scope["method"], scope["path"], parsed)
        ):
            return UNPROCESSABLE, sentence
        return problem

    async def _call_or_answer(
        self, scope: Scope, receive: Receive, send: Send, sentence: str
    ) -> None:
        """Run the route; if it raises before answering, answer ``sentence`` (a 422)
        instead of the 500: the failure is the known one of ``body_rules.if_it_fails``."""
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception:
            if started:
                raise
            await self._refuse(scope, receive, send, (UNPROCESSABLE, sentence))

    async def _refuse(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        problem: Refusal,
        *,
        inner: ASGIApp | None = None,
    ) -> None:
        """``inner``: given before any body was read (a preflight may be handed on to it)."""
        status, sentence = problem
        if scope["type"] == "websocket":
            await WebSocketClose(POLICY_VIOLATION, reason=sentence[:120])(scope, receive, send)
            return
        await refuse(scope, receive, send, status, sentence, inner=inner)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the route the body already read, then the client's own
    messages (a disconnect, for a streaming response)."""
    pending = True

    async def replay() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
