"""Production replicas for end-to-end tests and benchmarks: ``bash scripts/serve-prod.sh``.

Usage::

    with redis_server(tmp) as redis:
        env = replica_env(pg_url, redis.url(), secret, tmp / "data-a")
        with aegra_replicas([env, env_b]) as (a, b):   # started at the same moment
            client = get_client(url=a.base_url, api_key=token)

Each replica is the real start script on a free loopback port, in its own
process group (the script ``exec``s uvicorn, so the group is the server);
``stop`` sends SIGTERM and returns how long the exit took, ``kill`` sends SIGKILL.
Model keys and ``AIMIND_*`` settings of the calling shell are not inherited.

A ``Replica`` with a ``command`` and ``cwd`` of its own runs any start of Aegra the same
way: a user's folder started as ``docs/guides/own-agent.md`` says
(``tests/server/test_own_agent_aegra.py``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.langgraph_server import REPO_ROOT, free_port, server_env

SERVE_PROD = REPO_ROOT / "scripts" / "serve-prod.sh"
HEALTH_PATH = "/health"
STARTUP_TIMEOUT_S = 180.0
"""2 shared cores, two replicas importing Aegra and the graphs at once."""
STOP_TIMEOUT_S = 30.0
POLL_S = 0.25
LOG_FILE = "serve-prod.log"
_AEGRA_SETTINGS = ("DATABASE_URL", "REDIS_URL", "PORT", "HOST", "AEGRA_CONFIG", "ENV_MODE")
"""Aegra reads these from the environment: the caller's must not leak into a replica."""


class ReplicaStartError(RuntimeError):
    """The replica exited or never answered ``/health``; the message has its log tail."""


def aegra_env(data_dir: Path) -> dict[str, str]:
    """The calling environment without its model keys, ``AIMIND_*`` and Aegra settings, the
    data folder ``data_dir``: what a start command adds its own variables to."""
    return {k: v for k, v in server_env(None, data_dir).items() if k not in _AEGRA_SETTINGS}


def replica_env(
    database_url: str,
    redis_url: str,
    secret: str,
    data_dir: Path,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """A replica's environment: the variables of contract §15 (port chosen at start) + ``extra``."""
    env = aegra_env(data_dir)
    env.update(AIMIND_DATABASE_URL=database_url, REDIS_URL=redis_url)
    env.update(AIMIND_SESSION_SECRET=secret, HOST="127.0.0.1")
    env.update(extra or {})
    return env


@dataclass
class Replica:
    """One running ``serve-prod.sh`` (or ``command``, started in ``cwd``): its URL,
    environment and log."""

    env: dict[str, str]
    log_path: Path
    port: int = field(default_factory=free_port)
    command: Sequence[str] = ("bash", str(SERVE_PROD))
    cwd: Path | None = None
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, chars: int = 6000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except FileNotFoundError:
            return ""

    def spawn(self) -> None:
        """Start the script without waiting (``wait_ready`` waits)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        Path(self.env["AIMIND_DATA_DIR"]).mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                list(self.command),
                cwd=self.cwd,
                env={**self.env, "PORT": str(self.port)},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.running:
                raise ReplicaStartError(f"the server exited early:\n{self.log_tail()}")
            try:
                url = f"{self.base_url}{HEALTH_PATH}"
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(POLL_S)
        raise ReplicaStartError(f"no {HEALTH_PATH} in {timeout:.0f}s:\n{self.log_tail()}")

    def _signal(self, sig: signal.Signals) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, sig)

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> float:
        """SIGTERM, as an orchestrator stops a replica; seconds until it exited."""
        if not self.running:
            return 0.0
        assert self.process is not None
        started = time.monotonic()
        self._signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        return time.monotonic() - started

    def kill(self) -> None:
        """SIGKILL the replica (a crash): nothing of it runs on."""
        self._signal(signal.SIGKILL)
        if self.process is not None:
            self.process.wait(STOP_TIMEOUT_S)


@contextlib.contextmanager
def aegra_replicas(
    envs: Sequence[Mapping[str, str]], log_dir: Path, timeout: float = STARTUP_TIMEOUT_S
) -> Iterator[list[Replica]]:
    """Start one replica per environment at the same moment; stop them all afterwards."""
    replicas = [
        Replica(dict(env), log_dir / f"replica{i}" / LOG_FILE) for i, env in enumerate(envs)
    ]
    with started_together(replicas, timeout):
        yield replicas


@contextlib.contextmanager
def started_together(
    replicas: Sequence[Replica], timeout: float = STARTUP_TIMEOUT_S
) -> Iterator[None]:
    """Spawn every replica, wait until each answers ``/health``; stop them all afterwards."""
    try:
        for replica in replicas:
            replica.spawn()
        for replica in replicas:
            replica.wait_ready(timeout)
        yield
    finally:
        for replica in replicas:
            replica.stop()
