"""LangGraph custom auth: session identity and owner-scoped resources (SPEC §8).

Every request to the LangGraph API carries a session token in the
``X-AIMind-Session`` header or the ``aimind_session`` cookie. The token is
hashed here and only the hash (the ``SessionHash``) travels on as the user's
identity: graphs read it from ``config["configurable"]["langgraph_auth_user"]``.

Threads, runs, crons, user-made assistants and store items are stamped with
``owner=<identity>`` on create and filtered by it on every read, search,
update and delete, so one session can never see or touch another's.

LangGraph Studio (``langgraph dev`` only) is authenticated by the server as
``langgraph-studio-user``; it is treated as one more owner, so Studio can
list the graphs, create threads and run them, but sees no session's threads.
"""

from __future__ import annotations

from http.cookies import CookieError, SimpleCookie
from typing import Any

from langgraph_sdk import Auth

from adapters.run_input import RunInputError, check_run_input
from memory.session import InvalidSessionError, SessionHash, hash_token, load_secret

SESSION_COOKIE = "aimind_session"
SESSION_HEADER = "x-aimind-session"
OWNER_KEY = "owner"
SYSTEM_CREATOR = {"created_by": "system"}

MISSING_SESSION = (
    "Missing session: send the session token in the X-AIMind-Session header "
    "or the aimind_session cookie."
)
MALFORMED_SESSION = (
    "Malformed session token: it must be 16 to 128 characters of letters, digits, '_' or '-'."
)

# Loaded at import, i.e. at server start-up: a missing production secret stops the
# server with a clear message instead of failing each request with a 500 (SPEC §12.6).
_SECRET = load_secret()

auth = Auth()


def _header(headers: dict[bytes, bytes], name: str) -> str | None:
    raw = headers.get(name.encode())
    return raw.decode("latin-1") if raw is not None else None


def cookie_token(cookie_header: str | None) -> str | None:
    """The ``aimind_session`` value of a Cookie header, if any."""
    if not cookie_header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(cookie_header)
    except CookieError:
        return None
    morsel = jar.get(SESSION_COOKIE)
    return morsel.value if morsel is not None else None


def session_token(headers: dict[bytes, bytes]) -> str | None:
    """The raw token: the header wins over the cookie (an explicit client choice)."""
    header = _header(headers, SESSION_HEADER)
    if header is not None:
        return header.strip()
    return cookie_token(_header(headers, "cookie"))


def identify(token: str | None) -> SessionHash:
    """Hash a raw token into the identity, or raise the 401 the client sees."""
    if token is None or token == "":
        raise Auth.exceptions.HTTPException(status_code=401, detail=MISSING_SESSION)
    try:
        return hash_token(token, _SECRET)
    except InvalidSessionError:
        raise Auth.exceptions.HTTPException(status_code=401, detail=MALFORMED_SESSION) from None


@auth.authenticate
async def authenticate(headers: dict[bytes, bytes]) -> Auth.types.MinimalUserDict:
    """Identity = sessionHash. The raw token goes no further than this function."""
    identity = identify(session_token(headers))
    return {"identity": str(identity), "display_name": "session", "is_authenticated": True}


def _owner(ctx: Auth.types.AuthContext) -> dict[str, str]:
    return {OWNER_KEY: ctx.user.identity}


def _stamp(value: dict[str, Any], ctx: Auth.types.AuthContext) -> dict[str, str]:
    """Set ``owner`` on the resource being written and return the owner filter."""
    owner = _owner(ctx)
    metadata = value.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
        value["metadata"] = metadata
    metadata.pop("created_by", None)  # only the server may mark an assistant as system
    metadata.update(owner)
    return owner


@auth.on.threads.create
@auth.on.crons.create
async def on_create(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """New threads and crons belong to the caller."""
    return _stamp(value, ctx)


@auth.on.threads.create_run
async def on_thread_run(
    ctx: Auth.types.AuthContext, value: Auth.types.on.threads.create_run.value
) -> Auth.types.FilterType:
    """Runs (threaded, resumed or stateless) are stamped; the thread must be the caller's.

    Malformed input is refused here with a 422, before a run is queued.
    """
    try:
        check_run_input((value.get("kwargs") or {}).get("input"))
    except RunInputError as exc:
        raise Auth.exceptions.HTTPException(status_code=422, detail=str(exc)) from None
    return _stamp(value, ctx)


@auth.on.threads.update
async def on_thread_update(
    ctx: Auth.types.AuthContext, value: Auth.types.on.threads.update.value
) -> Auth.types.FilterType:
    metadata = value.get("metadata")
    if isinstance(metadata, dict) and OWNER_KEY in metadata:
        metadata[OWNER_KEY] = ctx.user.identity  # a thread cannot be handed to someone else
    return _owner(ctx)


@auth.on.threads.read
@auth.on.threads.delete
@auth.on.threads.search
@auth.on.crons.read
@auth.on.crons.update
@auth.on.crons.delete
@auth.on.crons.search
async def on_owned_access(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Threads and crons: only the owner's are seen, changed or deleted."""
    return _owner(ctx)


@auth.on.assistants.create
@auth.on.assistants.update
async def on_assistant_write(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    return _stamp(value, ctx)


@auth.on.assistants.read
@auth.on.assistants.search
async def on_assistant_read(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """The graphs' own assistants are visible to everyone; user-made ones to their owner."""
    return {"$or": [dict(SYSTEM_CREATOR), _owner(ctx)]}


@auth.on.assistants.delete
async def on_assistant_delete(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    return _owner(ctx)


@auth.on.store()
async def on_store(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Store items live under the caller's own namespace: ``(<identity>, ...)``."""
    namespace = tuple(value.get("namespace") or ())
    if not namespace or namespace[0] != ctx.user.identity:
        raise Auth.exceptions.HTTPException(
            status_code=403, detail="Store namespaces must start with your own identity."
        )
