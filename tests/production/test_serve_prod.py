"""``scripts/serve-prod.sh`` refuses, in one sentence, to start a replica it cannot run.

The script runs ``python -m aimind_memory.adapters.server.aegra.preflight`` before Aegra:
every rule is checked here on that module directly, and two refusals through the script
itself show the operator gets one sentence and exit status 1, no traceback. No server starts.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aimind_memory.adapters.errors import ConfigError
from aimind_memory.adapters.server.aegra.preflight import check, check_environment
from harness.aegra_server import SERVE_PROD, replica_env
from harness.langgraph_server import REPO_ROOT, free_port
from harness.redis_server import RedisServer
from tests.production.conftest import SECRET

REFUSAL_S = 120
"""Generous: bootstrap's check that nothing needs installing comes first."""
VALID = {
    "AIMIND_DATABASE_URL": "postgresql://aimind@db.internal/aimind",
    "REDIS_URL": "redis://redis.internal:6379/0",
    "AIMIND_SESSION_SECRET": SECRET,
}


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"AIMIND_DATABASE_URL": None}, "AIMIND_DATABASE_URL is not set"),
        ({"AIMIND_DATABASE_URL": "sqlite:///x.sqlite"}, "AIMIND_DATABASE_URL must be a postgresql"),
        ({"REDIS_URL": None}, "REDIS_URL is not set"),
        ({"REDIS_URL": "http://localhost"}, "REDIS_URL must be a redis://"),
        ({"AIMIND_SESSION_SECRET": None}, "AIMIND_SESSION_SECRET is not set"),
        ({"AIMIND_SESSION_SECRET": "too-short"}, "at least 32 characters"),
        ({"PORT": "eighty"}, "PORT must be a port number"),
        ({"AIMIND_RECENT_TURNS": "zero"}, "AIMIND_RECENT_TURNS must be a whole number"),
        ({"AIMIND_MAX_BODY_MB": "0"}, "AIMIND_MAX_BODY_MB must be a positive number"),
        ({"WORKER_DRAIN_TIMEOUT": "soon"}, "WORKER_DRAIN_TIMEOUT must be a number of seconds"),
        ({"AEGRA_THREAD_TTL": '{"strategy": "keep_latest"}'}, "AEGRA_THREAD_TTL must not use"),
        (
            {"LANGGRAPH_THREAD_TTL": '{"strategy": "keep_latest", "default_ttl": 60}'},
            "LANGGRAPH_THREAD_TTL must not use the keep_latest strategy",
        ),
    ],
)
def test_each_variable_of_spec_15_is_checked(change: dict[str, str | None], named: str) -> None:
    environ = {k: v for k, v in {**VALID, **change}.items() if v is not None}
    with pytest.raises(ConfigError) as refused:
        check_environment(environ)
    assert named in str(refused.value) and str(refused.value).endswith((".", ")."))
    check_environment({**VALID, "PORT": "8000", "HOST": "0.0.0.0"})  # the valid set passes
    for ttl in ("43200", '{"strategy": "delete", "default_ttl": 60}'):
        check_environment({**VALID, "AEGRA_THREAD_TTL": ttl})  # an operator may delete


async def test_a_database_or_redis_that_does_not_answer_is_named(
    pg_url: str, redis: RedisServer
) -> None:
    dead = f"127.0.0.1:{free_port()}"
    environ = {**VALID, "AIMIND_DATABASE_URL": pg_url, "REDIS_URL": f"redis://{dead}/0"}
    with pytest.raises(ConfigError, match="The Redis at REDIS_URL does not answer"):
        await check(environ)
    environ = {**VALID, "AIMIND_DATABASE_URL": f"postgresql://u:pw@{dead}/db"}
    with pytest.raises(ConfigError, match="The database at AIMIND_DATABASE_URL does not answer"):
        await check({**environ, "REDIS_URL": redis.url()})
    await check({**VALID, "AIMIND_DATABASE_URL": pg_url, "REDIS_URL": redis.url()})


def refusal(env: dict[str, str]) -> str:
    """The script's stderr, which must be one sentence and a refusal (exit 1)."""
    done = subprocess.run(
        ["bash", str(SERVE_PROD)], env=env, capture_output=True, text=True, timeout=REFUSAL_S
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("serve-prod: ") and lines[0].endswith((".", ")."))
    return lines[0]


def test_the_script_refuses_a_missing_variable_with_one_sentence(
    redis: RedisServer, tmp_path: Path
) -> None:
    env = replica_env("", redis.url(), SECRET, tmp_path / "data", {"PORT": str(free_port())})
    del env["AIMIND_DATABASE_URL"]
    assert "AIMIND_DATABASE_URL is not set" in refusal(env)
    assert not (tmp_path / "data").exists()  # nothing was started, nothing written


def test_aegra_started_directly_refuses_a_malformed_setting_with_one_sentence(
    tmp_path: Path,
) -> None:
    """``uvicorn aegra_api.main:app`` without the script's preflight: our app module, the
    first Aegra loads, stops it before it serves anything (never without our auth)."""
    dead = f"127.0.0.1:{free_port()}"
    env = replica_env(f"postgresql://aimind@{dead}/aimind", f"redis://{dead}/0", SECRET, tmp_path)
    env.update(
        AIMIND_ENV="production",
        AIMIND_MAX_INPUT_MESSAGES="many",
        AEGRA_CONFIG=str(REPO_ROOT / "aegra.json"),
        DATABASE_URL=env["AIMIND_DATABASE_URL"],
    )
    args = ["-m", "uvicorn", "aegra_api.main:app", "--port", str(free_port())]
    done = subprocess.run(
        [sys.executable, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=REFUSAL_S,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr + done.stdout
    sentence = "aimind: AIMIND_MAX_INPUT_MESSAGES must be a positive whole number, not 'many'."
    assert done.stderr.strip().splitlines()[-1] == sentence
