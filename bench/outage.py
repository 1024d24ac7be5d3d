"""Benchmark 15 — PostgreSQL goes away: how long a turn waits, how soon writes come back.

A private embedded PostgreSQL (this benchmark stops and starts it) and two memory
services on it, in one process, through the same outages:

- **ours** — ``open_memory`` as shipped (``memory/storage/pg_pool.py``): the pool
  gives up reconnecting after ``AIMIND_PG_RECONNECT_TIMEOUT_S`` (1 s) and says so,
  memory's calls stop waiting for a connection then, the next call connects again,
  and the first dead connection found after a restart has the others tested at once;
- **psycopg** — the same service over psycopg's pool as its documentation sets it up
  (``min_size=1``, ``check=AsyncConnectionPool.check_connection``, its defaults:
  background reconnection with doubling pauses for 300 s, every call waiting the
  pool's whole timeout, dead connections met one checkout at a time).

Both pools wait ``POOL_TIMEOUT_S`` for a connection (``AIMIND_PG_POOL_TIMEOUT_S``; 30 s
by default, which makes psycopg's waits three times longer). Each side plays one
session: a turn (the read for the model's context, then the write), 0.1 s, the next
turn. Per outage length, twice: **busy** (turns go on while the database is down) and
**idle** (no turn until it is back: every pooled connection is dead by then).

- **turn wait** — how long each turn begun while the database was down took (busy);
- **recovery** — from the database back (its start returned) to the end of the side's
  first turn written.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from psycopg_pool import AsyncConnectionPool

from aimind_memory.memory import (
    ExtractiveCompactor,
    FinalTurn,
    MemoryLimits,
    MemoryService,
    MemoryUnavailableError,
    open_memory,
)
from aimind_memory.memory.config.limits import PG_POOL_MAX
from aimind_memory.memory.config.settings import MemorySettings
from aimind_memory.memory.session import load_secret
from aimind_memory.memory.storage import Backend
from aimind_memory.memory.storage.archive.postgres import PostgresArchive
from aimind_memory.memory.storage.pg_pool import CONNECTION_KWARGS, DictConnection
from aimind_memory.memory.storage.pool_log import plain_pool_logs
from aimind_memory.memory.storage.postgres import PostgresMemoryThreads, PostgresServerSaver
from bench.common import BenchEnv, Profile, pyplot, ratio, save_figure, write_json
from bench.common import target as _target

PG_POOL_TIMEOUT_ENV = MemorySettings.env_name("pg_pool_timeout_s")
NAME = "outage"
LABEL = "PostgreSQL outage: per-turn wait and recovery, ours vs psycopg's pool"
SIDES = ("ours", "psycopg")
SCENARIOS = ("busy", "idle")
POOL_TIMEOUT_S = 10.0
LENGTHS_S = {"quick": (8.0,), "full": (3.0, 10.0, 30.0)}
"""How long the database stays down, per run size."""
PAUSE_S = 0.1
"""Between a session's turns."""
TURN_GOAL_S = 5.0
"""contract §15: a turn never waits more than a few seconds for memory."""
RECOVERY_GOAL_S = 5.0
"""contract §15: writes resume within 5 s of the database coming back."""
GIVE_UP_S = 120.0
"""A side that has written nothing this long after the database came back is reported so."""
WARM_SESSIONS = 8


class _PsycopgPool(AsyncConnectionPool[DictConnection]):
    """psycopg's pool; memory's calls take its plain ``connection()``."""

    reachable_connection = AsyncConnectionPool.connection


@contextlib.asynccontextmanager
async def _psycopg_memory(url: str) -> AsyncIterator[MemoryService]:
    """The memory service over psycopg's pool as its documentation sets it up (its warnings
    as memory's pool's are logged: without the server's words)."""
    plain_pool_logs()
    pool = _PsycopgPool(
        url,
        min_size=1,
        max_size=PG_POOL_MAX,
        open=False,
        timeout=POOL_TIMEOUT_S,
        kwargs=CONNECTION_KWARGS,
        check=AsyncConnectionPool.check_connection,
    )
    await pool.open(wait=True)
    async with pool:
        saver = PostgresServerSaver(pool)
        threads = PostgresMemoryThreads(pool, saver.serde)  # type: ignore[arg-type]
        backend = Backend("postgres", saver, threads, PostgresArchive(pool))  # type: ignore[arg-type]
        limits = MemoryLimits()
        service = MemoryService(backend, load_secret(), limits, ExtractiveCompactor(limits))
        try:
            yield service
        finally:
            await service.aclose()


