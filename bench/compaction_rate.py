"""Benchmark 4 — compaction rate and the latency one compaction adds.

Calls per 100 turns come from the turn-cost loop (ours vs the article's
keep == window). The added latency is measured here: turns through a fake
compaction model that sleeps ``MODEL_SLEEP_S``, compacting turns vs plain
turns of the same session, interleaved with an instant-model session.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from bench.common import (
    MODEL_SLEEP_S,
    BenchEnv,
    InstantCompactor,
    Profile,
    SleepingCompactor,
    conversation,
    median,
    pyplot,
    ratio,
    save_figure,
    write_json,
)
from bench.variants import MemoryTurns
from memory import open_memory

NAME = "compaction_rate"


def per_100(flags: list[bool]) -> float:
    return round(100 * sum(flags) / len(flags), 2) if flags else float("nan")


async def slow_model_latency(env: BenchEnv, backend_name: str, profile: Profile) -> dict[str, Any]:
    """Median turn time with a 200 ms compaction model: compacting vs plain turns."""
    backend = env.backend(backend_name)
    async with AsyncExitStack() as stack:
        slow_mem = await stack.enter_async_context(
            open_memory(backend.url, compactor=SleepingCompactor())
        )
        fast_mem = await stack.enter_async_context(
            open_memory(backend.url, compactor=InstantCompactor())
        )
        slow = MemoryTurns(slow_mem, "bench-slow-model-0001")
        fast = MemoryTurns(fast_mem, "bench-fast-model-0001")
        times: dict[str, list[float]] = {"slow": [], "fast": []}
        turns = conversation(seed=11)
        for i in range(profile.slow_turns):
            user, assistant = next(turns)
            pair = [("slow", slow), ("fast", fast)]
            for name, variant in pair if i % 2 else pair[::-1]:
                times[name].append(1000 * await variant.turn(user, assistant))
    slow_c = [t for t, c in zip(times["slow"], slow.compacted, strict=True) if c]
    slow_p = [t for t, c in zip(times["slow"], slow.compacted, strict=True) if not c]
    fast_c = [t for t, c in zip(times["fast"], fast.compacted, strict=True) if c]
    added = median(slow_c) - median(slow_p)
    return {
        "backend": backend_name,
        "turns": profile.slow_turns,
        "compactions": len(slow_c),
        "slow_compacting_p50_ms": round(median(slow_c), 3),
        "slow_plain_p50_ms": round(median(slow_p), 3),
        "instant_compacting_p50_ms": round(median(fast_c), 3),
        "added_ms": round(added, 3),
        "added_vs_model_time": ratio(added, 1000 * MODEL_SLEEP_S),
        "overhead_beyond_model_ms": round(added - 1000 * MODEL_SLEEP_S, 3),
        "per_turn_ms": times,
    }


def plot(raws: list[dict[str, Any]], path: Path) -> None:
    plt = pyplot()
    raw = raws[0]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for name, label in (("ours", "ours (keep 2 of 4)"), ("article", "(c) keep 4 of 4")):
        flags = raw["compacted"][name]
        cumulative = [sum(flags[: i + 1]) for i in range(len(flags))]
        ax.plot(range(1, len(flags) + 1), cumulative, label=label)
    ax.set_xlabel("turn")
    ax.set_ylabel("compactions so far")
    ax.set_title("Compaction calls")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save_figure(fig, path)


async def run(
    env: BenchEnv, raws: list[dict[str, Any]], profile: Profile, out: Path
) -> dict[str, Any]:
    backends: dict[str, Any] = {}
    for raw in raws:
        ours, article = raw["compacted"]["ours"], raw["compacted"]["article"]
        backends[raw["backend"]] = {
            "ours_per_100_turns": per_100(ours),
            "article_per_100_turns": per_100(article),
            "article_vs_ours": ratio(sum(article), sum(ours)),
            "compactor_calls": raw["compactor_calls"],
            "slow_model": await slow_model_latency(env, raw["backend"], profile),
        }
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "turns": profile.turns,
        "model_sleep_ms": 1000 * MODEL_SLEEP_S,
        "backends": backends,
    }
    write_json(out, NAME, result)
    plot(raws, out / f"{NAME}.png")
    return result
