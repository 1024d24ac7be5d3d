"""Postgres: several processes opening memory at once on a fresh database all come up (SPEC §10).

The stock migrations build indexes with ``CREATE INDEX CONCURRENTLY``, which waits
for every transaction holding a snapshot, and a process queued in
``pg_advisory_lock`` holds one while it waits for the process running them: with
several replicas starting together, one came up and the others died of a
deadlock. Here real processes, imports done, are told to open memory on a new
database at the same moment, several times over.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from pathlib import Path

import psycopg

from tests.conftest import with_database

ROOT = Path(__file__).resolve().parents[2]
PROCESSES = 4
TRIALS = 4


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


async def test_processes_starting_together_on_a_fresh_database_all_come_up(
    pg_server_url: str,
) -> None:
    workers = await asyncio.gather(*(_worker() for _ in range(PROCESSES)))
    names = [f"t_first_{uuid.uuid4().hex[:12]}" for _ in range(TRIALS)]
    answers = []
    try:
        for name in names:
            with psycopg.connect(pg_server_url, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}"')
            url = with_database(pg_server_url, name).encode() + b"\n"
            for proc in workers:  # all at once: one write each, no await between
                assert proc.stdin is not None
                proc.stdin.write(url)
            await asyncio.gather(*(p.stdin.drain() for p in workers if p.stdin))
            lines = await asyncio.gather(
                *(asyncio.wait_for(p.stdout.readline(), 120) for p in workers if p.stdout)
            )
            answers.append([json.loads(line) for line in lines])
    finally:
        for proc in workers:
            if proc.stdin:
                proc.stdin.close()
        await asyncio.gather(*(asyncio.wait_for(p.wait(), 60) for p in workers))
        with psycopg.connect(pg_server_url, autocommit=True) as conn:
            for name in names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    assert answers == [[{"ok": True}] * PROCESSES] * TRIALS
