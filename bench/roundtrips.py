"""Round trips per turn: what a turn asks of the database, counted, not timed.

PostgreSQL: round trips on the wire, through a counting proxy (``bench.pgwire``)
that every connection of the run goes through, pool health checks included.
SQLite: statements, from the trace callback of every aiosqlite connection involved
(in process, so a statement is a step under the database's lock, not a round trip).

Per turn, for:

- **ours**: the read a run makes for the model's context (``MemoryService.snapshot``,
  what ``load_memory_state`` calls) and the turn's write (``append_turn``), split into
  steady turns and turns that start a compaction; the compaction's landing is counted
  apart (it runs after the answer). Back to back, and once more paced like a chat: a
  pause before the read (the user typing) and before the write (the model call).
- **(a) bare saver**: ``aget_tuple`` + ``aput`` of the same state on the stock saver.
- **(b) graph**: one ``ainvoke`` of a ``MessagesState`` graph on the stock saver.
"""

from __future__ import annotations

import asyncio
import statistics
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

from aimind_memory.memory import FinalTurn, MemoryService, open_checkpointer, open_memory
from aimind_memory.memory.config.limits import POOL_RECHECK_AFTER_S
from bench.common import (
    BACKENDS,
    BenchEnv,
    InstantCompactor,
    Profile,
    conversation,
    pyplot,
    save_figure,
    target,
    write_json,
)
from bench.pgwire import RoundTripCounter, statement_kind
from bench.variants import BareSaverTurns, GraphTurns

NAME = "roundtrips"
LABEL = "round trips per turn"
TURNS = {"full": 48, "quick": 12}
PAUSED_TURNS = {"full": 4, "quick": 1}
WARM_TURNS = 4
PAUSE_S = 2.0
"""A chat's pauses: a model call, a user typing (shorter than ``POOL_RECHECK_AFTER_S``)."""
TOKEN = "bench-roundtrips-0001"
UNITS = {"postgres": "round trips", "sqlite": "statements"}


class Meter(Protocol):
    def take(self) -> dict[str, Any]:
        """What was asked of the database since the last ``take``."""
        ...


class WireMeter:
    """PostgreSQL: round trips seen by the proxy."""

    def __init__(self, proxy: RoundTripCounter) -> None:
        self.proxy = proxy

    def take(self) -> dict[str, Any]:
        counts = self.proxy.take()
        return {"n": counts.round_trips, "kinds": dict(counts.kinds), "connects": counts.connects}


class StatementMeter:
    """SQLite: statements run on the traced connections."""

    def __init__(self) -> None:
        self._statements: list[str] = []

    def __call__(self, statement: str) -> None:  # called on aiosqlite's thread
        self._statements.append(statement)

    async def trace(self, *connections: Any) -> None:
        for conn in connections:
            await conn.set_trace_callback(self)

    def take(self) -> dict[str, Any]:
        taken, self._statements = self._statements, []
        return {"n": len(taken), "kinds": dict(Counter(map(statement_kind, taken)))}


