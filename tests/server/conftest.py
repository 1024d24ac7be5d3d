"""One real ``langgraph dev`` per backend for this folder (a start costs seconds on 2 cores)."""

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


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def deployment(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    """``langgraph dev`` on a real SQLite file, then on a real PostgreSQL database."""
    root = tmp_path_factory.mktemp(f"server-{request.param}")
    pg_server = None
    if request.param == "sqlite":
        url = f"sqlite:///{root / 'db' / 'aimind.sqlite'}"
    else:
        pg_server = request.getfixturevalue("pg_server_url")
        url = _fresh_pg_database(pg_server)
    try:
        with langgraph_server(url, root / "data", workdir=root / "work") as server:
            yield Deployment(server, request.param, url, root / "data")
    finally:
        if pg_server is not None:
            _drop_pg_database(pg_server, url)
