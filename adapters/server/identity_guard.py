"""One identity per request, on every server: an ASGI middleware of the HTTP app (contract §8).

Why here: the servers read the session token in different places, and each keeps
a different copy of a repeated header — ``langgraph dev`` and Aegra hand the
custom auth a dict of the headers (the last copy wins), Starlette's
``request.headers.get`` in our routes takes the first. A request with two tokens
could so authenticate as one session in LangGraph's routes and as another in
ours. The middleware of ``langgraph.json``'s (and ``aegra.json``'s) ``http.app``
wraps every route of both servers, LangGraph's, Aegra's and ours, so it refuses
such a request once, the same way everywhere, before any handler or auth runs.

The same middleware refuses a cross-site write (``adapters.server.cross_site``): a change
that only the session cookie authenticates must be JSON from the page's own origin (403).
Identity and who may use it are one concern, decided once, before any handler runs.

It also keeps production free of credential-less identities: under ``langgraph
dev`` a request with ``x-auth-scheme: langsmith`` is authenticated as LangGraph
Studio's user without any token. With ``AIMIND_ENV=production`` that header is
dropped, so such a request meets our auth like any other (no token: a 401).
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketClose

from aimind_memory.adapters.server.cross_site import CROSS_SITE_STATUS, cross_site_refusal
from aimind_memory.adapters.server.refusals import refuse
from aimind_memory.adapters.server.session_token import conflicting_tokens
from aimind_memory.memory.session import is_production

__all__ = ["STUDIO_SCHEME_HEADER", "IdentityGuard"]

STUDIO_SCHEME_HEADER = b"x-auth-scheme"
"""What LangGraph Studio sends (``langsmith``) for ``langgraph dev`` to skip custom auth."""
POLICY_VIOLATION = 1008


class IdentityGuard:
    """Refuse (401) a request carrying two different session tokens, and (403) a change
    the session cookie alone authenticates that is not JSON from the page's own origin;
    in production, strip the Studio auth scheme header."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.production = is_production()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        conflict = conflicting_tokens(Headers(scope=scope).items())
        if conflict is not None:
            if scope["type"] == "http":
                await refuse(scope, receive, send, 401, conflict, inner=self.app)
            else:
                await WebSocketClose(POLICY_VIOLATION, reason=conflict[:120])(scope, receive, send)
            return
        cross_site = cross_site_refusal(scope)
        if cross_site is not None:
            await refuse(scope, receive, send, CROSS_SITE_STATUS, cross_site, inner=self.app)
            return
        if self.production:
            headers = [(k, v) for k, v in scope["headers"] if k.lower() != STUDIO_SCHEME_HEADER]
            scope = {**scope, "headers": headers}
        await self.app(scope, receive, send)
