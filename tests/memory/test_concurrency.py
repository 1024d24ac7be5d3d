"""Writes to one memory thread are serialized (contract §4, §12.4): no turn is ever lost.

Every turn is accounted for: it is in the window, or the compactor folded it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from aimind_memory.memory import open_memory

from .helpers import CountingCompactor, assert_bounds, new_token, turn, user_texts

ROOT = Path(__file__).resolve().parents[2]


async def test_thirty_concurrent_turns_on_one_session(db_url: str) -> None:
    compactor = CountingCompactor()
    token = new_token()
    expected = {f"parallel {i}" for i in range(30)}
    async with open_memory(db_url, compactor=compactor) as mem:
        results = await asyncio.gather(
            *(mem.append_turn(token, turn(f"parallel {i}", f"reply {i}")) for i in range(30))
        )
        state = await mem.load(token)
    assert all(r.written for r in results)
    assert_bounds(state)
    assert len(state.messages) // 2 + compactor.folded_turns == 30
    accounted = user_texts(state) + compactor.folded_user_texts
    assert sorted(accounted) == sorted(expected)  # each exactly once
    # every fold after the first saw the previous fold's summary (no stale read)
    assert len(compactor.requests) >= 8
    assert all(r.summary for r in compactor.requests[1:])


async def test_concurrent_sessions_do_not_mix(db_url: str) -> None:
    tokens = [new_token() for _ in range(5)]
    async with open_memory(db_url) as mem:
        await asyncio.gather(
            *(mem.append_turn(t, turn(f"{t} q{i}", f"a{i}")) for i in range(6) for t in tokens)
        )
        for t in tokens:
            state = await mem.load(t)
            assert_bounds(state)
            assert all(text.startswith(t) for text in user_texts(state))


async def test_many_sessions_writing_and_pruning_at_once(db_url: str) -> None:
    """Sessions cross their prune points together; no write is reported lost or lost."""
    tokens = [new_token() for _ in range(8)]
    async with open_memory(db_url) as mem:
        for i in range(17):  # 17 writes: each session prunes at steps 8 and 16
            results = await asyncio.gather(
                *(mem.append_turn(t, turn(f"{t} q{i}", f"a{i}")) for t in tokens)
            )
            assert all(r.written for r in results), [r.skipped for r in results]
        for t in tokens:
            state = await mem.load(t)
            assert_bounds(state)
            assert user_texts(state) == [f"{t} q{i}" for i in (15, 16)]  # folded at the 17th


async def _worker(url: str, token: str, prefix: str, n: int) -> asyncio.subprocess.Process:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.memory.append_worker",
        url,
        token,
        prefix,
        str(n),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env=dict(os.environ),
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 120)
    assert line.strip() == b"ready", line
    return proc


async def _run_workers(url: str, plan: dict[str, tuple[str, ...]], n: int) -> dict[str, list]:
    """Per session token, processes named in ``plan`` each append ``n`` turns at once;
    every process starts together. Their reports, per token."""
    procs = await asyncio.gather(
        *(_worker(url, token, name, n) for token, names in plan.items() for name in names)
    )
    for proc in procs:  # start all at once
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")
        await proc.stdin.drain()
    reports: dict[str, list] = {token: [] for token in plan}
    tokens = [token for token, names in plan.items() for _ in names]
    for token, proc in zip(tokens, procs, strict=True):
        out, _ = await asyncio.wait_for(proc.communicate(), 300)
        assert proc.returncode == 0
        reports[token].append(json.loads(out.decode().strip().splitlines()[-1]))
    return reports


async def _assert_every_turn_kept(
    url: str, token: str, names: tuple[str, ...], reports: list, n: int
) -> None:
    """Each process wrote all its turns, and each is in the window or was folded once."""
    async with open_memory(url) as mem:
        state = await mem.load(token)
    assert [r["written"] for r in reports] == [n] * len(names), reports
    assert_bounds(state)
    folded = [text for r in reports for text in r["folded"]]
    expected = [f"{name} {i}" for name in names for i in range(n)]
    assert sorted(user_texts(state) + folded) == sorted(expected)
    assert len(state.messages) // 2 + len(folded) == len(expected)


async def test_two_os_processes_on_one_session_lose_no_turn(db_url: str) -> None:
    token = new_token()
    # both workers share AIMIND_DATA_DIR, so the same dev secret (they may create it together)
    names = ("alpha", "beta")
    reports = await _run_workers(db_url, {token: names}, 15)
    await _assert_every_turn_kept(db_url, token, names, reports[token], 15)


async def test_sessions_of_several_processes_through_pgbouncer_lose_no_turn(
    bouncer_url: str,
) -> None:
    """PgBouncer in transaction pooling (contract §15): four processes, started together on a
    fresh database, two per session, each with its turns at once, share a few server
    connections. Prepared statements once collided there (``DuplicatePreparedStatement``):
    turns failed and processes died at start."""
    plan = {new_token(): ("alpha", "beta"), new_token(): ("gamma", "delta")}
    reports = await _run_workers(bouncer_url, plan, 12)
    for token, names in plan.items():
        await _assert_every_turn_kept(bouncer_url, token, names, reports[token], 12)


async def test_two_services_in_one_process_on_one_database_lose_no_turn(db_url: str) -> None:
    """A server running several event loops opens one service per loop; they must not race.

    Their in-process locks do not see each other: on SQLite the file lock keeps them
    apart, on Postgres the compare-and-put makes the loser of a race read and try again.
    """
    compactor = CountingCompactor()
    token = new_token()
    expected = {f"twin {i}" for i in range(30)}
    async with (
        open_memory(db_url, compactor=compactor) as first,
        open_memory(db_url, compactor=compactor) as second,
    ):
        outcomes = await asyncio.gather(
            *(
                compactor.counted(
                    (first if i % 2 else second).append_turn(token, turn(f"twin {i}", f"reply {i}"))
                )
                for i in range(30)
            )
        )
        state = await first.load(token)
    assert all(result.written for result, _ in outcomes)
    assert_bounds(state)
    folded = [text for _, texts in outcomes for text in texts]
    assert sorted(user_texts(state) + folded) == sorted(expected)


async def test_each_service_loads_the_turn_the_other_just_wrote(db_url: str) -> None:
    """Two services (as two processes would) keep copies of one session; each load
    still returns the latest turn, whichever of them wrote it."""
    token = new_token()
    async with open_memory(db_url) as first, open_memory(db_url) as second:
        for i in range(12):
            writer, reader = (first, second) if i % 2 else (second, first)
            assert (await writer.append_turn(token, turn(f"turn {i}", f"reply {i}"))).written
            assert user_texts(await reader.load(token))[-1] == f"turn {i}"
            assert user_texts(await writer.load(token))[-1] == f"turn {i}"


async def test_a_writer_that_dies_after_its_commit_leaves_no_stale_copy(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer may die between committing a turn and stamping it (SQLite's shared
    stamps, ``memory/storage/stamps.py``): every other process then reads the database."""
    token = new_token()
    async with open_memory(db_url) as reader, open_memory(db_url) as writer:
        assert (await reader.append_turn(token, turn("first", "reply"))).written
        assert user_texts(await reader.load(token)) == ["first"]  # kept in `reader`

        commit = writer.backend.threads.put

        async def commit_then_die(*args: Any, **kwargs: Any) -> bool:
            assert await commit(*args, **kwargs)
            raise SystemExit  # the process ends right after the commit

        monkeypatch.setattr(writer.backend.threads, "put", commit_then_die)
        with pytest.raises(SystemExit):
            await writer.append_turn(token, turn("second", "reply"))
        assert user_texts(await reader.load(token)) == ["first", "second"]
