"""Where a request's session token comes from, and the identity it stands for (contract §8).

One function for the LangGraph custom auth (``adapters.server.auth``) and the custom
routes (``adapters.server.app``), which LangGraph does not run custom auth on. The
token is taken from the first source present, in this order:

1. ``X-AIMind-Session: <token>`` — our own header;
2. ``Authorization: Bearer <token>`` — the usual HTTP way;
3. ``X-Api-Key: <token>`` — what the LangGraph SDKs send as ``api_key``/``apiKey``
   (agent-chat-ui's "API key" field);
4. the ``aimind_session`` cookie — the chat page.

A header that is present decides: if it is malformed the request is refused and
no later source is looked at, so a client never silently acts as a different
session than the one it meant. For the same reason a request carries one token:
a credential header repeated with different values, or two sources with
different tokens, is refused (``conflicting_tokens``) before any handler runs
(``adapters.server.identity_guard``), so LangGraph's routes, Aegra's and ours (which
would otherwise each pick a different one) never disagree on who is calling.
For ``Authorization`` anything but ``Bearer`` followed by a valid token is
malformed (a ``Basic`` header from a proxy included: send ``X-AIMind-Session``,
which comes first, or strip it). Cookies are parsed with Starlette's lenient
parser, so another site cookie that is not RFC-clean (``theme={"a":1}``,
``x=a b``) never hides the session cookie.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping

from starlette.requests import cookie_parser

from aimind_memory.adapters.errors import SessionTokenError
from aimind_memory.memory.errors import InvalidSessionError
from aimind_memory.memory.session import TOKEN_RE, SessionHash, hash_token, load_secret

__all__ = [
    "COOKIE_SOURCE",
    "SESSION_COOKIE",
    "SESSION_HEADER",
    "conflicting_tokens",
    "cookie_session",
    "header_credentials",
    "request_identity",
    "server_secret",
    "session_identity",
]

SESSION_HEADER = "x-aimind-session"
SESSION_COOKIE = "aimind_session"
COOKIE_SOURCE = "cookie"
BEARER = "bearer"
TOKEN_RULE = "16 to 128 characters of letters, digits, '_' or '-'"

MISSING_SESSION = (
    "Missing session: send the session token in the X-AIMind-Session header, as "
    "'Authorization: Bearer <token>', in the X-Api-Key header, or in the aimind_session cookie."
)
_MALFORMED = {
    SESSION_HEADER: f"The X-AIMind-Session header is not a session token: it must be {TOKEN_RULE}.",
    "authorization": (
        "The Authorization header must be 'Bearer <session token>', where the token is "
        f"{TOKEN_RULE}."
    ),
    "x-api-key": f"The X-Api-Key header is not a session token: it must be {TOKEN_RULE}.",
    COOKIE_SOURCE: f"The aimind_session cookie is not a session token: it must be {TOKEN_RULE}.",
}


_SHOWN = {
    SESSION_HEADER: "X-AIMind-Session",
    "authorization": "Authorization",
    "x-api-key": "X-Api-Key",
    COOKIE_SOURCE: "the aimind_session cookie",
}
_SDK_HINT = (
    " (The LangGraph SDKs send X-Api-Key from api_key=, or from LANGGRAPH_API_KEY or "
    "LANGSMITH_API_KEY in the environment when api_key is not given.)"
)


def _bearer(value: str) -> str | None:
    scheme, _, credentials = value.strip().partition(" ")
    return credentials.strip() if scheme.lower() == BEARER else None


def _raw_token(headers: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(token, source) of the first source present; a bad ``Authorization`` gives no token."""
    if (value := headers.get(SESSION_HEADER)) is not None:
        return value.strip(), SESSION_HEADER
    if (value := headers.get("authorization")) is not None:
        return _bearer(value), "authorization"
    if (value := headers.get("x-api-key")) is not None:
        return value.strip(), "x-api-key"
    if cookie := headers.get("cookie"):
        token = cookie_parser(cookie).get(SESSION_COOKIE)
        if token is not None:
            return token, COOKIE_SOURCE
    return None, None


