"""Start-up rules of the served runtime (contract §8, §12.6)."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from harness.langgraph_server import (
    ServerStartError,
    free_port,
    langgraph_server,
    server_config,
    server_env,
)

pytestmark = pytest.mark.e2e


def test_production_without_a_secret_refuses_to_start_with_a_clear_message(
    tmp_path: Path,
) -> None:
    with (
        pytest.raises(ServerStartError) as refused,
        langgraph_server(
            f"sqlite:///{tmp_path / 'db' / 'aimind.sqlite'}",
            tmp_path / "data",
            env={"AIMIND_ENV": "production"},
        ),
    ):
        pass
    message = ANSI.sub("", str(refused.value))
    assert "exited early" in message
    assert "aimind: AIMIND_SESSION_SECRET is not set. In production" in message
    assert "Traceback" not in message
    assert not (tmp_path / "data" / "session-secret").exists()  # no dev secret in production


def test_production_with_memory_on_sqlite_refuses_to_start_with_a_clear_message(
    tmp_path: Path,
) -> None:
    """A production server whose memory would sit in a SQLite file on this machine (the
    default when ``AIMIND_DATABASE_URL`` is forgotten) stops at start, saying what to set,
    before it could take a turn no other replica or restart would see."""
    secret = "s" * 48
    with (
        pytest.raises(ServerStartError) as refused,
        langgraph_server(
            None,
            tmp_path / "data",
            env={"AIMIND_ENV": "production", "AIMIND_SESSION_SECRET": secret},
        ),
    ):
        pass
    message = ANSI.sub("", str(refused.value))
    assert "exited early" in message
    assert (
        "aimind: AIMIND_ENV is production but AIMIND_DATABASE_URL is not a postgresql:// URL"
        in message
    )
    assert "Traceback" not in message and secret not in message
    assert not list((tmp_path / "data").glob("*.sqlite*"))  # nothing was written there


def start_as_a_user_does(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``langgraph dev`` as a user starts it in their own folder: reloading (a supervisor
    process and a worker), the repository's ``langgraph.json``. Returns once it exits; the
    timeout only bounds a server that never would."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "langgraph.json").write_text(json.dumps(server_config()))
    command = [str(Path(sys.executable).with_name("langgraph")), "dev", "--no-browser"]
    command += ["--host", "127.0.0.1", "--port", str(free_port())]
    return subprocess.run(
        command,
        cwd=work,
        env=server_env(None, tmp_path / "data", env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=START_REFUSAL_S,
    )


START_REFUSAL_S = 180
"""Generous, for a loaded machine: the refusal comes as the server loads its auth."""


def test_a_reloading_server_in_production_without_postgresql_exits_non_zero(
    tmp_path: Path,
) -> None:
    """A reloading server runs our code in a worker under a supervisor: the worker's refusal
    used to leave the supervisor up, serving nothing. Now the whole start fails."""
    done = start_as_a_user_does(
        tmp_path, {"AIMIND_ENV": "production", "AIMIND_SESSION_SECRET": "s" * 48}
    )
    output = ANSI.sub("", done.stdout + done.stderr)
    assert done.returncode != 0, output[-3000:]
    assert "aimind: AIMIND_ENV is production but AIMIND_DATABASE_URL is not a postgresql://" in (
        output
    )
    assert "Traceback" not in output


def test_an_unreachable_database_stops_the_server_with_one_sentence(tmp_path: Path) -> None:
    """The server's checkpointer opens memory's database as it starts: one that does not
    answer stops it with the sentence naming the setting and why, not a traceback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # released: nothing listens there
    url = f"postgresql://nobody:hunter2@127.0.0.1:{port}/aimind"
    with (
        pytest.raises(ServerStartError) as refused,
        langgraph_server(url, tmp_path / "data"),
    ):
        pass
    log = ANSI.sub("", str(refused.value))
    assert "exited early" in log
    assert (
        "aimind: AIMIND_DATABASE_URL (or the URL given in its place) names a PostgreSQL "
        "database memory could not reach: nothing accepts connections at its host and port."
    ) in log
    assert "Traceback" not in log and "hunter2" not in log and "nobody" not in log


