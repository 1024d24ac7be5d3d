"""``scripts/serve.sh`` refuses, in a sentence, to start where it would clash.

``langgraph dev`` moves to a random port when its port is taken; the script
checks first, before it installs or starts anything. Neither case gets as far as
``langgraph dev``, so these tests start no server.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
from pathlib import Path

from harness.langgraph_server import REPO_ROOT, free_port

SERVE = REPO_ROOT / "scripts" / "serve.sh"
REFUSAL_S = 60
"""Generous: a refusal comes before bootstrap, in well under a second."""


def serve(port: int, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIMIND_")}
    env.update(PORT=str(port), AIMIND_DATA_DIR=str(data_dir))
    process = subprocess.Popen(
        ["bash", str(SERVE)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=REFUSAL_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        raise AssertionError(f"serve.sh did not refuse; it went on:\n{out}\n{err}") from None
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def test_a_taken_port_is_an_error_with_a_sentence(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = serve(port, tmp_path / "data")
    assert refused.returncode == 1
    assert refused.stderr.startswith(f"Port {port} on 127.0.0.1 is not free")
    assert "PORT=" in refused.stderr and refused.stderr.strip().endswith("serve.sh")
    assert not (tmp_path / "data").exists()  # nothing started, nothing written


def test_a_second_server_on_the_same_data_folder_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with (data / "server.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a running serve.sh holds
        refused = serve(free_port(), data)
    assert refused.returncode == 1
    assert refused.stderr.startswith(f"Another server is already running on {data}/")
    assert "AIMIND_DATA_DIR=" in refused.stderr
    assert sorted(p.name for p in data.iterdir()) == ["server.lock"]  # nothing else written


BOOTSTRAP = REPO_ROOT / "scripts" / "bootstrap.sh"
STAMP = REPO_ROOT / ".venv" / ".aimind-installed"
BOOTSTRAP_S = 900
"""The first call may install everything (minutes on 2 cores); the second must not."""


def bootstrap() -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AIMIND_SKIP_BROWSER_INSTALL": "1"}
    return subprocess.run(
        ["bash", str(BOOTSTRAP)], env=env, capture_output=True, text=True, timeout=BOOTSTRAP_S
    )


def test_a_second_bootstrap_does_no_pip_work() -> None:
    """What makes a restart of serve.sh fast: with the lock, pyproject.toml and Python
    unchanged, bootstrap says nothing and leaves the install (and its stamp) alone."""
    assert bootstrap().returncode == 0
    stamp = STAMP.stat()
    again = bootstrap()
    assert again.returncode == 0, again.stderr
    assert (again.stdout, again.stderr) == ("", "")
    assert STAMP.stat().st_mtime_ns == stamp.st_mtime_ns


FAKE_PYTHON = """#!/usr/bin/env bash
# Python as bootstrap calls it: 3.12+, a version line, and pip recorded (failing on demand).
case "$1" in
  -VV) echo "Python 3.13.0 (stand-in)" ;;
  -m) echo "$*" >>"$(dirname "$0")/../pip-calls"; echo "Collecting demo==1.0 (from -r x)"
      [ ! -e "$(dirname "$0")/../pip-fails" ] ;;