def _stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean and max per turn, and the kinds summed over the turns."""
    kinds: Counter[str] = Counter()
    for row in rows:
        kinds.update(row["kinds"])
    values = [row["n"] for row in rows]
    return {
        "mean": round(statistics.fmean(values), 3) if values else None,
        "max": max(values, default=None),
        "kinds": dict(sorted(kinds.items())),
    }


def _turn(user: str, assistant: str) -> FinalTurn:
    return FinalTurn(user_text=user, assistant_text=assistant, status="completed")


async def ours_turns(
    mem: MemoryService, meter: Meter, texts: Iterator[tuple[str, str]], turns: int, pause_s: float
) -> list[dict[str, Any]]:
    """``turns`` turns: (pause), read for the context, (pause), write, (settle a compaction)."""
    rows = []
    for _ in range(turns):
        user, assistant = next(texts)
        if pause_s:
            await asyncio.sleep(pause_s)  # the user reads the answer and types
        meter.take()
        snapshot = await mem.snapshot(TOKEN)
        read = meter.take()
        if pause_s:
            await asyncio.sleep(pause_s)  # the model call
        result = await mem.append_turn(TOKEN, _turn(user, assistant))
        write = meter.take()
        landing = None
        if result.pending:
            await mem.settle(TOKEN)
            landing = meter.take()
        rows.append(
            {
                "compaction": result.pending or result.compacted,
                "read": read,
                "write": write,
                "landing": landing,
                "channels": snapshot.state.to_channels(),
                "texts": (user, assistant),
            }
        )
    return rows


def summarize_ours(rows: list[dict[str, Any]], *, split: bool = True) -> dict[str, Any]:
    """Per group of turns — steady and compaction turns, or ``all`` — read, write and
    their total per turn, and the landings of the compactions started."""
    out: dict[str, Any] = {}
    groups = (("steady", False), ("compaction", True)) if split else (("all", None),)
    for label, keep in groups:
        picked = [r for r in rows if keep is None or r["compaction"] == keep]
        if not picked:
            continue
        total = [
            {"n": r["read"]["n"] + r["write"]["n"], "kinds": Counter(r["read"]["kinds"])}
            for r in picked
        ]
        for t, r in zip(total, picked, strict=True):
            t["kinds"].update(r["write"]["kinds"])
        out[label] = {
            "turns": len(picked),
            "read": _stats([r["read"] for r in picked]),
            "write": _stats([r["write"] for r in picked]),
            "total": _stats(total),
        }
        landings = [r["landing"] for r in picked if r["landing"] is not None]
        if landings:
            out[label]["landing"] = _stats(landings)
    return out


@asynccontextmanager
async def _metered(env: BenchEnv, name: str) -> AsyncIterator[tuple[str, str, str, Any]]:
    """Three fresh databases (ours, bare, graph) and how to count what reaches them."""
    urls = [env.backend(name).url for _ in range(3)]
    if name == "postgres":
        async with RoundTripCounter(env.pg_server_url) as proxy:
            yield (*(proxy.url(u) for u in urls), WireMeter(proxy))  # type: ignore[misc]
    else:
        yield (*urls, StatementMeter())  # type: ignore[misc]


async def run_backend(env: BenchEnv, name: str, profile: Profile) -> dict[str, Any]:
    turns, paused = TURNS[profile.name], PAUSED_TURNS[profile.name]
    async with (
        _metered(env, name) as (ours_url, bare_url, graph_url, meter),
        AsyncExitStack() as st,
    ):
        mem = await st.enter_async_context(open_memory(ours_url, compactor=InstantCompactor()))
        bare_saver = await st.enter_async_context(open_checkpointer(bare_url))
        graph_saver = await st.enter_async_context(open_checkpointer(graph_url))
        if isinstance(meter, StatementMeter):
            conns = [mem.backend.saver.conn, mem.backend.threads.conn]  # type: ignore[attr-defined]
            await meter.trace(*conns, bare_saver.conn, graph_saver.conn)  # type: ignore[attr-defined]
        bare = BareSaverTurns(bare_saver, "bench-roundtrips-bare")
        graph = GraphTurns(graph_saver, "bench-roundtrips-graph")
        texts = conversation(seed=13)
        # Warm: the thread exists, the copy is kept, the pool's connections have prepared
        # their statements (each connection's first use of a statement costs one more).
        warm = await ours_turns(mem, meter, texts, WARM_TURNS, 0)
        rows = await ours_turns(mem, meter, texts, turns, 0)
        paused_rows = await ours_turns(mem, meter, texts, paused, PAUSE_S)
        baseline: dict[str, list[dict[str, Any]]] = {"bare": [], "graph": []}
        for i, row in enumerate([*warm, *rows]):  # the same turns and states as ours
            meter.take()
            await bare.turn(row["channels"])
            baseline["bare"].append(meter.take())
            await graph.turn(*row["texts"])
            baseline["graph"].append(meter.take())
            if i < len(warm):  # their first turns create the threads, as ours' warm-up did
                for rows_ in baseline.values():
                    rows_.pop()
    return {
        "backend": name,
        "unit": UNITS[name],
        "turns": turns,
        "ours": summarize_ours(rows),
        "ours_paused": {"pause_s": PAUSE_S, **summarize_ours(paused_rows, split=False)},
        "bare": {"turns": len(baseline["bare"]), "total": _stats(baseline["bare"])},
        "graph": {"turns": len(baseline["graph"]), "total": _stats(baseline["graph"])},
    }


def plot(backends: dict[str, Any], path: Path) -> None:
    """Per turn, stacked by what each request or statement does."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(backends), figsize=(6.5 * len(backends), 4.4), squeeze=False)
    for ax, (name, r) in zip(axes[0], backends.items(), strict=True):
        groups = {
            "ours\nback to back": r["ours"].get("steady"),
            "ours\ncompaction turn": r["ours"].get("compaction"),
            "ours\npaced like a chat": r["ours_paused"].get("all"),
            "(a) bare\nsaver": r["bare"],
            "(b) MessagesState\ngraph": r["graph"],
        }
        shown = {label: g for label, g in groups.items() if g}
        kinds = sorted({k for g in shown.values() for k in g["total"]["kinds"]})
        bottom = [0.0] * len(shown)
        for colour, kind in enumerate(kinds):
            heights = [g["total"]["kinds"].get(kind, 0) / g["turns"] for g in shown.values()]
            ax.bar(range(len(shown)), heights, bottom=bottom, label=kind, color=f"C{colour}")
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        ax.set_xticks(range(len(shown)), list(shown), fontsize=8)
        ax.set_ylabel(f"{r['unit']} per turn (mean)")
        ax.set_title(f"What a turn asks of {name}")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8)
    save_figure(fig, path)


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    backends = {name: await run_backend(env, name, profile) for name in BACKENDS}
    result = {"benchmark": NAME, "profile": profile.name, "backends": backends}
    write_json(out, NAME, result)
    plot(backends, out / f"{NAME}.png")
    return result


