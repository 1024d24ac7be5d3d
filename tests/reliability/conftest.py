"""Two real ``langgraph dev`` servers on one PostgreSQL database, for the HTTP-level suite.

Started once per module that asks for them (a start costs seconds on 2 cores).
Both share the session secret, so one token is one session on either server;
the compaction window and summary are widened so a session's every turn stays
checkable in memory (verbatim or as one summary line).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from harness.langgraph_server import LangGraphServer, langgraph_server

SECRET = "reliability-suite-secret-" + "s" * 24
SERVER_ENV = {
    "AIMIND_SESSION_SECRET": SECRET,
    "AIMIND_RECENT_TURNS": "12",
    "AIMIND_KEEP_TURNS": "6",
    "AIMIND_SUMMARY_CHARS": "100000",
    "AIMIND_PG_POOL_MAX": "8",
}


@dataclass
class Cluster:
    """Two servers, their shared database, and the folders that hold their state."""

    servers: list[LangGraphServer]
    database_url: str
    root: Path

    @property
    def url(self) -> str:
        return self.servers[0].base_url


@pytest.fixture(scope="module")
def cluster(pg_server_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("cluster")
    name = f"rel_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = urlunsplit(urlsplit(pg_server_url)._replace(path=f"/{name}"))
    try:
        with contextlib.ExitStack() as stack:
            servers = [
                stack.enter_context(
                    langgraph_server(
                        url, root / f"data{i}", workdir=root / f"work{i}", env=SERVER_ENV
                    )
                )
                for i in range(2)
            ]
            yield Cluster(servers, url, root)
    finally:
        with (
            contextlib.suppress(psycopg.OperationalError),
            psycopg.connect(pg_server_url, autocommit=True) as conn,
        ):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def cluster_env(cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> Cluster:
    """The test process reads memory with the servers' secret and limits; both servers run.

    A test that stops the servers (to read the files they flush at exit) leaves them
    stopped: the next test of the module starts them again here, and after the last
    one nobody pays for a start."""
    for server in cluster.servers:
        if not server.running:
            server.start()
    for key, value in SERVER_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("AIMIND_DATABASE_URL", cluster.database_url)
    return cluster
