"""Fold cost: what a folding turn costs with the default compactor, as users get it.

Benchmark 1 times a turn with ``InstantCompactor``, a fake model whose compaction runs
after the turn, so its folding turns never pay for a fold. Without a model configured,
memory's default compactor is the offline ``ExtractiveCompactor``
(``memory.service.resolve_compactor``), which folds *within* the write that overflows
the window (``inline = True``, contract §5): its folding turns pay for the whole fold —
the compactor, the fold into the thread and its archive (memory's own compactor is its
own fallback, so no gate reads its answer).

One conversation (``bench.common.conversation``) is played per backend through three
sessions turn by turn, the order rotating every turn, each on a fresh database of its own
of the backend's type, as benchmark 1 does (in a trial on one shared SQLite file the bare
write was slower than on a file of its own, which flattered ours' ratios):

- **bare** — ``BareSaverTurns``: one ``aget_tuple`` + one ``aput`` of the state the
  extractive session holds at that turn (untimed read), on its own thread;
- **extractive** — ``open_memory(url)`` as a user gets it (no model configured: the
  extractive compactor), ``snapshot`` + ``append_turn`` per turn (``MemoryTurns``);
  the compactor is wrapped (``TimedCompactor``) so the time spent inside
  ``compact`` is known per fold;
- **instant** — the same with ``InstantCompactor``: its folding turns start the
  compaction and it lands after the turn, outside the timed turn.

The two sessions of ours play conversations of their own (``SEEDS``): no sentence is
analysed twice in the process unless one conversation says it again.

A turn is a *folding* turn when its write folded or started a compaction, *plain*
otherwise. Each ratio is a p50 of ours against the p50 of the bare turns of the same
rounds. Every session first plays ``WARM_TURNS`` untimed turns on a thread of its own
(one fold each), so one-time costs stay out of the figures; the measured turn 1 (an
empty thread) is left out too.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from aimind_memory.memory import (
    CompactionOutput,
    CompactionRequest,
    ExtractiveCompactor,
    MemoryService,
    open_checkpointer,
    open_memory,
)
from aimind_memory.memory.models import ChatThreadMessage
from bench.common import (
    BACKENDS,
    BenchEnv,
    InstantCompactor,
    Profile,
    conversation,
    pct,
    pyplot,
    ratio,
    save_figure,
    target,
    write_json,
)
from bench.variants import BareSaverTurns, MemoryTurns

NAME = "fold_cost"
LABEL = "fold cost with the default (extractive) compactor"
TURNS = {"full": 120, "quick": 16}
"""Measured turns per backend: a fold every third turn from the 5th."""
WARM_TURNS = 5
"""Untimed turns on a thread of each session's own first: one fold each."""
OURS = ("extractive", "instant")
VARIANTS = ("bare", *OURS)
FOLD_GOAL = 3.0
"""A folding turn costs at most this many bare checkpoint writes (issue 43)."""
PLAIN_GOAL = 1.2
"""A plain turn costs at most this many bare checkpoint writes (issue 43)."""
TOKEN = "bench-fold-cost-{}-0001"
SEEDS = {"sqlite": {"extractive": 7, "instant": 8}, "postgres": {"extractive": 17, "instant": 18}}
"""Each session's conversation (``bench.common.conversation``): alike in length and in how
often a decision is stated, but no two share a sentence. The compactor's text analysis
caches what it computed per sentence (``functools.lru_cache``), and one process plays
every session: on a text another session played, the default compactor would be timed
on answers it had already worked out (the gate on the instant session's folds reads the
same sentences), which a user's new turns never are."""
WARM_SEED = 100
"""Added to a session's seed for its warm-up turns."""
WARM_TOKEN = "bench-fold-cost-{}-warm"


class TimedCompactor:
    """The default compactor as memory got it, timed: the milliseconds spent inside each
    ``compact``. Keeps its name and ``inline``, so memory runs it as it runs the original."""

    def __init__(self, inner: ExtractiveCompactor) -> None:
        self.inner = inner
        self.name = inner.name
        self.inline = inner.inline
        self.ms: list[float] = []
        self.read_ms: list[float] = []

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        t0 = time.perf_counter()
        output = await self.inner.compact(request)
        self.ms.append(1000 * (time.perf_counter() - t0))
        return output

    async def read_ahead(
        self, turn: Sequence[ChatThreadMessage], upcoming: CompactionRequest | None
    ) -> None:
        """The compactor's reading of each turn after its write, timed: work moved off
        the turn's path, reported beside the fold so nothing is hidden."""
        t0 = time.perf_counter()
        await self.inner.read_ahead(turn, upcoming)
        self.read_ms.append(1000 * (time.perf_counter() - t0))