# --- targets and the results section ------------------------------------------------------


def _one_and_one(group: dict[str, Any]) -> bool:
    """Every turn of the group: exactly one write round trip and at most one read."""
    return bool(group["write"]["max"] == 1 and group["read"]["max"] <= 1)


def _checks(group: dict[str, Any]) -> int:
    return int(group["total"]["kinds"].get("check", 0))


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Postgres: 1 write + ≤ 1 read per turn (issue 17); SQLite: one statement."""
    rows = []
    pg = result["backends"].get("postgres")
    if pg:
        bare, graph = pg["bare"]["total"]["mean"], pg["graph"]["total"]["mean"]
        for label, group in (
            ("back to back", pg["ours"].get("steady")),
            ("compaction turn", pg["ours"].get("compaction")),
        ):
            if group is None:
                continue
            note = f"(a) bare saver {bare}, (b) graph {graph}"
            if "landing" in group:
                note += f"; the compaction lands later in {group['landing']['mean']}"
            rows.append(
                target(
                    f"1 write + ≤ 1 read round trip per turn [postgres, {label}]",
                    "ours round trips per turn, mean (every turn: write = 1, read ≤ 1)",
                    group["total"]["mean"],
                    "≤ 2",
                    _one_and_one(group),
                    note,
                )
            )
        if paced := pg["ours_paused"].get("all"):
            rows.append(
                target(
                    "1 write + ≤ 1 read round trip per turn [postgres, paced like a chat]",
                    f"ours round trips per turn, mean over {paced['turns']} turns with "
                    f"{PAUSE_S:g} s pauses before the read and the write",
                    paced["total"]["mean"],
                    "≤ 2",
                    _one_and_one(paced),
                    f"pool re-checks of idle connections: {_checks(paced)} round trips",
                )
            )
    lite = result["backends"].get("sqlite")
    if lite and (steady := lite["ours"].get("steady")):
        rows.append(
            target(
                "one statement per turn, the read served from the stamps [sqlite]",
                "ours statements per turn, mean (no compaction)",
                steady["total"]["mean"],
                "≤ 1",
                steady["total"]["max"] <= 1,
                f"(a) bare saver {lite['bare']['total']['mean']}, "
                f"(b) graph {lite['graph']['total']['mean']}",
            )
        )
    return rows


def _cell(group: dict[str, Any] | None) -> str:
    if not group:
        return "-"
    text = f"{group['read']['mean']:g} + {group['write']['mean']:g}"
    if checks := _checks(group):
        text += f" ({checks} pool checks in {group['turns']} turns)"
    if "landing" in group:
        text += f"; landing {group['landing']['mean']:g}"
    return text


def readme_section(result: dict[str, Any]) -> list[str]:
    lines = [
        "### 6. Round trips per turn",
        "",
        "Counted, not timed. PostgreSQL: round trips on the wire — every connection of",
        "the run goes through a counting proxy (`bench/pgwire.py`) that reads the",
        "protocol: a `Query` message (however many statements it carries) or a `Sync`",
        "ending an extended-protocol batch is one request, and a request sent while no",
        "earlier one is unanswered is one round trip (a pipeline rides on one). SQLite:",
        "statements, from the trace callback of every aiosqlite connection involved.",
        "Ours is what a run does — `snapshot` for the model's context, then",
        "`append_turn` — shown as read + write; a compaction's landing runs after the",
        "answer and is given apart. After warm-up turns (each pooled connection",
        f"prepares a statement on its first use of it). The paced row puts {PAUSE_S:g} s",
        "before the read (the user typing) and before the write (the model call). A",
        "pooled connection idle longer than `POOL_RECHECK_AFTER_S` "
        f"({POOL_RECHECK_AFTER_S:g} s) is tested",
        "on checkout with an empty query, one round trip more; a server that went away",
        "is noticed sooner and for free (its goodbye waits on the socket). On SQLite",
        "every 8th write also prunes the thread's older checkpoint, one more statement.",
        "",
        "| backend | unit | ours, back to back: read + write | ours, compaction turn "
        "| ours, paced like a chat | (a) bare saver | (b) graph |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in result["backends"].items():
        lines.append(
            f"| {name} | {r['unit']} per turn | {_cell(r['ours'].get('steady'))} | "
            f"{_cell(r['ours'].get('compaction'))} | {_cell(r['ours_paused'].get('all'))} | "
            f"{r['bare']['total']['mean']:g} | {r['graph']['total']['mean']:g} |"
        )
    lines += ["", "![round trips](results/roundtrips.png)", ""]
    return lines