@dataclass
class _Turn:
    started: float
    ended: float
    written: bool


@dataclass
class _Session:
    """One side's session: turns back to back until one is written after the outage."""

    memory: MemoryService
    token: str
    turns: list[_Turn] = field(default_factory=list)

    async def turn(self) -> _Turn:
        started = time.monotonic()
        n = len(self.turns)
        with contextlib.suppress(MemoryUnavailableError):
            await self.memory.snapshot(self.token)
        result = await self.memory.append_turn(
            self.token,
            FinalTurn(user_text=f"question {n}", assistant_text=f"answer {n}", status="completed"),
        )
        done = _Turn(started, time.monotonic(), result.written)
        self.turns.append(done)
        return done

    async def play(self, back: asyncio.Future[float]) -> None:
        while True:
            turn = await self.turn()
            if back.done() and turn.written and turn.ended > back.result():
                return
            if back.done() and time.monotonic() - back.result() > GIVE_UP_S:
                return
            await asyncio.sleep(PAUSE_S)


async def _warm(memory: MemoryService, side: str) -> None:
    """Several sessions at once, so the pool holds several connections when it dies."""
    await asyncio.gather(
        *(
            memory.append_turn(
                f"bench-outage-{side}-warm-{i:04d}",
                FinalTurn(user_text="warm", assistant_text="up", status="completed"),
            )
            for i in range(WARM_SESSIONS)
        )
    )