esac
"""


def stand_in_checkout(tmp_path: Path) -> Path:
    """The real bootstrap script and locks in a folder whose ``.venv`` Python records pip's
    calls instead of installing; the file it records them in."""
    (tmp_path / "scripts").mkdir()
    for name in LOCK_INPUTS:
        (tmp_path / name).write_bytes((REPO_ROOT / name).read_bytes())
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    return tmp_path / ".venv" / "pip-calls"


LOCK_INPUTS = (
    "scripts/bootstrap.sh",
    "requirements.lock",
    "requirements-serve.lock",
    "pyproject.toml",
)


def test_serving_installs_its_own_lock_and_the_tests_add_the_rest(tmp_path: Path) -> None:
    """``serve.sh`` (``bootstrap.sh serve``) installs requirements-serve.lock, saying so
    package by package, and nothing for the tests (no browser, Redis, PgBouncer or Node
    checked); ``test.sh`` then installs the full lock; after that serving installs nothing."""
    calls = stand_in_checkout(tmp_path)

    def start(*which: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
        calls.unlink(missing_ok=True)
        done = subprocess.run(
            ["bash", str(tmp_path / "scripts" / "bootstrap.sh"), *which],
            env={**os.environ, "AIMIND_SKIP_BROWSER_INSTALL": "1", "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=REFUSAL_S,
        )
        return done, calls.read_text().splitlines() if calls.exists() else []

    served, pip = start("serve")
    assert served.returncode == 0, served.stderr
    assert "Installing what serving needs" in served.stdout and "installed in" in served.stdout
    total = sum(1 for line in (REPO_ROOT / "requirements-serve.lock").open() if line[0].isalnum())
    assert f"[  1/{total}] demo==1.0" in served.stdout  # one line per package it fetches
    assert pip == [
        "-m pip install --require-hashes -r requirements-serve.lock",
        "-m pip install --no-deps -e .",
    ]
    assert start("serve")[1] == []  # a restart installs nothing
    tested, pip = start()
    assert tested.returncode == 0, tested.stderr
    assert pip[0] == "-m pip install --require-hashes -r requirements.lock"
    (tmp_path / ".venv" / ".aimind-installed-serve").unlink()
    again, pip = start("serve")  # everything is installed: serving needs nothing more
    assert (again.returncode, again.stdout, pip) == (0, "", [])
    unknown, _ = start("everything")
    assert unknown.returncode == 2 and "unknown set" in unknown.stderr


def test_bootstrap_installs_only_when_the_lock_changed(tmp_path: Path) -> None:
    """A replica restart (``serve-prod.sh``, ``serve.sh``) installs nothing while the stamp
    matches the lock; a missing or stale stamp installs, and a failed install leaves the
    stamp stale, so the next start tries again. The real script on a copy of the lock, with a
    stand-in interpreter that records pip's calls instead of installing."""
    calls, stamp = stand_in_checkout(tmp_path), tmp_path / ".venv" / ".aimind-installed"

    def start() -> tuple[subprocess.CompletedProcess[str], list[str]]:
        calls.unlink(missing_ok=True)
        done = subprocess.run(
            ["bash", str(tmp_path / "scripts" / "bootstrap.sh")],
            env={**os.environ, "AIMIND_SKIP_BROWSER_INSTALL": "1"},
            capture_output=True,
            text=True,
            timeout=REFUSAL_S,
        )
        return done, calls.read_text().splitlines() if calls.exists() else []

    first, pip = start()  # no stamp: a fresh machine
    assert first.returncode == 0, first.stderr
    assert "Installing the locked dependencies" in first.stdout
    assert pip == [
        "-m pip install --require-hashes -r requirements.lock",
        "-m pip install --no-deps -e .",
    ]
    written = stamp.read_text()

    again, pip = start()  # a restart: nothing to do, nothing said
    assert (again.returncode, again.stdout, again.stderr, pip) == (0, "", "", [])
    assert stamp.read_text() == written

    with (tmp_path / "requirements.lock").open("a") as lock:
        lock.write("# a new pin\n")
    (tmp_path / ".venv" / "pip-fails").touch()
    failed, pip = start()  # the lock changed and the install fails: said, stamp left stale
    assert failed.returncode == 1 and "installing the dependencies failed" in failed.stderr
    assert len(pip) == 1 and stamp.read_text() == written

    (tmp_path / ".venv" / "pip-fails").unlink()
    retried, pip = start()  # the next start installs the new lock
    assert retried.returncode == 0 and len(pip) == 2, retried.stderr
    assert stamp.read_text() not in ("", written)
    assert start()[1] == []
