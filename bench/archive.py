"""Benchmark 18: what recall costs — a turn with it, the archive's storage, a recall's time.

On each backend (a fresh database each), with the default offline compactor (extractive,
folding within the turn's write), on the repository's labelled conversations (English and
Chinese, ``tests/memory/data/conversations``: 200 turns of everyday chat, played over and
over for longer sessions) and their questions:

- **turn with recall / turn without**: two sessions play the same turns, interleaved (the
  order alternates every turn). A turn is what a graph does around its model call: read
  memory, (recall for the user's message,) build the §7 context, write the turn. The
  ratio of the two medians; goal ≤ 1.5.
- **archive storage**: the archive's bytes (its table, its index and, on PostgreSQL, its
  TOAST: pages as stored, ``dbstat`` / ``pg_total_relation_size``) per 1,000 turns, and as
  a ratio to the archived transcript's own bytes (UTF-8 text of the messages).
- **recall at 10,000 archived turns**: one session written until its archive holds
  ``RECALL_TURNS`` turns, then ``QUERIES`` recalls of the conversations' questions: the
  median and the 99th percentile.

Timings are noisy on a shared machine: ratios are taken between samples measured in the
same run, interleaved.
"""

from __future__ import annotations

import itertools
import sqlite3
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg

from aimind_memory.memory import ExtractiveCompactor, FinalTurn, MemoryService, open_memory
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.views.context import build_context
from bench.common import BACKENDS, SYSTEM_PROMPT, Backend, BenchEnv, Profile, pct, write_json
from bench.common import target as _target
from bench.recall import conversations

NAME = "archive"
LABEL = "archive and recall: what they cost"

RATIO_GOAL = 1.5
RECALL_TURNS = {"quick": 300, "full": 10_000}
"""Archived turns of the session recall is timed on."""
QUERIES = 200


def _turns() -> Iterator[tuple[str, str]]:
    """The labelled conversations' turns, one after the other, over and over."""
    return itertools.cycle([t for c in conversations() for t in c.turns])


def _questions() -> list[str]:
    return [q.q for c in conversations() for q in c.questions]


async def _turn(mem: MemoryService, token: str, user: str, assistant: str, recall: bool) -> float:
    """One turn as a graph does it around its model call; its seconds."""
    started = time.perf_counter()
    state = (await mem.snapshot(token)).state
    recalled = (
        await mem.recall(token, user, exclude={m.id for m in state.messages}) if recall else []
    )
    build_context(state, system_prompt=SYSTEM_PROMPT, latest_user_text=user, recalled=recalled)
    await mem.append_turn(
        token, FinalTurn(user_text=user, assistant_text=assistant, status="completed")
    )
    return time.perf_counter() - started


def archive_bytes(backend: Backend) -> int:
    """The archive's pages as stored: its table, index and TOAST (every session's)."""
    if backend.name == "sqlite":
        path = backend.url.removeprefix("sqlite:///")
        with sqlite3.connect(path, timeout=30) as conn:
            (size,) = conn.execute(
                "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name LIKE 'aimind_archive%' "
                "OR name = 'sqlite_autoindex_aimind_archive_1'"
            ).fetchone()
        return int(size)
    with psycopg.connect(backend.url) as conn:
        row = conn.execute("SELECT pg_total_relation_size('aimind_archive')").fetchone()
    return int(row[0]) if row else 0


def _transcript_bytes(backend: Backend) -> int:
    """The archived messages' own text, UTF-8 bytes."""
    if backend.name == "sqlite":
        with sqlite3.connect(backend.url.removeprefix("sqlite:///"), timeout=30) as conn:
            (size,) = conn.execute(
                "SELECT COALESCE(SUM(length(CAST(text AS BLOB))), 0) FROM aimind_archive"
            ).fetchone()
        return int(size)
    with psycopg.connect(backend.url) as conn:
        row = conn.execute(
            "SELECT COALESCE(SUM(octet_length(text)), 0) FROM aimind_archive"
        ).fetchone()
    return int(row[0]) if row else 0


