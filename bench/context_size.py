"""Benchmark 3 — context size: characters the model receives per call vs turn index.

Ours is ``memory.views.context.build_context`` on the state loaded at the turn's
start; "full" is the common way: system prompt + every earlier message + the
latest user message. Approximate tokens = characters / 4.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.views.context import PINS_HEADER, RECALL_HEADER, SUMMARY_HEADER
from bench.common import SYSTEM_PROMPT, Profile, pyplot, ratio, save_figure, write_json

NAME = "context_size"
CHARS_PER_TOKEN = 4


def context_bound(limits: MemoryLimits, latest_user_chars: int) -> int:
    """The most characters our context can hold, whatever the turn index (contract §3, §7).

    system prompt + summary block + pins block + the recall block (its header and the
    recall budget, contract §5a) + the recent window at the per-message cap + the
    latest user message.
    """
    pins = limits.pinned_max * (limits.pin_chars + len("- \n"))
    return (
        len(SYSTEM_PROMPT)
        + len(SUMMARY_HEADER)
        + 1
        + limits.summary_chars
        + len(PINS_HEADER)
        + 1
        + pins
        + len(RECALL_HEADER)
        + 1
        + limits.recall_chars
        + limits.max_messages * limits.message_char_cap
        + latest_user_chars
    )


def summarize(raw: dict[str, Any], profile: Profile) -> dict[str, Any]:
    ours, full = raw["context_chars"]["ours"], raw["context_chars"]["full"]
    last = len(ours) - 1
    w = profile.window
    return {
        "ours_max_chars": max(ours),
        "ours_max_tokens_approx": max(ours) // CHARS_PER_TOKEN,
        "ours_last_chars": ours[last],
        "full_last_chars": full[last],
        "full_last_tokens_approx": full[last] // CHARS_PER_TOKEN,
        "full_vs_ours_last": ratio(full[last], ours[last]),
        "ours_late_max_vs_early_max": ratio(max(ours[-w:]), max(ours[:w])),
    }


def plot(raws: list[dict[str, Any]], path: Path) -> None:
    plt = pyplot()
    raw = raws[0]  # identical on every backend: same conversation, same state
    ours, full = raw["context_chars"]["ours"], raw["context_chars"]["full"]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    xs = range(1, len(ours) + 1)
    ax.plot(xs, full, label="full history (MessagesState)")
    ax.plot(xs, ours, label="ours: build_context(memory)")
    ax.set_yscale("log")
    ax.set_xlabel("turn")
    ax.set_ylabel("characters sent to the model (≈ tokens × 4)")
    ax.set_title("Context per model call")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save_figure(fig, path)


def report(raws: list[dict[str, Any]], profile: Profile, out: Path) -> dict[str, Any]:
    limits = MemoryLimits()
    longest_user = max(raw["longest_user_chars"] for raw in raws)
    per_backend = {raw["backend"]: summarize(raw, profile) for raw in raws}
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "bound_chars": context_bound(limits, longest_user),
        "bound_formula": (
            "system + summary header + SUMMARY_CHARS + pins header + PINNED_MAX*(PIN_CHARS+3)"
            " + recall header + RECALL_CHARS + 2*RECENT_TURNS*MESSAGE_CHAR_CAP"
            " + latest user message"
        ),
        "backends": per_backend,
        "same_on_every_backend": len({tuple(r["context_chars"]["ours"]) for r in raws}) == 1,
        "per_turn_chars": raws[0]["context_chars"],
    }
    write_json(out, NAME, result)
    plot(raws, out / f"{NAME}.png")
    return result