def header_credentials(headers: Mapping[str, str]) -> dict[str, str]:
    """The request's session as a client of the server's own API sends it: the credential
    headers it came in, with a cookie's token in ``X-AIMind-Session`` instead (a request
    the server sends itself, as the caller, is no page: ``adapters.server.forget``)."""
    token, source = _raw_token(headers)
    if source == COOKIE_SOURCE and token is not None:
        return {SESSION_HEADER: token}
    return {
        name: value
        for name, value in headers.items()
        if name.lower() in (SESSION_HEADER, "authorization", "x-api-key")
    }


def cookie_session(headers: Mapping[str, str]) -> bool:
    """The request's session is a well-formed token in the cookie, and no header names
    one: a change it makes must come from the page's own origin
    (``adapters.server.cross_site``). A malformed one is auth's to refuse (401)."""
    token, source = _raw_token(headers)
    return source == COOKIE_SOURCE and token is not None and TOKEN_RE.fullmatch(token) is not None


def _presented(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every (source, token) the request carries, in every copy of every source.

    ``Authorization`` counts only as ``Bearer <token>`` (a proxy's ``Basic`` beside
    ``X-AIMind-Session`` is not a second token); empty values carry none.
    """
    found: list[tuple[str, str]] = []
    for name, value in headers:
        name = name.lower()
        if name == COOKIE_SOURCE:
            # Pair by pair: one header may hold the cookie twice (two paths or domains).
            for pair in value.split(";"):
                token = cookie_parser(pair).get(SESSION_COOKIE)
                if token:
                    found.append((COOKIE_SOURCE, token))
            continue
        if name == "authorization":
            token = _bearer(value)
        elif name in (SESSION_HEADER, "x-api-key"):
            token = value.strip()
        else:
            continue
        if token:
            found.append((name, token))
    return found


def conflicting_tokens(headers: Iterable[tuple[str, str]]) -> str | None:
    """A sentence (for a 401) when the request carries two different session tokens —
    one header repeated with different values, or two sources that disagree — else None.

    ``headers`` are (name, value) pairs with every repeated header kept, as in the
    ASGI scope.
    """
    seen: dict[str, str] = {}  # source -> its token; all equal, or we have returned
    for source, token in _presented(headers):
        if source in seen:
            if seen[source] != token:
                return (
                    f"The request carries {_SHOWN[source]} twice with different session "
                    "tokens: send one session token."
                )
            continue
        other = next((s for s, t in seen.items() if t != token), None)
        if other is not None:
            hint = _SDK_HINT if "x-api-key" in (source, other) else ""
            return (
                f"The request carries two different session tokens, in {_SHOWN[other]} and "
                f"{_SHOWN[source]}: send one session token.{hint}"
            )
        seen[source] = token
    return None


def session_identity(headers: Mapping[str, str], secret: bytes) -> SessionHash:
    """The request's identity (the HMAC of its token); raises SessionTokenError.

    ``headers`` is looked up by lower-case name (Starlette's ``Headers`` or a
    plain dict of lower-case names).
    """
    token, source = _raw_token(headers)
    if source is None:
        raise SessionTokenError(MISSING_SESSION, None)
    try:
        if not token:
            raise InvalidSessionError("empty")
        return hash_token(token, secret)
    except InvalidSessionError:
        raise SessionTokenError(_MALFORMED[source], source) from None


_secret: list[bytes] = []


async def server_secret() -> bytes:
    """The session secret (``memory.session.load_secret``), read once per process when the
    server first needs it — its start-up (``adapters.server.app``'s lifespan) or, behind an
    app of the user's own, the first request — and off the event loop: in development the
    secret is a file in the data folder, made then, never when a module is imported."""
    if not _secret:
        _secret[:] = [await asyncio.to_thread(load_secret)]
    return _secret[0]


async def request_identity(headers: Mapping[str, str]) -> SessionHash:
    """``session_identity`` under the server's secret; raises SessionTokenError."""
    return session_identity(headers, await server_secret())
