"""Importing the servers' modules writes no file (the session secret is made on first use).

A test run collects these modules, a tool imports them to read a docstring, a server
loads them before it knows it will serve: none of that may leave a development secret in
the data folder. The secret is made when a server first needs it — its app's start-up or
its first request (``adapters.server.session_token.server_secret``) — and a production
server without one still stops as it loads, in one sentence, writing nothing.

Each case is a fresh Python (a module is imported once per process) with its own data
folder, started in an empty folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aimind_memory.adapters.engine import (
    API_VARIANT_ENV,
    DEV_VARIANT,
    INMEM_EDITION,
    RUNTIME_EDITION_ENV,
)
from aimind_memory.memory.session import SECRET_FILE

IMPORT_S = 120
LANGGRAPH_DEV_MARKS = {API_VARIANT_ENV: DEV_VARIANT, RUNTIME_EDITION_ENV: INMEM_EDITION}
FIRST_USE = (
    "import asyncio; from aimind_memory.adapters.server.session_token import server_secret; "
    "print(len(asyncio.run(server_secret())))"
)


def _python(code: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("AIMIND_")}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=IMPORT_S,
        check=False,
    )


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize(
    ("module", "marks"),
    [
        ("aimind_memory.adapters.server.auth", {}),
        ("aimind_memory.adapters.server.app", {}),
        ("aimind_memory.server", {}),
        (
            "aimind_memory.graphs.chat.graph",
            LANGGRAPH_DEV_MARKS,
        ),  # Studio's identity: on first use too
    ],
)
def test_importing_a_server_module_writes_nothing(
    tmp_path: Path, module: str, marks: dict[str, str]
) -> None:
    data = tmp_path / "data"
    done = _python(f"import {module}", tmp_path, {"AIMIND_DATA_DIR": str(data), **marks})
    assert done.returncode == 0, done.stderr[-2000:]
    assert _tree(tmp_path) == []  # no data folder, no secret, nothing in the current folder
    assert "generated a development session secret" not in done.stderr  # nor said it was

    made = _python(FIRST_USE, tmp_path, {"AIMIND_DATA_DIR": str(data)})
    assert made.returncode == 0, made.stderr[-2000:]
    assert _tree(tmp_path) == ["data", f"data/{SECRET_FILE}"]  # the first use makes it
    assert int(made.stdout) >= 32


def test_production_without_a_secret_stops_as_the_auth_loads_writing_nothing(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    env = {"AIMIND_DATA_DIR": str(data), "AIMIND_ENV": "production"}
    done = _python("import aimind_memory.adapters.server.auth", tmp_path, env)
    assert done.returncode == 1
    assert done.stderr.startswith("aimind: AIMIND_SESSION_SECRET is not set. In production")
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert _tree(tmp_path) == []
