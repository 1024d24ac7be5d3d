"""Benchmark 4 — compaction rate: compactions per 100 turns, ours vs the article's way.

The calls come from the turn-cost loop (ours keeps 2 of 4 turns, the article's
keep == window). What a compaction costs the user is ``compaction_latency``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.common import Profile, pyplot, ratio, save_figure, write_json

NAME = "compaction_rate"


def per_100(flags: list[bool]) -> float:
    return round(100 * sum(flags) / len(flags), 2) if flags else float("nan")


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


def report(raws: list[dict[str, Any]], profile: Profile, out: Path) -> dict[str, Any]:
    backends: dict[str, Any] = {}
    for raw in raws:
        ours, article = raw["compacted"]["ours"], raw["compacted"]["article"]
        backends[raw["backend"]] = {
            "ours_per_100_turns": per_100(ours),
            "article_per_100_turns": per_100(article),
            "article_vs_ours": ratio(sum(article), sum(ours)),
            "compactor_calls": raw["compactor_calls"],
        }
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "turns": profile.turns,
        "backends": backends,
    }
    write_json(out, NAME, result)
    plot(raws, out / f"{NAME}.png")
    return result