async def turn_costs(backend: Backend, turns: int) -> dict[str, Any]:
    """Two sessions, the same turns, interleaved: with recall and without."""
    limits = MemoryLimits()
    times: dict[str, list[float]] = {"with": [], "without": []}
    archived_turns = 0
    async with open_memory(backend.url, compactor=ExtractiveCompactor(limits)) as mem:
        played = _turns()
        for i in range(turns):
            user, assistant = next(played)
            order = ("with", "without") if i % 2 == 0 else ("without", "with")
            for side in order:
                token = f"bench-archive-{side}-session"
                times[side].append(await _turn(mem, token, user, assistant, side == "with"))
        archived_turns = len((await mem.export("bench-archive-with-session"))["archive"]) // 2
    stored, text = archive_bytes(backend), _transcript_bytes(backend)
    with_p50, without_p50 = statistics.median(times["with"]), statistics.median(times["without"])
    return {
        "turns": turns,
        "with_p50_ms": round(with_p50 * 1000, 3),
        "without_p50_ms": round(without_p50 * 1000, 3),
        "ratio": round(with_p50 / without_p50, 3),
        "archived_turns": archived_turns,
        "archive_bytes": stored,
        "transcript_bytes": text,
        "storage_ratio": round(stored / max(text, 1), 3),
        "bytes_per_1000_turns": round(stored / max(2 * archived_turns, 1) * 1000),
    }


async def recall_times(backend: Backend, turns: int) -> dict[str, Any]:
    """A session with ``turns`` archived turns, then ``QUERIES`` recalls, timed."""
    limits = MemoryLimits()
    token = "bench-archive-recall-session"
    async with open_memory(backend.url, compactor=ExtractiveCompactor(limits)) as mem:
        played = _turns()
        for _ in range(turns + limits.recent_turns):
            user, assistant = next(played)
            turn = FinalTurn(user_text=user, assistant_text=assistant, status="completed")
            await mem.append_turn(token, turn)
        archived = len((await mem.export(token))["archive"]) // 2
        queries = list(itertools.islice(itertools.cycle(_questions()), QUERIES))
        await mem.recall(token, queries[0])  # warm: jieba, the connection, the cache
        times, found = [], 0
        for query in queries:
            started = time.perf_counter()
            hits = await mem.recall(token, query)
            times.append(time.perf_counter() - started)
            found += bool(hits)
    return {
        "archived_turns": archived,
        "queries": len(queries),
        "answered": found,
        "p50_ms": round(statistics.median(times) * 1000, 3),
        "p99_ms": round(pct(times, 99) * 1000, 3),
    }


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    backends = {}
    for name in BACKENDS:
        print(f"[bench] archive: turns with and without recall on {name}", flush=True)
        costs = await turn_costs(env.backend(name), profile.turns)
        print(f"[bench] archive: recall at {RECALL_TURNS[profile.name]:,} turns on {name}")
        backends[name] = {
            **costs,
            "recall": await recall_times(env.backend(name), RECALL_TURNS[profile.name]),
        }
    result = {"profile": profile.name, "backends": backends}
    write_json(out, NAME, result)
    return result


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, b in r["backends"].items():
        out.append(
            _target(
                f"a turn with recall ≤ {RATIO_GOAL}× a turn without [{name}]",
                "median turn (read, recall, context, write) with recall / without, interleaved",
                b["ratio"],
                f"≤ {RATIO_GOAL}",
                b["ratio"] <= RATIO_GOAL,
                f"{b['with_p50_ms']} ms vs {b['without_p50_ms']} ms over {b['turns']} turns; "
                f"archive {b['storage_ratio']}× its transcript, "
                f"{b['bytes_per_1000_turns']:,} B per 1,000 turns; recall p50 "
                f"{b['recall']['p50_ms']} ms at {b['recall']['archived_turns']:,} archived turns",
            )
        )
    return out


def readme_section(r: dict[str, Any]) -> list[str]:
    lines = [
        "### 18. Archive and recall: what they cost",
        "",
        "A turn (read memory, recall for the user's message, build the context, write the turn; "
        "the extractive compactor) with recall and without, two sessions playing the same turns "
        "interleaved; the archive's stored pages (table, index, TOAST) against the archived "
        "text; recall timed on one session's archive of many turns.",
        "",
        "| backend | turns | turn with recall p50 ms | without p50 ms | ratio | archive / "
        "transcript | bytes per 1,000 turns | archived turns | recall p50 ms | recall p99 ms |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, b in r["backends"].items():
        rc = b["recall"]
        lines.append(
            f"| {name} | {b['turns']} | {b['with_p50_ms']} | {b['without_p50_ms']} | "
            f"{b['ratio']} | {b['storage_ratio']} | {b['bytes_per_1000_turns']:,} | "
            f"{rc['archived_turns']:,} | {rc['p50_ms']} | {rc['p99_ms']} |"
        )
    return [*lines, ""]
