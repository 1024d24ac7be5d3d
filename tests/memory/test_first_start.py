"""Several processes opening memory at once on a fresh database all come up (contract §10).

On Postgres the stock migrations build indexes with ``CREATE INDEX CONCURRENTLY``,
which waits for every transaction holding a snapshot, and a process queued in
``pg_advisory_lock`` holds one while it waits for the process running them: with
several replicas starting together, one came up and the others died of a
deadlock. Here real processes, imports done, are told to open memory on a new
database at the same moment, several times over; through PgBouncer in transaction
pooling too (no session lock survives a transaction there); a new SQLite file too.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from pathlib import Path

import psycopg

from harness.pgbouncer import PgBouncer
from tests.conftest import with_database

ROOT = Path(__file__).resolve().parents[2]
PROCESSES = 4
TRIALS = 3


async def _worker() -> asyncio.subprocess.Process:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.memory.open_worker",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env=dict(os.environ),
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 120)
    assert line.strip() == b"ready", line
    return proc


async def _start_together(workers: list[asyncio.subprocess.Process], url: str) -> list[dict]:
    """Every worker opens memory on ``url`` at the same moment; their answers."""
    line = url.encode() + b"\n"
    for proc in workers:  # all at once: one write each, no await between
        assert proc.stdin is not None
        proc.stdin.write(line)
    await asyncio.gather(*(p.stdin.drain() for p in workers if p.stdin))
    lines = await asyncio.gather(
        *(asyncio.wait_for(p.stdout.readline(), 120) for p in workers if p.stdout)
    )
    return [json.loads(answer) for answer in lines]


async def _stop(workers: list[asyncio.subprocess.Process]) -> None:
    for proc in workers:
        if proc.stdin:
            proc.stdin.close()
    await asyncio.gather(*(asyncio.wait_for(p.wait(), 60) for p in workers))


async def _fresh_databases_together(pg_server_url: str, through: PgBouncer | None) -> list:
    """``TRIALS`` times: a new database, every worker opening memory on it at once."""
    workers = await asyncio.gather(*(_worker() for _ in range(PROCESSES)))
    names = [f"t_first_{uuid.uuid4().hex[:12]}" for _ in range(TRIALS)]
    answers = []
    try:
        for name in names:
            with psycopg.connect(pg_server_url, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}"')
            url = with_database(pg_server_url, name)
            answers.append(await _start_together(workers, through.url(url) if through else url))
    finally:
        await _stop(workers)
        with psycopg.connect(pg_server_url, autocommit=True) as conn:
            for name in names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return answers


async def test_processes_starting_together_on_a_fresh_postgres_all_come_up(
    pg_server_url: str,
) -> None:
    answers = await _fresh_databases_together(pg_server_url, None)
    assert answers == [[{"ok": True}] * PROCESSES] * TRIALS


async def test_processes_starting_together_through_pgbouncer_all_come_up(
    pg_server_url: str, pg_bouncer: PgBouncer
) -> None:
    """Transaction pooling: no prepared statement and no session lock may outlive a
    transaction (they once made two of three library processes crash at start)."""
    answers = await _fresh_databases_together(pg_server_url, pg_bouncer)
    assert answers == [[{"ok": True}] * PROCESSES] * TRIALS


async def test_processes_starting_together_on_a_new_sqlite_file_all_come_up(
    tmp_path: Path,
) -> None:
    workers = await asyncio.gather(*(_worker() for _ in range(PROCESSES)))
    try:
        answers = [
            await _start_together(workers, f"sqlite:///{tmp_path / str(trial) / 'aimind.sqlite'}")
            for trial in range(TRIALS)
        ]
    finally:
        await _stop(workers)
    assert answers == [[{"ok": True}] * PROCESSES] * TRIALS
