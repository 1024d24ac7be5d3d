"""Benchmark 2 — storage: bytes and rows per session after 10, 100, 1,000 turns.

Measured on the threads the turn-cost loop wrote (``bench.turn_cost.play``):
stored row payloads (no index or page overhead) of each variant's thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.common import Profile, pyplot, ratio, save_figure, write_json

NAME = "storage"
SHOWN = ("ours", "graph", "article")
LABELS = {"ours": "ours", "graph": "(b) MessagesState graph", "article": "(c) compact every turn"}


def summarize(raw: dict[str, Any]) -> dict[str, Any]:
    marks = raw["storage"]
    out: dict[str, Any] = {"marks": marks, "ratios": {}}
    for mark, by_variant in marks.items():
        ours = by_variant["ours"]
        out["ratios"][mark] = {
            f"{v}_vs_ours_bytes": ratio(by_variant[v]["bytes"], ours["bytes"]) for v in SHOWN[1:]
        } | {f"{v}_vs_ours_rows": ratio(by_variant[v]["rows"], ours["rows"]) for v in SHOWN[1:]}
    return out


def plot(raws: list[dict[str, Any]], path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(raws), figsize=(6 * len(raws), 4.2), squeeze=False)
    for ax, raw in zip(axes[0], raws, strict=True):
        marks = list(raw["storage"])
        width = 0.8 / len(SHOWN)
        for k, v in enumerate(SHOWN):
            ys = [raw["storage"][m][v]["bytes"] / 1024 for m in marks]
            xs = [j + k * width for j in range(len(marks))]
            ax.bar(xs, ys, width=width, label=LABELS[v])
        ax.set_xticks([j + width for j in range(len(marks))], [f"{m} turns" for m in marks])
        ax.set_yscale("log")
        ax.set_ylabel("KiB stored per session")
        ax.set_title(f"Storage per session — {raw['backend']}")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8)
    save_figure(fig, path)


def report(raws: list[dict[str, Any]], profile: Profile, out: Path) -> dict[str, Any]:
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "measure": "row payload bytes and rows of the session's thread (all tables)",
        "backends": {raw["backend"]: summarize(raw) for raw in raws},
    }
    write_json(out, NAME, result)
    plot(raws, out / f"{NAME}.png")
    return result
