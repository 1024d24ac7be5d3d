"""Fixtures for the bench's own tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.common import BenchEnv


@pytest.fixture(params=["sqlite", "postgres"])
def bench_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[BenchEnv, str]]:
    """The bench's own databases on a real SQLite file, then on a real PostgreSQL."""
    server = request.getfixturevalue("pg_server_url") if request.param == "postgres" else ""
    env = BenchEnv(tmp_path, server)
    yield env, request.param
    if server:
        env.drop_databases()
