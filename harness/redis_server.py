"""A real ``redis-server`` (Debian's) on a free loopback port, for the production replicas.

Nothing on disk: no RDB snapshots, no append-only file. Stopped with SIGTERM.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.langgraph_server import free_port

REDIS_SERVER = "redis-server"
STARTUP_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0


class RedisStartError(RuntimeError):
    """``redis-server`` is missing, exited, or never accepted a connection."""


@dataclass
class RedisServer:
    port: int
    process: subprocess.Popen[bytes]

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextlib.contextmanager
def redis_server(log_dir: Path) -> Iterator[RedisServer]:
    """Run ``redis-server`` for the ``with`` block; its log goes to ``log_dir/redis.log``."""
    executable = shutil.which(REDIS_SERVER)
    if executable is None:
        raise RedisStartError("redis-server is not installed (scripts/bootstrap.sh installs it)")
    port = free_port()
    log_dir.mkdir(parents=True, exist_ok=True)
    args = [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    args += ["--appendonly", "no", "--dir", str(log_dir), "--logfile", str(log_dir / "redis.log")]
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not _answers_ping(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RedisStartError(f"redis-server did not start on port {port}")
            time.sleep(0.05)
        yield RedisServer(port, process)
    finally:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT_S)
