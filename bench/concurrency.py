"""Benchmark 5 — concurrency: many sessions in parallel, and many writers on one session.

Many sessions: ``sessions`` × ``session_turns`` turns at once. Ours is
``open_memory(pg_url)`` (pooled ``PostgresSaver``, no instance lock, each write
a compare-and-put under a per-thread advisory lock); the baseline is the same
service over one stock ``AsyncPostgresSaver``, which serializes every call on one
``asyncio.Lock``. The turns run in blocks that alternate ours / stock on the same sessions.

One session: ``writers`` writers, each its own service (its own pools and
in-process locks, as separate server processes would have), write to the SAME
session at once; only the compare-and-put keeps turns from being lost.

Lost turns are counted exactly: every turn carries message ids and every fold
(deferred, or inline when the window passed its bound) is recorded in a ledger
whose tokens the stored summary carries (``bench.ledger``), so every id written
must end up either folded once by a stored fold or still in the window.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from aimind_memory.memory import (
    ExtractiveCompactor,
    FinalTurn,
    MemoryLimits,
    MemoryService,
    open_memory,
)
from aimind_memory.memory.session import load_secret
from aimind_memory.memory.storage import Backend as MemoryBackend
from aimind_memory.memory.storage.inmemory import InMemoryMemoryThreads
from aimind_memory.memory.storage.pg_pool import open_pg_pool
from bench.common import (
    BACKENDS,
    Backend,
    BenchEnv,
    Profile,
    conversation,
    pyplot,
    ratio,
    save_figure,
    write_json,
)
from bench.ledger import FoldLedger, keep_ledger

NAME = "concurrency"


@asynccontextmanager
async def stock_memory(url: str) -> AsyncIterator[MemoryService]:
    """Our service, but every read and write through one stock ``AsyncPostgresSaver``
    (single instance lock): ``aget_tuple`` + ``aput`` behind an in-process lock
    (``InMemoryMemoryThreads`` uses nothing but a saver's public calls), right for
    this one process.
    """
    async with open_pg_pool(url) as pool:
        saver = AsyncPostgresSaver(pool)
        await saver.setup()
        threads = InMemoryMemoryThreads(saver)  # type: ignore[arg-type]
        backend = MemoryBackend("postgres", saver, threads, threads.archive)
        limits = MemoryLimits()
        yield MemoryService(backend, load_secret(), limits, ExtractiveCompactor(limits))


def _ids(tag: str, session: int, turn: int) -> tuple[str, str]:
    return f"{tag}-{session}-{turn}-u", f"{tag}-{session}-{turn}-a"


async def _turns(
    mem: MemoryService,
    token: str,
    tag: str,
    session: int,
    turns: range,
    texts: list[tuple[str, str]],
) -> int:
    """One writer: read the session (as a turn's context does), then write the turn."""
    written = 0
    for t, (user, assistant) in zip(turns, texts, strict=True):
        uid, aid = _ids(tag, session, t)
        await mem.snapshot(token)
        result = await mem.append_turn(
            token,
            FinalTurn(
                user_text=user,
                assistant_text=assistant,
                status="completed",
                user_message_id=uid,
                assistant_message_id=aid,
            ),
        )
        written += result.written
    return written


async def _lost(
    mems: list[MemoryService],
    ledger: FoldLedger,
    writers: dict[int, str],
    tag: str,
    turns: int,
) -> dict[str, int]:
    """Turns written but neither folded by a stored fold nor in the window; ids folded
    more than once. ``writers`` maps each writer (session) number to its token."""
    for mem in mems:
        await mem.settle()
    totals = {"lost_turns": 0, "folded_twice": 0}
    for token in set(writers.values()):
        ids = [
            i
            for w, t in writers.items()
            if t == token
            for n in range(turns)
            for i in _ids(tag, w, n)
        ]
        audit = ledger.audit((await mems[0].snapshot(token)).state, ids)
        totals = {k: totals[k] + audit[k] for k in totals}
    return totals


async def many_sessions(
    mem: MemoryService, tag: str, profile: Profile, turns: range
) -> dict[str, Any]:
    """Every session writes ``turns`` at once; the session set is the same every round."""
    tokens = {s: f"bench-{tag}-session-{s:04d}" for s in range(profile.sessions)}
    text = conversation(seed=3)
    texts = {s: [next(text) for _ in turns] for s in tokens}  # made before the clock starts
    t0 = time.perf_counter()
    written = await asyncio.gather(
        *(_turns(mem, tokens[s], tag, s, turns, texts[s]) for s in tokens)
    )
    return {"turns": sum(written), "elapsed_s": time.perf_counter() - t0}


async def one_session(backend: Backend, profile: Profile) -> dict[str, Any]:
    """``writers`` writers on ONE session; on Postgres each has its own service."""
    token = "bench-shared-session-0001"
    text = conversation(seed=5)
    separate = backend.name == "postgres"
    ledger = FoldLedger()
    async with AsyncExitStack() as stack:
        count = profile.writers if separate else 1
        mems = [
            keep_ledger(await stack.enter_async_context(open_memory(backend.url)), ledger)
            for _ in range(count)
        ]
        writers = {w: token for w in range(profile.writers)}
        texts = {w: [next(text) for _ in range(profile.writer_turns)] for w in writers}
        t0 = time.perf_counter()
        written = await asyncio.gather(
            *(
                _turns(mems[w % count], token, "one", w, range(profile.writer_turns), texts[w])
                for w in range(profile.writers)
            )
        )
        elapsed = time.perf_counter() - t0
        lost = await _lost(mems, ledger, writers, "one", profile.writer_turns)
    return {
        "writers": profile.writers,
        "writer_turns": profile.writer_turns,
        "services": count,
        "turns": sum(written),
        "elapsed_s": round(elapsed, 3),
        **lost,
    }


async def run_backend(env: BenchEnv, profile: Profile) -> dict[str, Any]:
    """``sessions`` × ``session_turns`` on Postgres through ours and through the stock saver.

    The turns are split into ``rounds`` blocks that alternate ours / stock.
    """
    backend = env.backend("postgres")
    stock_backend = env.backend("postgres")
    rounds: dict[str, list[dict[str, Any]]] = {"ours": [], "stock": []}
    per_round = profile.session_turns // profile.rounds
    ledgers = {"ours": FoldLedger(), "stock": FoldLedger()}
    async with AsyncExitStack() as stack:
        variants = {
            "ours": await stack.enter_async_context(open_memory(backend.url)),
            "stock": await stack.enter_async_context(stock_memory(stock_backend.url)),
        }
        for v, mem in variants.items():
            keep_ledger(mem, ledgers[v])
        for r in range(profile.rounds):
            turns = range(r * per_round, (r + 1) * per_round)
            for v in list(variants) if r % 2 == 0 else list(variants)[::-1]:
                rounds[v].append(await many_sessions(variants[v], v, profile, turns))
        totals: dict[str, Any] = {}
        for v, mem in variants.items():
            tokens = {s: f"bench-{v}-session-{s:04d}" for s in range(profile.sessions)}
            turns = sum(r["turns"] for r in rounds[v])
            elapsed = sum(r["elapsed_s"] for r in rounds[v])
            totals[v] = {
                "turns": turns,
                "elapsed_s": round(elapsed, 3),
                "turns_per_s": round(turns / elapsed, 2),
                **await _lost([mem], ledgers[v], tokens, v, per_round * profile.rounds),
            }
    return {
        "sessions": profile.sessions,
        "session_turns": per_round * profile.rounds,
        "rounds": profile.rounds,
        "many_sessions": totals,
        "ours_vs_stock_turns_per_s": ratio(
            totals["ours"]["turns_per_s"], totals["stock"]["turns_per_s"]
        ),
    }


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    many = result["many_sessions_postgres"]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    labels = ["ours (pooled, no instance lock)", "stock AsyncPostgresSaver (one lock)"]
    values = [many["many_sessions"][v]["turns_per_s"] for v in ("ours", "stock")]
    ax.bar(range(2), values, color=["C0", "C1"])
    ax.set_xticks(range(2), labels, fontsize=8)
    ax.set_ylabel("turns / s")
    ax.set_title(
        f"PostgreSQL: {many['sessions']} sessions × {many['session_turns']} turns in parallel"
    )
    ax.grid(alpha=0.3, axis="y")
    save_figure(fig, path)


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "many_sessions_postgres": await run_backend(env, profile),
        "one_session": {name: await one_session(env.backend(name), profile) for name in BACKENDS},
    }
    write_json(out, NAME, result)
    plot(result, out / f"{NAME}.png")
    return result