def default_compactor(mem: MemoryService) -> tuple[TimedCompactor, str]:
    """Wrap the compactor ``open_memory`` chose without one given, and put the wrapper in
    its place; and what it chose. With a model configured in this shell that would be
    the model's: the extractive one (the default without a model) is wrapped instead."""
    chosen = mem.compactor
    inner = chosen if isinstance(chosen, ExtractiveCompactor) else ExtractiveCompactor(mem.limits)
    timed = TimedCompactor(inner)
    mem.compactions.compactor = timed
    if mem.fallback is inner:  # the default is its own fallback (no gate on its output)
        mem.compactions.fallback = timed
    return timed, type(chosen).__name__


async def _warm(mem: MemoryService, bare: BareSaverTurns, name: str, seed: int) -> None:
    """``WARM_TURNS`` untimed turns on a thread of each session's own."""
    turns = conversation(seed=seed + WARM_SEED)
    warm = MemoryTurns(mem, WARM_TOKEN.format(name))
    for _ in range(WARM_TURNS):
        user, assistant = next(turns)
        await warm.turn(user, assistant)
        await bare.turn((await mem.load(warm.token)).to_channels())


async def play(env: BenchEnv, backend_name: str, profile: Profile) -> dict[str, Any]:
    """Play the conversation through the three sessions, each on a fresh database."""
    dbs = {v: env.backend(backend_name) for v in VARIANTS}
    async with AsyncExitStack() as stack:
        ext_mem = await stack.enter_async_context(open_memory(dbs["extractive"].url))
        timed, chosen = default_compactor(ext_mem)
        inst_mem = await stack.enter_async_context(
            open_memory(dbs["instant"].url, compactor=InstantCompactor())
        )
        saver = await stack.enter_async_context(open_checkpointer(dbs["bare"].url))
        bare = BareSaverTurns(saver, "bench-fold-cost-bare")
        seeds = SEEDS[backend_name]
        warm_bare = BareSaverTurns(saver, "bench-fold-cost-bare-warm")
        await _warm(ext_mem, warm_bare, "extractive", seeds["extractive"])
        await _warm(inst_mem, warm_bare, "instant", seeds["instant"])
        warm_calls = len(timed.ms)
        sessions = {
            "extractive": MemoryTurns(ext_mem, TOKEN.format("extractive")),
            "instant": MemoryTurns(inst_mem, TOKEN.format("instant")),
        }
        times: dict[str, list[float]] = {v: [] for v in VARIANTS}
        fold_ms: list[float | None] = []
        read_ms: list[float | None] = []
        texts = {v: conversation(seed=seeds[v]) for v in OURS}
        started = time.perf_counter()
        for i in range(1, TURNS[profile.name] + 1):
            turn = {v: next(texts[v]) for v in OURS}
            channels = (await ext_mem.load(sessions["extractive"].token)).to_channels()
            calls, reads = len(timed.ms), len(timed.read_ms)
            shift = i % len(VARIANTS)
            for name in VARIANTS[shift:] + VARIANTS[:shift]:
                if name == "bare":
                    elapsed = await bare.turn(channels)
                else:
                    elapsed = await sessions[name].turn(*turn[name])
                times[name].append(round(1000 * elapsed, 4))
            fold_ms.append(round(timed.ms[-1], 4) if len(timed.ms) > calls else None)
            read_ms.append(round(sum(timed.read_ms[reads:]), 4) if timed.read_ms[reads:] else None)
        return {
            "backend": backend_name,
            "compactor_chosen": chosen,
            "elapsed_s": round(time.perf_counter() - started, 2),
            "times_ms": times,
            "folding": {v: sessions[v].compacted for v in OURS},
            "compactor_ms": fold_ms,
            "read_ahead_ms": read_ms,
            "compactor_calls_warm": warm_calls,
        }


def _p(values: list[float]) -> dict[str, Any]:
    return {
        "p50_ms": round(pct(values, 50), 3),
        "p90_ms": round(pct(values, 90), 3),
        "n": len(values),
    }


