"""Debian's real ``pgbouncer`` in front of a PostgreSQL server, for the tests and the bench.

Usage::

    with pgbouncer(server_url) as bouncer:           # pool_mode = transaction
        url = bouncer.url(database_url)              # the same database, through it

Transaction pooling with a small server pool (``POOL_SIZE``): clients take turns on a
few server connections, so anything that leans on session state (a prepared
statement, a session advisory lock, a ``SET``) meets another client's session.
``scripts/bootstrap.sh`` installs the package; a missing one fails loudly. PgBouncer
refuses to run as root, so under root it runs as the owner of the server's socket
folder (the embedded server's own user), else as ``nobody``.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from harness.langgraph_server import free_port

POOL_SIZE = 4
"""Server connections per database and user: fewer than the clients' connections."""
RECOMMENDED = {"query_wait_timeout": "3", "server_login_retry": "1"}
"""What the README asks of an operator's PgBouncer, for outages: a query waits at most
3 s for PostgreSQL (default 120 s), and a failed login to it is retried after 1 s
(default 15 s)."""
START_TIMEOUT_S = 30.0
_SBIN = Path("/usr/sbin/pgbouncer")


class PgBouncerMissing(RuntimeError):
    """The ``pgbouncer`` executable is not installed."""


def executable() -> str:
    found = shutil.which("pgbouncer") or (str(_SBIN) if _SBIN.exists() else None)
    if found is None:
        raise PgBouncerMissing(
            "pgbouncer is not installed: run scripts/bootstrap.sh (it installs Debian's "
            "pgbouncer) or apt-get install pgbouncer"
        )
    return found


@dataclass
class PgBouncer:
    """A running pgbouncer: where it listens and what it logged."""

    port: int
    workdir: Path
    process: subprocess.Popen[bytes]

    def url(self, database_url: str) -> str:
        """``database_url`` (a database of the server behind it), through the bouncer."""
        parts = urlsplit(database_url)
        query = [(k, v) for k, v in parse_qsl(parts.query) if k not in ("host", "port")]
        user = parts.username or "postgres"
        return urlunsplit(
            parts._replace(netloc=f"{user}@127.0.0.1:{self.port}", query=urlencode(query))
        )

    def log_tail(self, chars: int = 4000) -> str:
        with contextlib.suppress(OSError):
            return (self.workdir / "pgbouncer.log").read_text(errors="replace")[-chars:]
        return ""


def _server_address(server_url: str) -> tuple[str, int, str | None]:
    """The server's host (a socket folder or a name), port, and the owner of that folder."""
    parts = urlsplit(server_url)
    host = dict(parse_qsl(parts.query)).get("host") or parts.hostname or "127.0.0.1"
    port = parts.port or 5432
    owner = pwd.getpwuid(os.stat(host).st_uid).pw_name if host.startswith("/") else None
    return host, port, owner


def _config(
    workdir: Path, host: str, port: int, listen: int, pool_mode: str, settings: dict[str, str]
) -> str:
    extra = "".join(f"{key} = {value}\n" for key, value in settings.items())
    return f"""[databases]
* = host={host} port={port}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {listen}
unix_socket_dir =
auth_type = trust
auth_file = {workdir / "users.txt"}
pool_mode = {pool_mode}
default_pool_size = {POOL_SIZE}
max_client_conn = 1000
logfile = {workdir / "pgbouncer.log"}
pidfile = {workdir / "pgbouncer.pid"}
{extra}"""


def _wait_listening(bouncer: PgBouncer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if bouncer.process.poll() is not None:
            raise RuntimeError(f"pgbouncer exited at start:\n{bouncer.log_tail()}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", bouncer.port), 1):
            return
        time.sleep(0.05)
    raise RuntimeError(f"pgbouncer did not listen in {timeout:.0f} s:\n{bouncer.log_tail()}")


@contextlib.contextmanager
def pgbouncer(
    server_url: str, *, pool_mode: str = "transaction", settings: dict[str, str] | None = None
) -> Iterator[PgBouncer]:
    """Run pgbouncer in front of the server of ``server_url`` for the ``with`` block
    (``settings``: more lines of its ``[pgbouncer]`` section)."""
    binary = executable()
    host, port, owner = _server_address(server_url)
    user = urlsplit(server_url).username or "postgres"
    with tempfile.TemporaryDirectory(prefix="aimind-pgbouncer-") as tmp:
        workdir = Path(tmp)
        listen = free_port()
        (workdir / "users.txt").write_text(f'"{user}" ""\n')
        config = workdir / "pgbouncer.ini"
        config.write_text(_config(workdir, host, port, listen, pool_mode, settings or {}))
        args = [binary]
        if os.geteuid() == 0:  # pgbouncer will not run as root
            run_as = owner if owner and owner != "root" else "nobody"
            entry = pwd.getpwnam(run_as)
            for path in (workdir, *workdir.iterdir()):
                os.chown(path, entry.pw_uid, entry.pw_gid)
            args += ["-u", run_as]
        process = subprocess.Popen(
            [*args, str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        bouncer = PgBouncer(listen, workdir, process)
        try:
            _wait_listening(bouncer, START_TIMEOUT_S)
            yield bouncer
        finally:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGINT)  # pgbouncer's "shut down now"
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