async def _outage(
    pg: Any, sessions: dict[str, _Session], length_s: float, scenario: str
) -> dict[str, Any]:
    """Stop the database for ``length_s``, start it; each side's turn waits and recovery."""
    back: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    for session in sessions.values():
        session.turns.clear()
    await asyncio.to_thread(pg.stop)
    players = []
    if scenario == "busy":
        players = [asyncio.ensure_future(s.play(back)) for s in sessions.values()]
    await asyncio.sleep(length_s)
    await asyncio.to_thread(pg.start)
    back.set_result(time.monotonic())
    if scenario == "idle":
        players = [asyncio.ensure_future(s.play(back)) for s in sessions.values()]
    await asyncio.gather(*players)
    out: dict[str, Any] = {"length_s": length_s, "scenario": scenario}
    for side, session in sessions.items():
        during = sorted(t.ended - t.started for t in session.turns if t.started < back.result())
        written = [t.ended for t in session.turns if t.written and t.ended > back.result()]
        out[side] = {
            "turns_during": len(during),
            "turn_wait_max_s": round(during[-1], 2) if during else None,
            "turn_wait_p50_s": round(during[len(during) // 2], 2) if during else None,
            "recovery_s": round(written[0] - back.result(), 2) if written else None,
        }
    return out


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    from harness.faults import own_postgres

    lengths = LENGTHS_S.get(profile.name, LENGTHS_S["quick"])
    outages = []
    saved = os.environ.get(PG_POOL_TIMEOUT_ENV)
    os.environ[PG_POOL_TIMEOUT_ENV] = str(POOL_TIMEOUT_S)
    try:
        with own_postgres() as pg:
            async with (
                open_memory(pg.uri) as ours,
                _psycopg_memory(pg.uri) as stock,
            ):
                sessions = {
                    side: _Session(memory, f"bench-outage-{side}-session")
                    for side, memory in (("ours", ours), ("psycopg", stock))
                }
                for length in lengths:
                    for scenario in SCENARIOS:
                        for side, session in sessions.items():
                            await _warm(session.memory, side)
                        print(f"[bench]   {scenario} outage of {length:g} s", flush=True)
                        outages.append(await _outage(pg, sessions, length, scenario))
    finally:
        if saved is None:
            os.environ.pop(PG_POOL_TIMEOUT_ENV, None)
        else:
            os.environ[PG_POOL_TIMEOUT_ENV] = saved
    busy = [o for o in outages if o["scenario"] == "busy"]
    result: dict[str, Any] = {
        "benchmark": NAME,
        "profile": profile.name,
        "pool_timeout_s": POOL_TIMEOUT_S,
        "outages": outages,
        "turn_wait_max_s": {s: max(o[s]["turn_wait_max_s"] for o in busy) for s in SIDES},
        "recovery_max_s": {
            s: max((o[s]["recovery_s"] or GIVE_UP_S) for o in outages) for s in SIDES
        },
    }
    result["psycopg_vs_ours_turn_wait"] = ratio(
        result["turn_wait_max_s"]["psycopg"], result["turn_wait_max_s"]["ours"]
    )
    result["psycopg_vs_ours_recovery"] = ratio(
        result["recovery_max_s"]["psycopg"], result["recovery_max_s"]["ours"]
    )
    write_json(out, NAME, result)
    plot(result, out / f"{NAME}.png")
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    for side, color in (("psycopg", "C7"), ("ours", "C0")):
        for scenario, style in (("busy", "o-"), ("idle", "s--")):
            runs = [o for o in result["outages"] if o["scenario"] == scenario]
            right.plot(
                [o["length_s"] for o in runs],
                [o[side]["recovery_s"] or GIVE_UP_S for o in runs],
                style,
                color=color,
                label=f"{side}, {scenario}",
            )
    right.axhline(RECOVERY_GOAL_S, color="k", ls=":", lw=1, label="goal")
    right.set_xlabel("outage length (s)")
    right.set_ylabel("s from the database back to a written turn")
    right.set_title("Recovery")
    right.legend(fontsize=8)
    right.grid(alpha=0.3)
    waits = [result["turn_wait_max_s"][s] for s in ("psycopg", "ours")]
    left.bar([0, 1], waits, color=["C7", "C0"])
    left.axhline(TURN_GOAL_S, color="k", ls=":", lw=1)
    left.set_xticks([0, 1], ["psycopg's pool", "ours"])
    left.set_ylabel("s")
    left.set_title(f"Longest turn during an outage ({result['psycopg_vs_ours_turn_wait']} ×)")
    left.grid(alpha=0.3, axis="y")
    save_figure(fig, path)


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """This benchmark's rows of the targets table: ours against contract §15's bounds."""
    wait, back = result["turn_wait_max_s"], result["recovery_max_s"]
    return [
        _target(
            f"outage: a turn waits ≤ {TURN_GOAL_S:g} s for memory [postgres]",
            "ours longest turn during an outage / the bound",
            ratio(wait["ours"], TURN_GOAL_S),
            "≤ 1",
            wait["ours"] <= TURN_GOAL_S,
            f"ours {wait['ours']} s, psycopg's pool {wait['psycopg']} s "
            f"({result['psycopg_vs_ours_turn_wait']} ×) with a {result['pool_timeout_s']:g} s "
            "pool timeout",
        ),
        _target(
            f"outage: writes back ≤ {RECOVERY_GOAL_S:g} s after the database [postgres]",
            "ours slowest recovery / the bound",
            ratio(back["ours"], RECOVERY_GOAL_S),
            "≤ 1",
            back["ours"] <= RECOVERY_GOAL_S,
            f"ours {back['ours']} s, psycopg's pool {back['psycopg']} s "
            f"({result['psycopg_vs_ours_recovery']} ×)",
        ),
    ]


def readme_section(result: dict[str, Any]) -> list[str]:
    """This benchmark's section of the results page (``docs/benchmarks/results.md``)."""
    lines = [
        "### 15. PostgreSQL outage: how long a turn waits, how soon writes come back",
        "",
        "A private PostgreSQL is stopped for each outage length and started again, while",
        "two memory services on it play one session each (a turn: the read for the",
        "model's context, then the write; 0.1 s; the next turn): **ours** (`open_memory`",
        "as shipped) and **psycopg** (the same service over psycopg's pool as its",
        "documentation sets it up: reconnection in the background with doubling pauses,",
        "every call waiting the pool's whole timeout, dead connections met one checkout",
        f"at a time). Both pools wait {result['pool_timeout_s']:g} s for a connection (30 s "
        "by default).",
        "**busy**: turns go on during the outage; **idle**: none until the database is back",
        "(every pooled connection is dead then). Turn wait: turns begun while the database",
        "was down; recovery: from the database back to the end of the first turn written.",
        "",
        "| outage s | scenario | side | turns during | turn wait p50 s | turn wait max s | "
        "recovery s |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in result["outages"]:
        for side in SIDES:
            r = o[side]
            lines.append(
                f"| {o['length_s']:g} | {o['scenario']} | {side} | {r['turns_during']} | "
                f"{r['turn_wait_p50_s']} | {r['turn_wait_max_s']} | {r['recovery_s']} |"
            )
    lines += [
        "",
        f"psycopg's pool / ours: longest turn **{result['psycopg_vs_ours_turn_wait']} ×**, "
        f"slowest recovery **{result['psycopg_vs_ours_recovery']} ×**.",
        "",
        "![outage](results/outage.png)",
        "",
    ]
    return lines
