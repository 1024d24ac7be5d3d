"""One line at server start saying where chat memory lives: database, data folder, secret.

Why: two processes share a session's memory only when they open the same database and
hash tokens with the same secret, and where those are depends on how the package was
installed (``memory.storage.paths``: a checkout keeps them in its own ``.aimind/``, an
installed package in the user's data folder). A user's own agent served from their
folder, and the chat page of a checkout, can so silently keep two memories. The line
says the paths — never the secret, never a database password — so a person sees it.

Said once per process, by whichever of ``auth`` and ``app`` the server loads first.
"""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import urlsplit

from aimind_memory.memory.session import SECRET_ENV, secret_file
from aimind_memory.memory.storage import DatabaseURLError, backend_of, database_url, sqlite_path
from aimind_memory.memory.storage.paths import data_dir, data_dir_origin

__all__ = ["announce", "describe_database", "storage_notice"]

log = logging.getLogger("aimind.storage")

SHARING = (
    "Another server, the aimind command or a script shares this memory only with the same "
    "database and the same secret"
)
_said: list[bool] = []


def describe_database(url: str) -> str:
    """The database a URL names, without its user, password or options."""
    try:
        backend = backend_of(url)
    except DatabaseURLError:
        return "an unsupported AIMIND_DATABASE_URL (not shown)"
    if backend == "memory":
        return "in memory (gone when the process stops)"
    if backend == "sqlite":
        path = sqlite_path(url)
        return f"SQLite file {path if path.is_absolute() else Path.cwd() / path}"
    try:
        parts = urlsplit(url)
        where = f"{parts.hostname or 'localhost'}{f':{parts.port}' if parts.port else ''}"
    except ValueError:
        return "PostgreSQL (its URL is malformed: not shown)"
    return f"PostgreSQL {where}{parts.path or ''}"


def storage_notice() -> str:
    """The line: database, data folder and where the secret comes from."""
    secret = secret_file()
    secret_from = f"from {SECRET_ENV}" if secret is None else f"kept in {secret}"
    return (
        f"chat memory: database {describe_database(database_url())}; data folder "
        f"{data_dir()} ({data_dir_origin()}); session secret {secret_from}. {SHARING}."
    )


def announce() -> None:
    """Log ``storage_notice()`` once per process (at import of the auth or the app)."""
    if not _said:
        _said.append(True)
        log.info(storage_notice())
