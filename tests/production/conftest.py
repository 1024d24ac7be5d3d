"""Production replicas for this folder: ``scripts/serve-prod.sh`` on a real PostgreSQL + Redis.

``cluster`` is started once for the folder (two Aegra replicas cost tens of seconds
on 2 shared cores): a fresh database on the session's PostgreSQL, a real
``redis-server``, two replicas started at the same moment. Both share the secret,
so one token is one session on either. The memory window is widened so every turn
a test sends stays verbatim in memory (no compaction to account for), and Aegra's
run leases are shortened so a run a killed replica held is taken over in seconds,
not the default half minute (``test_sigkill``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from harness.aegra_server import Replica, aegra_replicas, replica_env
from harness.redis_server import RedisServer, redis_server
from tests.conftest import fresh_database

SECRET = "production-suite-secret-" + "p" * 24
MEMORY_ENV = {
    "AIMIND_RECENT_TURNS": "12",
    "AIMIND_KEEP_TURNS": "6",
    "AIMIND_SUMMARY_CHARS": "100000",
}
FAST_RECOVERY = {
    "HEARTBEAT_INTERVAL_SECONDS": "1",
    "LEASE_DURATION_SECONDS": "4",
    "REAPER_INTERVAL_SECONDS": "1",
    "STUCK_PENDING_THRESHOLD_SECONDS": "5",
}
"""Aegra's lease knobs: a dead replica's run is requeued ~5 s after its last heartbeat
(default: ~45 s), one it had taken off the queue but not started after 5 s (default 120)."""
TIMEOUT = httpx.Timeout(120.0)


def human(text: str, message_id: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "user", "content": text}
    if message_id:
        message["id"] = message_id
    return {"messages": [message]}


@dataclass
class Cluster:
    """Replicas on one database and one Redis, and how to start one more like them."""

    replicas: list[Replica]
    database_url: str
    redis: RedisServer
    root: Path
    env: Mapping[str, str]

    def client(self, index: int, token: str | None) -> LangGraphClient:
        """The SDK on replica ``index`` as session ``token`` (sent as ``api_key``)."""
        return get_client(url=self.replicas[index].base_url, api_key=token, timeout=TIMEOUT)

    def http(self, index: int) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.replicas[index].base_url, timeout=TIMEOUT)

    def replica_env(self, name: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment of one more replica of this cluster (its own data folder)."""
        return replica_env(
            self.database_url,
            self.redis.url(),
            SECRET,
            self.root / f"data-{name}",
            {**self.env, **(extra or {})},
        )


@pytest.fixture(scope="package")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    with redis_server(tmp_path_factory.mktemp("redis")) as running:
        yield running


@pytest.fixture(scope="package")
def cluster(
    pg_server_url: str, redis: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """Two replicas of ``serve-prod.sh`` started at the same moment on a fresh database."""
    root = tmp_path_factory.mktemp("cluster")
    extra = {**MEMORY_ENV, **FAST_RECOVERY}
    with fresh_database(pg_server_url, "prod") as url:
        envs = [replica_env(url, redis.url(), SECRET, root / f"data{i}", extra) for i in range(2)]
        with aegra_replicas(envs, root) as replicas:
            yield Cluster(replicas, url, redis, root, extra)


@pytest.fixture
def memory_env(cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> Cluster:
    """The test process reads memory as the replicas do: their database, secret and limits."""
    for key, value in MEMORY_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("AIMIND_SESSION_SECRET", SECRET)
    monkeypatch.setenv("AIMIND_DATABASE_URL", cluster.database_url)
    return cluster
