"""What our middleware answers by itself, on both servers: ``{"detail": "<one sentence>"}``,
readable by a browser on another origin exactly as the server's own errors are (contract §8).

Why: ``langgraph dev`` (langgraph_api's server) runs a custom app's middleware *outside*
its own ``CORSMiddleware``. A request our middleware refuses by itself — two session
tokens, a ``chat:`` thread, a body too large, unstorable text, a route's known failure,
an unhandled error — never reached that layer, so the refusal carried no CORS headers
and a browser client on another origin (agent-chat-ui on ``localhost:3000`` against
``langgraph dev`` on ``:2024``) saw a network error instead of the sentence. Aegra adds
its ``CORSMiddleware`` outside the custom app's middleware: there every answer of ours
passes it like any response, and nothing needs doing.

How, with no server internals: the app being served (``scope["app"]``, which Starlette
sets) lists its middleware in ``user_middleware``, public Starlette API. A
``CORSMiddleware`` listed *after* ours is one our own answer skips — the server's, as the
server built it from its configuration (``CORS_ALLOW_ORIGINS``, ``CORS_CONFIG``,
``http.cors``); nothing is re-read or re-derived here. Then:

- our answer goes out through a ``CORSMiddleware`` made from that very entry: the
  ``Access-Control-*`` headers the server gives its own errors, once. A route's response
  passes the server's layer and never comes here, so it never gets them twice;
- a CORS preflight is handed on to the server instead of refused: its ``CORSMiddleware``
  answers every preflight itself, before any route, so a preflight is answered exactly
  as without us (``langgraph dev``'s private-network header included) and the request
  that follows reads our sentence.

Where no ``CORSMiddleware`` is listed after ours — Aegra, or ``langgraph dev`` with
``http.middleware_order: "auth_first"`` (our middleware then wraps each route, inside
the server's CORS) — an answer goes out as it is.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["refuse", "skipped_cors"]

OUR_PACKAGE = __name__.rpartition(".")[0]
"""``adapters.server``: the middleware defined under it is ours."""


def _ours(entry: Middleware) -> bool:
    return str(getattr(entry.cls, "__module__", "")).startswith(f"{OUR_PACKAGE}.")


def _is_cors(entry: Middleware) -> bool:
    return isinstance(entry.cls, type) and issubclass(entry.cls, CORSMiddleware)


def skipped_cors(scope: Scope) -> list[Middleware]:
    """The ``CORSMiddleware`` entries of the served app that sit inside our middleware: the
    ones an answer of ours does not pass (``langgraph dev``'s); empty where there is none."""
    stack = getattr(scope.get("app"), "user_middleware", None)
    if not isinstance(stack, list):
        return []
    first_of_ours = next((i for i, entry in enumerate(stack) if _ours(entry)), None)
    if first_of_ours is None:
        return []
    return [entry for entry in stack[first_of_ours + 1 :] if _is_cors(entry)]


def _is_preflight(scope: Scope) -> bool:
    """What ``CORSMiddleware`` answers as a preflight, by the same test."""
    headers = Headers(scope=scope)
    return (
        scope["method"] == "OPTIONS"
        and "origin" in headers
        and "access-control-request-method" in headers
    )


async def refuse(
    scope: Scope,
    receive: Receive,
    send: Send,
    status: int,
    sentence: str,
    *,
    inner: ASGIApp | None = None,
) -> None:
    """Answer an HTTP request ``{"detail": sentence}`` with ``status``, with the CORS headers
    the server's own errors get. ``inner``: the app the refusing middleware wraps; a
    preflight the server's CORS answers is handed on to it rather than refused."""
    layers = skipped_cors(scope)
    if layers and inner is not None and _is_preflight(scope):
        await inner(scope, receive, send)
        return
    answer: ASGIApp = JSONResponse({"detail": sentence}, status_code=status)
    for entry in reversed(layers):
        answer = entry.cls(answer, *entry.args, **entry.kwargs)
    await answer(scope, receive, send)
