"""One real ``langgraph dev`` per backend for the whole suite (a start costs seconds on 2
cores), with default settings: ``tests/conftest.py`` makes these fixtures every folder's.

Each backend's server is started once per test process (an xdist worker), the first time a
module asks for it, and shared by every module that does (``tests/server``'s, the docs
examples, the tasklist's end-to-end test): each test has its own session tokens and
threads, so modules see nothing of each other's state. Started per module, the four
modules that first used them paid eight starts; now each worker pays at most two.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from aimind_memory.memory.session import new_token
from aimind_memory.memory.storage import sqlite_path
from harness.langgraph_server import LangGraphServer, langgraph_server

SESSION_HEADER = "X-AIMind-Session"
SESSION_COOKIE = "aimind_session"


@dataclass
class Deployment:
    """A running server, where its state lives, and every raw token handed to it."""

    server: LangGraphServer
    backend: str
    database_url: str
    data_dir: Path
    tokens: list[str] = field(default_factory=list)
    module_log_start: int = 0
    """Where the server's log stood when the current module began using it."""

    @property
    def url(self) -> str:
        return self.server.base_url

    @property
    def sqlite_file(self) -> Path | None:
        return sqlite_path(self.database_url) if self.backend == "sqlite" else None

    def token(self) -> str:
        """A fresh session token, remembered for the raw-token scan of the database."""
        token = new_token()
        self.tokens.append(token)
        return token

    def module_log(self) -> str:
        """The server's log since the current module began using it: the server is shared,
        other modules' requests wrote what comes before (a clean start's log is
        ``test_startup``'s to check)."""
        with self.server.log_path.open("rb") as log:
            log.seek(self.module_log_start)
            return log.read().decode(errors="replace")

    def restart(self) -> None:
        """Stop the server and start it again: same port, working dir, database, data dir."""
        self.server.stop()
        self.server.start()


def _fresh_pg_database(server_url: str) -> str:
    name = f"srv_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))


def _drop_pg_database(server_url: str, url: str) -> None:
    """Best effort: the embedded server may already be gone at the end of the run."""
    name = urlsplit(url).path.lstrip("/")
    with (
        contextlib.suppress(psycopg.OperationalError),
        psycopg.connect(server_url, autocommit=True) as conn,
    ):
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def _started(
    backend: str, tmp_path_factory: pytest.TempPathFactory, pg_server: str | None
) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp(f"server-{backend}")
    url = (
        f"sqlite:///{root / 'db' / 'aimind.sqlite'}"
        if pg_server is None
        else _fresh_pg_database(pg_server)
    )
    try:
        with langgraph_server(url, root / "data", workdir=root / "work") as server:
            yield Deployment(server, backend, url, root / "data")
    finally:
        if pg_server is not None:
            _drop_pg_database(pg_server, url)


@pytest.fixture(scope="session")
def sqlite_deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """``langgraph dev`` on a real SQLite file, for every module of this process."""
    with _started("sqlite", tmp_path_factory, None) as running:
        yield running


@pytest.fixture(scope="session")
def postgres_deployment(
    tmp_path_factory: pytest.TempPathFactory, pg_server_url: str
) -> Iterator[Deployment]:
    """``langgraph dev`` on a fresh database of the real PostgreSQL, for every module of
    this process."""
    with _started("postgres", tmp_path_factory, pg_server_url) as running:
        yield running


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def deployment(request: pytest.FixtureRequest) -> Deployment:
    """``langgraph dev`` on a real SQLite file, then on a real PostgreSQL database: a module's
    tests run on one, then on the other (both started once per process, see above)."""
    running: Deployment = request.getfixturevalue(f"{request.param}_deployment")
    if not running.server.running:  # a test stopped it and failed before starting it again
        running.server.start()
    running.module_log_start = running.server.log_path.stat().st_size
    return running
