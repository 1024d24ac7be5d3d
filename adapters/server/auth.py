"""LangGraph custom auth: session identity and owner-scoped resources (contract §8).

Every request to the LangGraph API carries a session token: the
``X-AIMind-Session`` header, ``Authorization: Bearer``, ``X-Api-Key`` (the
LangGraph SDKs' ``api_key``) or the ``aimind_session`` cookie, taken as
``adapters.server.session_token`` says. The token is hashed there and only the hash
(the ``SessionHash``) travels on as the user's identity: graphs read it from
``config["configurable"]["langgraph_auth_user"]``.

Threads, runs, crons, user-made assistants and store items are stamped with
``owner=<identity>`` on create and filtered by it on every read, search,
update and delete, so one session can never see or touch another's.

LangGraph Studio (``langgraph dev`` only) is authenticated by the server as
``langgraph-studio-user``; it is treated as one more owner, so Studio can
list the graphs, create threads and run them, but sees no session's threads.
Its runs get a chat memory of their own in development (``adapters.chat_memory.runtime``).
An update never changes a resource's ``owner``.

The module serves both servers unchanged, ``langgraph dev`` and Aegra (contract §15),
so it imports neither: the authenticate handler takes header names and values as
``bytes`` (``langgraph dev``) or ``str`` (Aegra), and a run's input is read from
either shape of the ``create_run`` value (``run_request``).
"""

from __future__ import annotations

import aimind_memory.adapters.server.settings_check  # noqa: F401  (first: a bad setting stops the server in one sentence)

# isort: split

from collections.abc import Mapping
from typing import Any, NamedTuple

from langgraph_sdk import Auth

from aimind_memory.adapters.errors import RunInputError, SessionTokenError
from aimind_memory.adapters.server import storage_notice
from aimind_memory.adapters.server.memory_threads import (
    MEMORY_THREAD_REFUSED,
    MEMORY_THREAD_STATUS,
    THREAD_ID_KEYS,
    names_memory_thread,
)
from aimind_memory.adapters.server.request_limits import RequestLimits
from aimind_memory.adapters.server.run_input import TURN_GRAPHS, check_run_input, graph_names
from aimind_memory.adapters.server.session_token import request_identity
from aimind_memory.adapters.server.store_scope import is_own_namespace, namespace_of
from aimind_memory.adapters.settings import exit_on_bad_settings

OWNER_KEY = "owner"
SYSTEM_CREATOR = {"created_by": "system"}
TURN_ASSISTANTS = graph_names(*TURN_GRAPHS)
"""How a run names one of our graphs. An assistant a user made of one of them has a
random id: its input is only checked for shape."""

# Loaded at import, i.e. at server start-up: a malformed setting or a missing production
# secret stops the server with one sentence instead of failing each request with a 500
# (contract §12.6), and never leaves Aegra serving without this module's auth. The
# secret itself is read on first use (``session_token.server_secret``): importing writes
# nothing, not even the development secret.
with exit_on_bad_settings():  # the settings themselves and the secret's: settings_check
    _LIMITS = RequestLimits.from_env()
storage_notice.announce()  # where memory and the secret are: shared with the chat page or not

auth = Auth()


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value


@auth.authenticate
async def authenticate(headers: Mapping[str | bytes, str | bytes]) -> Auth.types.MinimalUserDict:
    """Identity = sessionHash. The raw token goes no further than this function.

    ``headers``: ``bytes`` under ``langgraph dev``, ``str`` under Aegra. A request with
    two different tokens never gets here (``adapters.server.identity_guard``)."""
    named = {_text(k).lower(): _text(v) for k, v in headers.items()}
    try:
        identity = await request_identity(named)
    except SessionTokenError as exc:
        raise Auth.exceptions.HTTPException(status_code=401, detail=exc.message) from None
    return {"identity": str(identity), "display_name": "session", "is_authenticated": True}


def _refuse_memory_threads(value: Any) -> None:
    """No thread action reaches a chat-memory thread (``adapters.server.memory_threads``):
    the ids LangGraph hands a handler are checked here; paths and bodies at the HTTP edge."""
    if isinstance(value, Mapping) and any(
        names_memory_thread(value.get(key)) for key in THREAD_ID_KEYS
    ):
        raise Auth.exceptions.HTTPException(
            status_code=MEMORY_THREAD_STATUS, detail=MEMORY_THREAD_REFUSED
        )


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


@auth.on(resources=("threads", "crons"), actions="create")
async def on_create(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """New threads and crons belong to the caller."""
    _refuse_memory_threads(value)
    return _stamp(value, ctx)


class RunRequest(NamedTuple):
    assistant_id: Any
    input: Any
    command: Any
    context: Any


def run_request(value: Mapping[str, Any]) -> RunRequest:
    """What a ``threads.create_run`` value asks for, from either server.

    ``langgraph dev`` passes the run's ``Auth.types.RunsCreate``: the assistant's UUID
    beside ``kwargs`` holding ``input``, ``command`` and ``context``. Aegra passes the
    request body itself: those and ``assistant_id`` as the client sent it (a graph id or
    an assistant's UUID).
    """
    kwargs = value.get("kwargs")
    body = kwargs if isinstance(kwargs, Mapping) else value
    return RunRequest(
        value.get("assistant_id"), body.get("input"), body.get("command"), body.get("context")
    )


@auth.on.threads.create_run
async def on_thread_run(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Runs (threaded, resumed or stateless) are stamped; the thread must be the caller's.

    Malformed input or context is refused here with a 422, before a run is queued.
    """
    _refuse_memory_threads(value)
    run = run_request(value)
    try:
        check_run_input(
            run.input,
            turn=str(run.assistant_id) in TURN_ASSISTANTS,
            command=run.command,
            context=run.context,
            max_messages=_LIMITS.max_input_messages,
        )
    except RunInputError as exc:
        raise Auth.exceptions.HTTPException(status_code=422, detail=str(exc)) from None
    return _stamp(value, ctx)


@auth.on(resources=("threads", "crons"), actions="update")
async def on_owned_update(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Only the owner changes a thread or cron, and never its owner: an ``owner`` in the
    new metadata is the caller's own (a cron re-owned would list under another session
    and still run as the first)."""
    _refuse_memory_threads(value)
    metadata = value.get("metadata")
    if isinstance(metadata, dict) and OWNER_KEY in metadata:
        metadata[OWNER_KEY] = ctx.user.identity
    return _owner(ctx)


@auth.on(resources=("threads", "crons"), actions=("read", "delete", "search"))
async def on_owned_access(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Threads and crons: only the owner's are seen or deleted."""
    _refuse_memory_threads(value)
    return _owner(ctx)


@auth.on(resources="assistants", actions=("create", "update"))
async def on_assistant_write(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    return _stamp(value, ctx)


@auth.on(resources="assistants", actions=("read", "search"))
async def on_assistant_read(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """The graphs' own assistants are visible to everyone; user-made ones to their owner."""
    # Both servers filter on "$or"; the SDK's FilterType does not name it.
    return {"$or": [dict(SYSTEM_CREATOR), _owner(ctx)]}  # type: ignore[return-value]


@auth.on.assistants.delete
async def on_assistant_delete(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    return _owner(ctx)


@auth.on.store()
async def on_store(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Store items live under the caller's own namespace: ``(<identity>, ...)`` (on Aegra
    also as its user scope shows them: ``adapters.server.store_scope``)."""
    if not is_own_namespace(namespace_of(value), ctx.user.identity):
        raise Auth.exceptions.HTTPException(
            status_code=403, detail="Store namespaces must start with your own identity."
        )