def test_a_malformed_setting_stops_the_server_with_one_sentence(tmp_path: Path) -> None:
    """Checked before anything reads a setting (``adapters.server.settings_check``, the
    first import of our auth and app): one sentence naming the variable, no traceback."""
    with (
        pytest.raises(ServerStartError) as refused,
        langgraph_server(
            f"sqlite:///{tmp_path / 'db' / 'aimind.sqlite'}",
            tmp_path / "data",
            env={"AIMIND_RECENT_TURNS": "zero"},
        ),
    ):
        pass
    log = ANSI.sub("", str(refused.value))
    assert "exited early" in log
    assert "aimind: AIMIND_RECENT_TURNS must be a whole number, not 'zero'.\n" in log
    assert "Traceback" not in log
    assert not (tmp_path / "data" / "session-secret").exists()  # stopped before the secret


ANSI = re.compile(r"\x1b\[[0-9;]*m")
ALARMING = re.compile(r"Traceback|\[(warning|error|critical)\s*\]|Warning:|WARNING|ERROR")
DEV_SECRET_NOTICE = "AIMIND_SESSION_SECRET is not set: generated a development session secret"
"""The one warning a first start gives, by design (contract §8): said once, when it is made."""


SLOW_MACHINE = re.compile(r"exceeded the expected startup time")
"""langgraph dev's warning when importing the app or a graph takes over 3 s: a measure of
the machine's load (the suite runs two workers on two cores), not of this project; the
app's own import takes about 1.5 s on an idle machine here."""


def alarming(log: str) -> list[str]:
    return [
        line
        for line in ANSI.sub("", log).splitlines()
        if ALARMING.search(line) and not SLOW_MACHINE.search(line)
    ]


def first_hour(base_url: str) -> None:
    """What a newcomer's first minutes send: the page and its reads, a chat turn (a
    stateless run), a /tasklist review resumed, a /delivery run."""
    # what the page's fetch sends with every change (contract §8: no cross-site writes)
    with httpx.Client(base_url=base_url, timeout=120, headers={"Origin": base_url}) as client:
        assert client.get("/").status_code == 200
        assert client.get("/static/app.js").status_code == 200
        assert client.get("/api/chat/thread").status_code == 200  # mints the session cookie
        assert client.get("/api/chat/memory").status_code == 200
        found = client.post("/threads/search", json={"status": "interrupted", "limit": 1})
        assert found.status_code == 200
        turn = {"messages": [{"role": "user", "content": "Hello, what can you do?"}]}
        chat = client.post("/runs/stream", json={"assistant_id": "chat", "input": turn})
        assert chat.status_code == 200 and "event: error" not in chat.text
        thread = client.post("/threads", json={}).json()["thread_id"]
        goal = {"messages": [{"role": "user", "content": "plan the product launch for spring"}]}
        runs = f"/threads/{thread}/runs/wait"
        review = client.post(runs, json={"assistant_id": "tasklist-agent", "input": goal})
        assert "__interrupt__" in review.json()
        approve = {"resume": {"decisions": [{"type": "approve"}]}}
        final = client.post(runs, json={"assistant_id": "tasklist-agent", "command": approve})
        assert final.json()["status"] == "final"
        report = client.post(
            "/runs/wait",
            json={"assistant_id": "delivery-chain", "input": {"requirement": "A CSV export."}},
        )
        assert report.json()["status"] == "completed"


def test_a_normal_start_and_first_use_log_no_traceback_and_no_warning(tmp_path: Path) -> None:
    """The log a newcomer reads: the development secret is announced once, on the first
    start; nothing else is a warning, an error or a traceback — neither at start nor while
    the page, a chat turn, a review and a delivery run are used."""
    with langgraph_server(
        f"sqlite:///{tmp_path / 'db' / 'aimind.sqlite'}",
        tmp_path / "data",
        workdir=tmp_path / "work",
    ) as server:
        first_hour(server.base_url)
        first = server.log_tail(1_000_000)
        server.stop()
        server.start()
        first_hour(server.base_url)
        second = server.log_tail(1_000_000)[len(first) :]
    assert alarming(first) == [line for line in alarming(first) if DEV_SECRET_NOTICE in line]
    assert len(alarming(first)) == 1, alarming(first)
    assert "Application started up" in second
    assert alarming(second) == []