def summarize(raw: dict[str, Any]) -> dict[str, Any]:
    """Per variant of ours: folding and plain turns, p50/p90, each against the bare turns
    of the same rounds; for the extractive one, the compactor's own time per fold."""
    times = raw["times_ms"]
    measured = range(1, len(times["bare"]))  # turn 1 reads an empty thread
    out: dict[str, Any] = {}
    for v in OURS:
        kinds = {
            "folding": [i for i in measured if raw["folding"][v][i]],
            "plain": [i for i in measured if not raw["folding"][v][i]],
        }
        row: dict[str, Any] = {}
        for kind, idx in kinds.items():
            ours = _p([times[v][i] for i in idx])
            bare = _p([times["bare"][i] for i in idx])
            row[kind] = {
                **ours,
                "bare_p50_ms": bare["p50_ms"],
                "bare_p90_ms": bare["p90_ms"],
                "vs_bare_p50": ratio(ours["p50_ms"], bare["p50_ms"]),
                "vs_bare_p90": ratio(ours["p90_ms"], bare["p90_ms"]),
            }
        out[v] = row
    folds = [i for i in measured if raw["folding"]["extractive"][i]]
    engine = [raw["compactor_ms"][i] for i in folds if raw["compactor_ms"][i] is not None]
    fold_p50 = out["extractive"]["folding"]["p50_ms"]
    plain_p50 = out["extractive"]["plain"]["p50_ms"]
    third = max(1, len(engine) // 3)
    out["extractive"]["compactor"] = {
        **_p(engine),
        "first_third_p50_ms": round(pct(engine[:third], 50), 3),
        "last_third_p50_ms": round(pct(engine[-third:], 50), 3),
        "share_of_folding_turn_p50": ratio(pct(engine, 50), fold_p50),
        "share_of_fold_extra_p50": ratio(pct(engine, 50), fold_p50 - plain_p50),
        "folds_without_a_call": len(folds) - len(engine),
    }
    reads = [raw["read_ahead_ms"][i] for i in measured if raw["read_ahead_ms"][i] is not None]
    out["extractive"]["read_ahead"] = {
        **_p(reads),
        "vs_bare_p50": ratio(pct(reads, 50), pct(times["bare"][1:], 50)) if reads else None,
    }
    return out


LABELS = {
    "bare": "bare: aget_tuple + aput",
    "extractive": "ours, default extractive compactor",
    "instant": "ours, InstantCompactor (fold after the turn)",
}


def plot(raws: list[dict[str, Any]], path: Path) -> None:
    """Per backend: every measured turn's time; folding turns as triangles."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(raws), figsize=(6.5 * len(raws), 4.4), squeeze=False)
    for ax, raw in zip(axes[0], raws, strict=True):
        for k, v in enumerate(VARIANTS):
            ys = raw["times_ms"][v][1:]
            xs = list(range(2, len(ys) + 2))
            ax.plot(xs, ys, lw=0.9, c=f"C{k}", label=LABELS[v])
            if v in OURS:
                fx = [x for x, f in zip(xs, raw["folding"][v][1:], strict=True) if f]
                fy = [y for y, f in zip(ys, raw["folding"][v][1:], strict=True) if f]
                ax.plot(fx, fy, "^", c=f"C{k}", ms=4)
        engine = [(i + 1, ms) for i, ms in enumerate(raw["compactor_ms"]) if ms is not None][1:]
        ax.plot(
            [x for x, _ in engine],
            [y for _, y in engine],
            "x",
            c="C3",
            ms=4,
            label="inside ExtractiveCompactor.compact",
        )
        ax.set_yscale("log")
        ax.set_xlabel("turn (triangles: folding turns)")
        ax.set_ylabel("ms")
        ax.set_title(f"Fold cost — {raw['backend']}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, framealpha=0.6)
    save_figure(fig, path)


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    raws = [await play(env, name, profile) for name in BACKENDS]
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "turns": TURNS[profile.name],
        "warm_turns": WARM_TURNS,
        "backends": {
            raw["backend"]: {
                **summarize(raw),
                "compactor_chosen": raw["compactor_chosen"],
                "elapsed_s": raw["elapsed_s"],
            }
            for raw in raws
        },
        "per_turn": {
            raw["backend"]: {
                k: raw[k] for k in ("times_ms", "folding", "compactor_ms", "read_ahead_ms")
            }
            for raw in raws
        },
    }
    write_json(out, NAME, result)
    plot(raws, out / f"{NAME}.png")
    return result


# --- targets and the results section ------------------------------------------------------

WHO = {"extractive": "default extractive compactor", "instant": "InstantCompactor"}


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name, r in result["backends"].items():
        for v in OURS:
            fold, plain = r[v]["folding"], r[v]["plain"]
            note = ""
            if v == "extractive":
                c, ahead = r[v]["compactor"], r[v]["read_ahead"]
                note = (
                    f"; inside the compactor p50 {c['p50_ms']} ms; each turn read ahead "
                    f"after its write, p50 {ahead['p50_ms']} ms"
                )
            rows += [
                target(
                    f"a folding turn ≤ {FOLD_GOAL:g} × a bare checkpoint write, {WHO[v]} [{name}]",
                    "folding turns p50 / bare p50, same rounds",
                    fold["vs_bare_p50"],
                    f"≤ {FOLD_GOAL:g}",
                    fold["vs_bare_p50"] <= FOLD_GOAL,
                    f"{fold['p50_ms']} / {fold['bare_p50_ms']} ms, {fold['n']} folds{note}",
                ),
                target(
                    f"a plain turn ≤ {PLAIN_GOAL:g} × a bare checkpoint write, {WHO[v]} [{name}]",
                    "plain turns p50 / bare p50, same rounds",
                    plain["vs_bare_p50"],
                    f"≤ {PLAIN_GOAL:g}",
                    plain["vs_bare_p50"] <= PLAIN_GOAL,
                    f"{plain['p50_ms']} / {plain['bare_p50_ms']} ms, {plain['n']} turns",
                ),
            ]
    return rows


def readme_section(result: dict[str, Any]) -> list[str]:
    lines = [
        "### 19. Fold cost with the default compactor",
        "",
        f"One {result['turns']}-turn conversation per backend, three sessions turn by turn "
        "in rotating order, each on a fresh database of the backend's type "
        "(`bench/fold_cost.py`): a bare checkpoint "
        "write (`aget_tuple` + `aput` of the same state), ours as `open_memory(url)` gives "
        "it without a model (`ExtractiveCompactor`, which folds within the write that "
        "overflows the window), and ours with the instant fake model of benchmark 1 "
        "(`InstantCompactor`, whose fold lands after the turn, outside it). A folding turn "
        "is one whose write folded (extractive) or started a compaction (instant). Each "
        "ratio is ours' p50 against the bare write's p50 on the same rounds. *Inside the "
        "compactor* is the time spent in `ExtractiveCompactor.compact` alone per fold; the "
        "rest of a fold is folding its answer into the thread, archiving the folded turns "
        "and writing (no gate reads the answer: it is memory's own). *Read ahead* is the "
        "compactor reading each turn on its own after its write, and the fold the next "
        "turn's write will make as far as it is known (`ExtractiveCompactor.read_ahead`, "
        "in a task after the turn, outside "
        "the timed turn as a user's next turn comes after it): work moved off the turn's "
        "path, not removed, and shown here beside the fold. Every session "
        f"first played {result['warm_turns']} "
        "untimed turns of its own; turn 1 is left out.",
        "",
        "| backend | compactor | turns folding / plain | folding p50 / p90 ms "
        "| plain p50 / p90 ms | bare p50 ms (folding / plain rounds) | folding / bare "
        f"(≤ {FOLD_GOAL:g}) | plain / bare (≤ {PLAIN_GOAL:g}) |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def mark(value: float, goal: float) -> str:
        return f"{value} {'met' if value <= goal else '**missed**'}"

    for name, r in result["backends"].items():
        for v in OURS:
            f, p = r[v]["folding"], r[v]["plain"]
            lines.append(
                f"| {name} | {WHO[v]} | {f['n']} / {p['n']} | {f['p50_ms']:g} / "
                f"{f['p90_ms']:g} | {p['p50_ms']:g} / {p['p90_ms']:g} | "
                f"{f['bare_p50_ms']:g} / {p['bare_p50_ms']:g} | "
                f"{mark(f['vs_bare_p50'], FOLD_GOAL)} | {mark(p['vs_bare_p50'], PLAIN_GOAL)} |"
            )
    lines += [
        "",
        "| backend | inside the compactor per fold, p50 / p90 ms | p50 ms, first / last "
        "third of the folds | share of a folding turn (p50) | share of what a fold adds to a "
        "plain turn (p50) | read ahead per turn, after it, p50 / p90 ms |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in result["backends"].items():
        c, ahead = r["extractive"]["compactor"], r["extractive"]["read_ahead"]
        lines.append(
            f"| {name} | {c['p50_ms']:g} / {c['p90_ms']:g} | {c['first_third_p50_ms']:g} / "
            f"{c['last_third_p50_ms']:g} | {c['share_of_folding_turn_p50']} "
            f"| {c['share_of_fold_extra_p50']} | {ahead['p50_ms']:g} / {ahead['p90_ms']:g} |"
        )
    below = any(
        r[v][k]["vs_bare_p50"] < 1
        for r in result["backends"].values()
        for v in OURS
        for k in ("folding", "plain")
    )
    if below:
        lines += [
            "",
            "Below 1: a turn of ours without a fold is memory's one compare-and-put, its read "
            "served from the thread's stamps (benchmark 6), against the bare saver's "
            "`aget_tuple` + `aput` and their round trips.",
        ]
    lines += ["", "![fold cost](results/fold_cost.png)", ""]
    return lines
