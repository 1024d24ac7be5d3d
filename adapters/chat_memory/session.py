"""Which session's chat memory a run reads and writes (contract §8, §13a).

In order:

1. the server's authenticated user, when its identity is a session hash (64 hex
   characters): what this project's auth (``aimind_memory.server:auth``) gives every
   request, from the caller's session token;
2. LangGraph Studio under ``langgraph dev`` (the server itself authenticates it as
   ``langgraph-studio-user``): one fixed development identity of its own, so Studio's
   runs have a memory that never meets a browser session's. Outside ``langgraph dev``,
   and always with ``AIMIND_ENV=production``, Studio has none of its own;
3. any other authenticated user — a server that runs an auth of the user's own: its
   identity, derived with the session secret (``derived_identity("user:<identity>")``),
   so each of that auth's users has a memory of their own that no session token can
   ever hash to;
4. run context ``session_id``, else ``configurable.session_id`` (a script, the CLI).

Derived identities are HMACs of a label ending in ``:``, which never occurs in a session
token: no token, and no other label, ever hashes to one of them.

A served run with none of these — a server without an auth (``langgraph dev``'s
unauthenticated user, Aegra's ``anonymous``) — is refused: ``MemoryNotServedError``
fails the run with what to add to ``langgraph.json``. Otherwise such a server would
keep every caller's memory in one, or none, without anyone noticing. A library run
with no ``session_id`` runs without memory (contract §13a), said once per process.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph_sdk.auth import is_studio_user

from aimind_memory.adapters.engine import is_langgraph_dev
from aimind_memory.adapters.errors import MemoryNotServedError
from aimind_memory.memory.session import HASH_RE, SessionHash, derived_identity, load_secret

__all__ = [
    "NOT_SERVED",
    "NO_SESSION",
    "STUDIO_USER",
    "USER_LABEL",
    "session_of",
    "user_identity",
]

log = logging.getLogger("aimind.chat_memory")

STUDIO_USER = "langgraph-studio-user"
"""The identity ``langgraph dev`` gives LangGraph Studio's requests."""
USER_LABEL = "user"
"""The label of an identity from an auth of the user's own: ``user:<identity>``."""
SERVE_WITH_MEMORY = (
    'name this project\'s auth in langgraph.json (or aegra.json): "auth": {"path": '
    '"aimind_memory.server:auth"}, and "http": {"app": "aimind_memory.server:app"} for the '
    "memory routes, the chat page and runs that start at once (an auth of your own works "
    "too: each of its users gets a memory), then restart the server"
)
NOT_SERVED = (
    "chat memory needs to know whose memory this is, and this server authenticates nobody: "
    f"{SERVE_WITH_MEMORY}."
)
NO_SESSION = (
    "chat memory is off for this run: it has no session, so nothing is read or written. "
    'Pass context={"session_id": "<token>"}; to serve the agent, '
    f"{SERVE_WITH_MEMORY}. Said once: later runs without a session run without memory too."
)
USER_IDENTITY_NOTICE = (
    "chat memory is keyed by the server's authenticated user (an auth that is not "
    "aimind_memory.server:auth): each user identity has a memory of its own."
)


_said: set[str] = set()


def _say_once(message: str, level: int) -> None:
    if message not in _said:
        _said.add(message)
        log.log(level, message)


def _field(user: Any, name: str) -> Any:
    """A field of the server's user object: an attribute (``langgraph dev``, Aegra) or a key."""
    if isinstance(user, Mapping):
        return user.get(name)
    return getattr(user, name, None)


def _is_studio(user: Any, identity: Any) -> bool:
    if identity != STUDIO_USER or user is None:
        return False
    return is_studio_user(user) or _field(user, "kind") == "StudioUser"


def _served(configurable: Mapping[str, Any]) -> bool:
    """A run a LangGraph server started: it hands every run its auth user's keys (None
    when it has no auth), and ``langgraph dev`` may leave them out entirely."""
    return (
        "langgraph_auth_user" in configurable
        or "langgraph_auth_user_id" in configurable
        or is_langgraph_dev()
    )


def _is_authenticated(user: Any, identity: Any) -> bool:
    """A real user of the server's auth: not ``langgraph dev``'s unauthenticated user (no
    identity) nor Aegra's ``anonymous`` one (``is_authenticated`` false). A run with
    only ``langgraph_auth_user_id`` (a cron's) was authenticated when it was made."""
    if not (isinstance(identity, str) and identity):
        return False
    return user is None or _field(user, "is_authenticated") is not False


async def user_identity(identity: str) -> SessionHash:
    """The memory identity of a user of an auth of the user's own: ``user:<identity>``."""
    return await _derived(f"{USER_LABEL}:{identity}")


async def _derived(label: str) -> SessionHash:
    """``label``'s identity under the session secret, read off the event loop (in
    development it is a file, made on first use: never when this module is imported)."""
    return derived_identity(label, await asyncio.to_thread(load_secret))


async def session_of(config: RunnableConfig | None, context: Any) -> str | None:
    """The run's session (the module docstring's order), or None — said once, with the fix.

    Raises ``MemoryNotServedError`` for a served run whose server has no auth.
    """
    configurable = (config or {}).get("configurable", {})
    user = configurable.get("langgraph_auth_user")
    identity = _field(user, "identity") or configurable.get("langgraph_auth_user_id")
    if isinstance(identity, str) and HASH_RE.fullmatch(identity):
        return SessionHash(identity)
    studio = _is_studio(user, identity)
    if studio:
        if is_langgraph_dev():  # Studio's development identity; none elsewhere, nor in production
            return await _derived(f"studio:{STUDIO_USER}")
    elif isinstance(identity, str) and _is_authenticated(user, identity):
        _say_once(USER_IDENTITY_NOTICE, logging.INFO)
        return await user_identity(identity)
    session_id = _field(context, "session_id")
    if not (isinstance(session_id, str) and session_id):
        session_id = configurable.get("session_id")
    if isinstance(session_id, str) and session_id:
        return session_id
    if not studio and _served(configurable):
        raise MemoryNotServedError(NOT_SERVED)
    _say_once(NO_SESSION, logging.WARNING)
    return None
