"""Session identity: tokens, the HMAC secret, session hashes and memory thread ids (contract §8).

The raw browser token never leaves this module: everything downstream works
with ``SessionHash``, the hex HMAC-SHA256 of the token under the server secret.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
from collections.abc import Mapping
from pathlib import Path

from aimind_memory.memory.config.settings import SECRET_MIN_CHARS, MemorySettings, memory_settings
from aimind_memory.memory.errors import InvalidSessionError, SecretConfigError
from aimind_memory.memory.storage.paths import data_dir, place_private

log = logging.getLogger("aimind.session")

MEMORY_THREAD_PREFIX = "chat:"
ENV_VAR, PRODUCTION = MemorySettings.env_name("env"), "production"
SECRET_ENV = MemorySettings.env_name("session_secret")
SECRET_FILE = "session-secret"
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{16,128}")
HASH_RE = re.compile(r"[0-9a-f]{64}")


class SessionHash(str):
    """An already-authenticated identity: the 64-hex HMAC of a session token."""

    __slots__ = ()

    def __new__(cls, value: str) -> SessionHash:
        if not isinstance(value, str) or not HASH_RE.fullmatch(value):
            raise InvalidSessionError("session identity must be 64 lowercase hex characters")
        return super().__new__(cls, value)


def validate_token(token: object) -> str:
    if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
        raise InvalidSessionError(
            "session token must be 16 to 128 characters of letters, digits, '_' or '-'"
        )
    return token


def new_token() -> str:
    """A fresh session token for a browser that has none (43 url-safe chars)."""
    return secrets.token_urlsafe(32)


_secret_cache: dict[str, bytes] = {}


def configured_secret() -> bytes | None:
    """``AIMIND_SESSION_SECRET``, or None in development, where ``load_secret`` keeps one in
    the data folder.

    In production (``AIMIND_ENV=production``) a missing secret raises ``SecretConfigError``.
    It touches no file, so a server checks it as it loads (``adapters.server.settings_check``)
    and stops before it serves — a start-up error, never a request-time 500.
    """
    settings = memory_settings()  # the secret's length is checked there
    if settings.session_secret is not None:
        return settings.session_secret.get_secret_value().encode()
    if settings.production:
        raise SecretConfigError(
            f"{SECRET_ENV} is not set. In production, set it to a random string of at least "
            f"{SECRET_MIN_CHARS} characters (e.g. `python -c 'import secrets; "
            "print(secrets.token_urlsafe(48))'`)."
        )
    return None


def load_secret(directory: Path | None = None) -> bytes:
    """The HMAC secret: ``configured_secret()``, else a dev secret kept in the data folder,
    made by the first call that needs it (file I/O: call it off the event loop)."""
    configured = configured_secret()
    if configured is not None:
        return configured
    path = _dev_secret_path(directory).resolve()
    key = str(path)
    if key in _secret_cache:
        return _secret_cache[key]
    path.parent.mkdir(parents=True, exist_ok=True)
    # Placed whole or not at all: processes starting together never read it half-written.
    created = place_private(path, secrets.token_urlsafe(48).encode())
    secret = path.read_text().strip()
    if len(secret) < SECRET_MIN_CHARS:
        raise SecretConfigError(f"the dev secret in {path.name} is too short")
    if created:
        log.warning(
            "%s is not set: generated a development session secret in the data folder "
            "(%s). Set %s in production.",
            SECRET_ENV,
            path.parent.name + "/" + SECRET_FILE,
            SECRET_ENV,
        )
    _secret_cache[key] = secret.encode()
    return _secret_cache[key]


def secret_file(directory: Path | None = None) -> Path | None:
    """Where the development secret is kept (``load_secret``), or None when
    ``AIMIND_SESSION_SECRET`` gives the secret: what a server says at start, so a person
    sees whether two processes share it."""
    if memory_settings().session_secret is not None:
        return None
    return _dev_secret_path(directory)


def _dev_secret_path(directory: Path | None) -> Path:
    return (directory or data_dir()) / SECRET_FILE


def is_production(environ: Mapping[str, str] | None = None) -> bool:
    """``AIMIND_ENV=production``: no generated secret, no development identities."""
    return memory_settings(environ).production


def derived_identity(label: str, secret: bytes) -> SessionHash:
    """The identity of something that is not a browser session (LangGraph Studio under
    ``langgraph dev``): HMAC of ``<label>:``, and ``:`` never occurs in a valid token, so
    no session token can ever hash to it."""
    return SessionHash(hmac.new(secret, f"{label}:".encode(), hashlib.sha256).hexdigest())


def hash_token(token: str, secret: bytes) -> SessionHash:
    """Hex HMAC-SHA256(secret, token): the only form of the token that is ever stored."""
    validate_token(token)
    return SessionHash(hmac.new(secret, token.encode(), hashlib.sha256).hexdigest())


def resolve_session(session: str, secret: bytes) -> SessionHash:
    """Accept a raw token or an already-hashed ``SessionHash`` identity."""
    if isinstance(session, SessionHash):
        return session
    return hash_token(session, secret)


def memory_thread_id(identity: SessionHash) -> str:
    return f"{MEMORY_THREAD_PREFIX}{identity}"


def require_memory_thread_id(thread_id: str) -> str:
    """Memory APIs refuse ids that are not ``chat:<64 hex>`` (agent threads never are)."""
    if not (
        isinstance(thread_id, str)
        and thread_id.startswith(MEMORY_THREAD_PREFIX)
        and HASH_RE.fullmatch(thread_id[len(MEMORY_THREAD_PREFIX) :])
    ):
        raise InvalidSessionError("not a chat-memory thread id")
    return thread_id
