"""Where development data lives: the embedded SQLite database and the dev session secret.

One folder, whatever the current directory, so ``langgraph dev``, the ``aimind``
command and the library all find the same memory and the same secret:

1. ``AIMIND_DATA_DIR`` when set (a relative path is taken from the directory the
   process started in);
2. else the ``.aimind/`` folder of the checkout this package runs from (an editable
   install, what ``scripts/bootstrap.sh`` makes);
3. else (an installed wheel) the user's data folder, ``$XDG_DATA_HOME/aimind``,
   by default ``~/.local/share/aimind``.

Resolved without touching the disk after import: ``langgraph dev`` forbids blocking
calls inside runs, and the database URL is read there.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "DATABASE_FILE",
    "DATA_DIR_ENV",
    "PRIVATE_MODE",
    "create_private",
    "data_dir",
    "default_database_url",
    "open_private",
]

DATA_DIR_ENV = "AIMIND_DATA_DIR"
PROJECT_DATA_DIR = ".aimind"
USER_DATA_DIR = "aimind"
DATABASE_FILE = "aimind.sqlite"
_CHECKOUT_MARKERS = ("pyproject.toml", "langgraph.json")
PRIVATE_MODE = 0o600
"""Every data file memory creates: the database, its lock and stamp files, the secret."""


def _checkout_data_dir() -> Path | None:
    root = Path(__file__).resolve().parents[2]
    if all((root / marker).is_file() for marker in _CHECKOUT_MARKERS):
        return root / PROJECT_DATA_DIR
    return None


def _user_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / USER_DATA_DIR


_DEFAULT = _checkout_data_dir() or _user_data_dir()
_START_DIR = Path.cwd()


def data_dir() -> Path:
    """The data folder, absolute: ``AIMIND_DATA_DIR``, else the checkout's ``.aimind/``,
    else the user's data folder."""
    override = os.environ.get(DATA_DIR_ENV)
    return _START_DIR / override if override else _DEFAULT


def default_database_url() -> str:
    """The embedded default: a SQLite file in the data folder."""
    return f"sqlite:///{data_dir() / DATABASE_FILE}"


def open_private(path: Path, flags: int = os.O_RDWR) -> int:
    """Open ``path``, creating it ``PRIVATE_MODE`` if it does not exist, whatever the umask
    (a umask may clear bits of the mode ``open`` asks for; ``fchmod`` sets them exactly)."""
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, PRIVATE_MODE)
    except FileExistsError:
        return os.open(path, flags)
    try:
        os.fchmod(fd, PRIVATE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def create_private(path: Path) -> None:
    """Create ``path`` empty and ``PRIVATE_MODE`` unless it exists (SQLite then gives its
    ``-wal`` and ``-shm`` files the database file's mode)."""
    os.close(open_private(path, os.O_RDONLY))
