"""A real ``langgraph dev`` server for end-to-end tests, benchmarks and browser tests.

Usage::

    with langgraph_server(database_url=url, data_dir=tmp / "data") as server:
        client = get_client(url=server.base_url, headers={"X-AIMind-Session": token})

The server runs as a subprocess in its own working directory (its in-memory
thread registry, ``.langgraph_api/``, lives there) on a free loopback port,
with analytics, version checks and tracing off. It serves the repo's
``langgraph.json``: ``langgraph dev`` resolves ``./`` paths against its working
directory, so a copy with those paths made absolute is written into the
working directory. Stopping signals the whole process group.

Pass the same ``workdir`` (and database) to a second ``langgraph_server`` to
"restart" the server on the same state, or call ``server.stop(); server.start()``.
Model keys and ``AIMIND_*`` settings are not inherited from the caller's
environment (offline model, default limits); pass them in ``env=``.

As a module-scoped pytest fixture (one start per module; starts cost seconds)::

    @pytest.fixture(scope="module")
    def server(tmp_path_factory):
        root = tmp_path_factory.mktemp("server")
        url = f"sqlite:///{root / 'db' / 'aimind.sqlite'}"
        with langgraph_server(url, root / "data", workdir=root / "work") as running:
            yield running  # running.base_url, running.log_tail(), running.workdir

``tests/server/conftest.py`` has the SQLite + PostgreSQL version (``deployment``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG_FILE = "langgraph.json"
LOG_FILE = "langgraph-dev.log"
STARTUP_TIMEOUT_S = 180.0
"""2 shared cores: importing langgraph_api and the graphs can take a while."""
STOP_TIMEOUT_S = 20.0
POLL_S = 0.25
QUIET_ENV = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "PYTHONUNBUFFERED": "1",
}
_NOT_INHERITED_PREFIXES = ("AIMIND_", "OPENAI_", "LANGSMITH_", "LANGCHAIN_")
_NOT_INHERITED = frozenset({"LANGGRAPH_AUTH", "LANGSERVE_GRAPHS", "DATABASE_URI", "REDIS_URI"})
_PATH_KEYS = (("checkpointer", "path"), ("auth", "path"), ("http", "app"), ("store", "path"))


class ServerStartError(RuntimeError):
    """``langgraph dev`` exited or never answered ``/ok``; the message has its log tail."""


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _absolute(spec: str, root: Path) -> str:
    """``./graphs/chat/graph.py:graph`` → ``/repo/graphs/chat/graph.py:graph``; modules as is."""
    return str(root / spec[2:]) if spec.startswith("./") else spec


def server_config(root: Path = REPO_ROOT) -> dict[str, Any]:
    """The repo's ``langgraph.json`` with every ``./`` path made absolute."""
    config = json.loads((root / CONFIG_FILE).read_text())
    graphs = config.get("graphs", {})
    for name, spec in graphs.items():
        if isinstance(spec, str):
            graphs[name] = _absolute(spec, root)
        elif isinstance(spec, dict) and isinstance(spec.get("path"), str):
            spec["path"] = _absolute(spec["path"], root)
    for section, key in _PATH_KEYS:
        part = config.get(section)
        if isinstance(part, dict) and isinstance(part.get(key), str):
            part[key] = _absolute(part[key], root)
    config["dependencies"] = [
        str((root / dep).resolve()) if dep.startswith(".") else dep
        for dep in config.get("dependencies", [])
    ]
    return config


def _langgraph_executable() -> str:
    candidate = Path(sys.executable).with_name("langgraph")
    return str(candidate) if candidate.exists() else "langgraph"


@dataclass
class LangGraphServer:
    """A running ``langgraph dev``: its base URL, working directory and log."""

    base_url: str
    port: int
    workdir: Path
    env: dict[str, str]
    graphs: Mapping[str, str] | None = None
    """Replaces the config's graphs (absolute paths): a harness check before graphs exist."""
    config: Mapping[str, Any] | None = None
    """A whole ``langgraph.json`` of someone's own, written into ``workdir`` as given (its
    ``./`` paths are the working directory's), instead of the repo's."""
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def log_path(self) -> Path:
        return self.workdir / LOG_FILE

    def log_tail(self, chars: int = 6000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except FileNotFoundError:
            return ""

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = STARTUP_TIMEOUT_S) -> None:
        """Spawn the server in its own process group and wait for ``/ok``."""
        config_path = self.workdir / CONFIG_FILE
        config = dict(self.config) if self.config is not None else server_config()
        if self.graphs is not None:
            config["graphs"] = dict(self.graphs)
        config_path.write_text(json.dumps(config, indent=2))
        args = [
            _langgraph_executable(),
            "dev",
            "--config",
            str(config_path),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--no-browser",
            "--no-reload",
        ]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                args,
                cwd=self.workdir,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.running:
                raise ServerStartError(f"langgraph dev exited early:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/ok", timeout=2) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(POLL_S)
        raise ServerStartError(
            f"langgraph dev did not answer /ok in {timeout:.0f}s:\n{self.log_tail()}"
        )

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM the process group (the CLI and its server), SIGKILL if it lingers."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout)
        # Reap anything the CLI left behind in its group.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)


def server_env(
    database_url: str | None, data_dir: Path, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The child's environment: ours, quieted, pointed at ``database_url`` (None: the
    data folder's default database) and ``data_dir``.

    Model keys and ``AIMIND_*`` settings of the calling shell are not inherited (the
    server runs the offline model and default limits); pass them in ``extra``.
    """
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(_NOT_INHERITED_PREFIXES) and k not in _NOT_INHERITED
    }
    env.update(QUIET_ENV)
    if database_url is not None:
        env["AIMIND_DATABASE_URL"] = database_url
    env["AIMIND_DATA_DIR"] = str(data_dir)
    env.update(extra or {})
    return env


@contextlib.contextmanager
def langgraph_server(
    database_url: str | None,
    data_dir: Path | str,
    *,
    workdir: Path | str | None = None,
    port: int | None = None,
    env: Mapping[str, str] | None = None,
    graphs: Mapping[str, str] | None = None,
    config: Mapping[str, Any] | None = None,
    timeout: float = STARTUP_TIMEOUT_S,
) -> Iterator[LangGraphServer]:
    """Run ``langgraph dev`` for the ``with`` block; yields the running server.

    ``workdir`` defaults to a fresh temporary directory (removed afterwards);
    ``env`` adds to or overrides the environment (e.g. ``AIMIND_SESSION_SECRET``);
    ``config`` is a ``langgraph.json`` of one's own to serve instead of the repo's.
    """
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="aimind-lg-"))
        work = Path(workdir)
        work.mkdir(parents=True, exist_ok=True)
        data = Path(data_dir)
        data.mkdir(parents=True, exist_ok=True)
        port = port or free_port()
        server = LangGraphServer(
            base_url=f"http://127.0.0.1:{port}",
            port=port,
            workdir=work,
            env=server_env(database_url, data, env),
            graphs=graphs,
            config=config,
        )
        server.start(timeout)
        try:
            yield server
        finally:
            server.stop()
