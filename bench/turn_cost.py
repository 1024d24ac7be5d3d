"""Benchmark 1 — turn cost: ``load`` + ``append_turn`` per turn at turn 1…N, p50/p99.

One conversation is played through all four variants (see ``bench.variants``)
on the same saver type and database, turn by turn, with the variant order
rotating every round so drift and neighbours' load hit all of them alike. The
same loop also records what benchmarks 2–4 need (storage at the marks, the
context the model would get, which turns compacted), so the long baselines run
once.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from aimind_memory.memory import MemoryService, build_context, open_memory
from aimind_memory.memory.storage.checkpointer import open_checkpointer
from bench.common import (
    SYSTEM_PROMPT,
    BenchEnv,
    InstantCompactor,
    Profile,
    conversation,
    median,
    pct,
    pyplot,
    ratio,
    save_figure,
    thread_storage,
    write_json,
)
from bench.variants import ARTICLE_LIMITS, VARIANTS, BareSaverTurns, GraphTurns, MemoryTurns

NAME = "turn_cost"
TOKEN = "bench-turn-cost-{}-0001"
FRESH_TOKEN = "bench-turn-cost-fresh-0001"


def _context_chars(messages: list[Any]) -> int:
    return sum(len(m.content) for m in messages)


async def play(env: BenchEnv, backend_name: str, profile: Profile) -> dict[str, Any]:
    """Play ``profile.turns`` turns through every variant, each on its own fresh database.

    One database per variant: the full-history graph grows its database by
    hundreds of MB, which must not slow the others' reads and commits.
    """
    dbs = {v: env.backend(backend_name) for v in VARIANTS}
    async with AsyncExitStack() as stack:
        ours_mem = await stack.enter_async_context(
            open_memory(dbs["ours"].url, compactor=InstantCompactor())
        )
        article_mem = await stack.enter_async_context(
            open_memory(dbs["article"].url, compactor=InstantCompactor(), limits=ARTICLE_LIMITS)
        )
        bare_saver = await stack.enter_async_context(open_checkpointer(dbs["bare"].url))
        graph_saver = await stack.enter_async_context(open_checkpointer(dbs["graph"].url))
        ours = MemoryTurns(ours_mem, TOKEN.format("ours"))
        article = MemoryTurns(article_mem, TOKEN.format("article"), compaction_on_path=True)
        bare = BareSaverTurns(bare_saver, "bench-bare-thread")
        graph = GraphTurns(graph_saver, "bench-graph-thread")
        threads = {
            "ours": ours.thread_id,
            "bare": bare.thread_id,
            "graph": graph.thread_id,
            "article": article.thread_id,
        }
        times: dict[str, list[float]] = {v: [] for v in VARIANTS}
        context: dict[str, list[int]] = {"ours": [], "full": []}
        storage: dict[str, dict[str, dict[str, int]]] = {}
        state = await ours_mem.load(ours.token)
        history_chars = len(SYSTEM_PROMPT)
        longest_user = 0
        turns = conversation()
        started = time.perf_counter()
        for i in range(1, profile.turns + 1):
            user, assistant = next(turns)
            longest_user = max(longest_user, len(user))
            # What the model gets at this turn: ours from memory, full from all history.
            recalled = await ours_mem.recall(ours.token, user)  # untimed, as the state read
            ctx = build_context(
                state, system_prompt=SYSTEM_PROMPT, latest_user_text=user, recalled=recalled
            )
            context["ours"].append(_context_chars(ctx))
            context["full"].append(history_chars + len(user))
            history_chars += len(user) + len(assistant)
            channels = state.to_channels()
            shift = i % len(VARIANTS)
            for name in VARIANTS[shift:] + VARIANTS[:shift]:
                if name == "bare":
                    times[name].append(await bare.turn(channels))
                else:
                    timed: dict[str, MemoryTurns | GraphTurns] = {
                        "ours": ours,
                        "graph": graph,
                        "article": article,
                    }
                    times[name].append(await timed[name].turn(user, assistant))
            state = await ours_mem.load(ours.token)  # untimed: the next turn's inputs
            if i in profile.storage_marks:
                storage[str(i)] = {v: thread_storage(dbs[v], [t]) for v, t in threads.items()}
        flat = await _flatness(ours_mem, ours.token, turns, profile.window)
        return {
            "backend": backend_name,
            "flatness_ms": flat,
            "elapsed_s": round(time.perf_counter() - started, 2),
            "times_ms": {v: [round(t * 1000, 4) for t in ts] for v, ts in times.items()},
            "compacted": {"ours": ours.compacted, "article": article.compacted},
            "compactor_calls": {
                "ours": ours_mem.compactor.calls,  # type: ignore[attr-defined]
                "article": article_mem.compactor.calls,  # type: ignore[attr-defined]
            },
            "context_chars": context,
            "longest_user_chars": longest_user,
            "storage": storage,
        }


async def _flatness(
    mem: MemoryService, old_token: str, turns: Iterator[tuple[str, str]], window: int
) -> dict[str, list[float]]:
    """Turn N+1… of the long session vs turns 1… of a fresh one, interleaved in rounds.

    Comparing the first and last windows of the main loop would compare two
    moments of a shared machine; interleaving the two sessions cancels that.
    """
    sessions = {"late": MemoryTurns(mem, old_token), "early": MemoryTurns(mem, FRESH_TOKEN)}
    times: dict[str, list[float]] = {"late": [], "early": []}
    for j in range(window + 1):
        user, assistant = next(turns)
        order = ("late", "early") if j % 2 else ("early", "late")
        for name in order:
            times[name].append(round(1000 * await sessions[name].turn(user, assistant), 4))
    times["early"] = times["early"][1:]  # turn 1 reads an empty thread
    times["late"] = times["late"][1:]
    return times


def _stats(times: list[float], keep: list[bool] | None = None) -> dict[str, float]:
    values = [t for t, k in zip(times, keep or [True] * len(times), strict=True) if k]
    return {
        "p50_ms": round(pct(values, 50), 3),
        "p99_ms": round(pct(values, 99), 3),
        "n": len(values),
    }


def summarize(raw: dict[str, Any], profile: Profile) -> dict[str, Any]:
    """p50/p99 per variant, early vs late window, and the turn-cost targets."""
    times = raw["times_ms"]
    plain = [not c for c in raw["compacted"]["ours"]]
    w = profile.window
    early = slice(1, 1 + w)  # turns 2 … w+1 ("turn 10")
    late = slice(profile.turns - w, profile.turns)  # the last w turns ("turn N")
    stats: dict[str, Any] = {v: _stats(times[v]) for v in VARIANTS}
    stats["ours_no_compaction"] = _stats(times["ours"], plain)
    stats["bare_same_turns"] = _stats(times["bare"], plain)
    windows = {
        v: {"early_p50_ms": median(times[v][early]), "late_p50_ms": median(times[v][late])}
        for v in VARIANTS
    }
    return {
        "stats": stats,
        "windows": windows,
        "flatness": {
            "late_p50_ms": round(median(raw["flatness_ms"]["late"]), 3),
            "early_p50_ms": round(median(raw["flatness_ms"]["early"]), 3),
        },
        "ratios": {
            "ours_vs_bare_p50": ratio(
                stats["ours_no_compaction"]["p50_ms"], stats["bare_same_turns"]["p50_ms"]
            ),
            "ours_vs_bare_p50_all_turns": ratio(stats["ours"]["p50_ms"], stats["bare"]["p50_ms"]),
            "ours_late_vs_early": ratio(
                median(raw["flatness_ms"]["late"]), median(raw["flatness_ms"]["early"])
            ),
            "graph_vs_ours_late": ratio(
                windows["graph"]["late_p50_ms"], windows["ours"]["late_p50_ms"]
            ),
            "article_vs_ours_p50": ratio(stats["article"]["p50_ms"], stats["ours"]["p50_ms"]),
        },
        "windows_turns": {
            "early": [early.start + 1, early.stop],
            "late": [late.start + 1, late.stop],
            "flat_late": [profile.turns + 2, profile.turns + 1 + w],
            "flat_early": [2, w + 1],
        },
    }


def _rolling_median(values: list[float], width: int) -> list[float]:
    half = width // 2
    return [median(values[max(0, i - half) : i + half + 1]) for i in range(len(values))]


def plot(raws: list[dict[str, Any]], path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(raws), figsize=(6 * len(raws), 4.2), squeeze=False)
    labels = {
        "ours": "ours: load + append_turn",
        "bare": "(a) bare aget_tuple + aput",
        "graph": "(b) MessagesState graph",
        "article": "(c) compact every turn",
    }
    for ax, raw in zip(axes[0], raws, strict=True):
        for v in VARIANTS:
            ys = raw["times_ms"][v]
            ax.plot(range(1, len(ys) + 1), _rolling_median(ys, 25), label=labels[v], lw=1.3)
        ax.set_yscale("log")
        ax.set_xlabel("turn")
        ax.set_ylabel("ms per turn (rolling median of 25)")
        ax.set_title(f"Turn cost — {raw['backend']}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    save_figure(fig, path)


def report(raws: list[dict[str, Any]], profile: Profile, out: Path) -> dict[str, Any]:
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "turns": profile.turns,
        "compactor": "instant fake model (InstantCompactor)",
        "backends": {
            raw["backend"]: {**summarize(raw, profile), "elapsed_s": raw["elapsed_s"]}
            for raw in raws
        },
        "per_turn_ms": {raw["backend"]: raw["times_ms"] for raw in raws},
    }
    write_json(out, NAME, result)
    plot(raws, out / f"{NAME}.png")
    return result
