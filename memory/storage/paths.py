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

import errno
import os
import secrets
from pathlib import Path

from aimind_memory.memory.config.settings import MemorySettings, memory_settings

__all__ = [
    "DATABASE_FILE",
    "DATA_DIR_ENV",
    "PRIVATE_MODE",
    "create_private",
    "data_dir",
    "data_dir_origin",
    "default_database_url",
    "open_private",
    "place_private",
]

DATA_DIR_ENV = MemorySettings.env_name("data_dir")
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


_CHECKOUT_DIR = _checkout_data_dir()
_DEFAULT = _CHECKOUT_DIR or _user_data_dir()
_START_DIR = Path.cwd()


def data_dir() -> Path:
    """The data folder, absolute: ``AIMIND_DATA_DIR``, else the checkout's ``.aimind/``,
    else the user's data folder."""
    override = memory_settings().data_dir
    return _START_DIR / override if override else _DEFAULT


def data_dir_origin() -> str:
    """Why ``data_dir()`` is that folder, in words (a server says it at start)."""
    if memory_settings().data_dir:
        return f"from {DATA_DIR_ENV}"
    if _CHECKOUT_DIR is not None:
        return f"the checkout's own, {DATA_DIR_ENV} unset"
    return f"an installed package's default, {DATA_DIR_ENV} unset"


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


def place_private(path: Path, content: bytes = b"") -> bool:
    """Put a ``PRIVATE_MODE`` file holding ``content`` at ``path`` unless one is there;
    True if this call put it. An existing file is never opened.

    The file is written under a temporary name and hard-linked into place: it appears
    whole or not at all (processes starting together never read half a secret), and
    no descriptor of it is open once it is at ``path``. That matters for a database:
    POSIX locks belong to the process, so closing *any* descriptor of a database file
    drops the locks this process's SQLite connections hold on it, and the next process
    to close its connection then deletes the live WAL (contract §10).
    """
    if path.exists():
        return False
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    with os.fdopen(open_private(tmp, os.O_WRONLY), "wb") as fh:
        fh.write(content)
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        if content or exc.errno not in _NO_HARD_LINKS:
            raise
    finally:
        tmp.unlink(missing_ok=True)
    return _create_empty(path)


_NO_HARD_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP)


def _create_empty(path: Path) -> bool:
    """An empty file created in place (a file system without hard links), never one
    that appeared meanwhile."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL, PRIVATE_MODE)
    except FileExistsError:
        return False
    try:
        os.fchmod(fd, PRIVATE_MODE)
    finally:
        os.close(fd)
    return True


def create_private(path: Path) -> None:
    """Create ``path`` empty and ``PRIVATE_MODE`` unless it exists (SQLite gives its
    ``-wal`` and ``-shm`` the database file's mode)."""
    place_private(path)
