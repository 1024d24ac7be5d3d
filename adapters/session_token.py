"""Where a request's session token comes from, and the identity it stands for (SPEC §8).

One function for the LangGraph custom auth (``adapters.auth``) and the custom
routes (``adapters.http``), which LangGraph does not run custom auth on. The
token is taken from the first source present, in this order:

1. ``X-AIMind-Session: <token>`` — our own header;
2. ``Authorization: Bearer <token>`` — the usual HTTP way;
3. ``X-Api-Key: <token>`` — what the LangGraph SDKs send as ``api_key``/``apiKey``
   (agent-chat-ui's "API key" field);
4. the ``aimind_session`` cookie — the chat page.

A header that is present decides: if it is malformed the request is refused and
no later source is looked at, so a client never silently acts as a different
session than the one it meant. For ``Authorization`` anything but ``Bearer``
followed by a valid token is malformed (a ``Basic`` header from a proxy
included: send ``X-AIMind-Session``, which comes first, or strip it). Cookies
are parsed with Starlette's lenient parser, so another site cookie that is not
RFC-clean (``theme={"a":1}``, ``x=a b``) never hides the session cookie.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import cookie_parser

from memory.session import InvalidSessionError, SessionHash, hash_token

__all__ = [
    "COOKIE_SOURCE",
    "SESSION_COOKIE",
    "SESSION_HEADER",
    "SessionTokenError",
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


class SessionTokenError(ValueError):
    """No usable session token; ``message`` is a sentence safe to return with a 401.

    ``source`` is the header that was malformed, ``"cookie"`` for a malformed
    cookie, or None when the request carried no token at all.
    """

    def __init__(self, message: str, source: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source


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
