"""Benchmark 13 — the user's corrections (SPEC §9a): what an edit costs, and what pins with
provenance cost the memory panel.

- **An edit against a turn.** One session on each backend; round by round, in a rotating
  order, one turn's write (``append_turn``: the read-free compare-and-put a run makes;
  a compaction it starts runs with an instant fake model and lands outside the timing,
  as between a user's turns), one ``edit_pin`` and one ``set_summary``. Each is the same
  kind of write (under the thread's lock, compare-and-put), so an edit should cost about
  a turn.
- **The panel with provenance against the previous release's.** What ``GET
  /api/chat/memory`` does in the server (``MemoryService.snapshot`` + the panel DTO,
  ``adapters.server.memory_panel``), on three sessions holding the same summary, window
  and 20 pins: with provenance (16 source messages per pin, each with a full-length
  excerpt: the most a pin carries), as the previous release stored them (the pins'
  texts only, read through today's code), and as records without sources. Timed warm
  (the serving process's kept copy: what a replica that wrote the session reads) and
  cold (its kept copy dropped: the row is fetched and decoded, what another replica or
  process reads), the variants interleaved in a rotating order.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from adapters.server.memory_panel import memory_panel_dto
from bench.common import (
    BACKENDS,
    BenchEnv,
    InstantCompactor,
    Profile,
    conversation,
    median,
    pct,
    pyplot,
    ratio,
    save_figure,
    write_json,
)
from bench.common import target as _target
from memory import FinalTurn, MemoryService, open_memory
from memory.limits import PIN_EXCERPT_CHARS, PIN_SOURCES_MAX, PINNED_MAX
from memory.models import ChatThreadMessage, Pin, PinSource, ThreadState
from memory.storage.store import next_head

NAME = "memory_edits"
LABEL = "memory edits and the pins panel"
ROUNDS = {"full": 300, "quick": 20}
WARM = 10
EDIT_GOAL = 1.2
"""Target: an edit's write p50 within this many times a turn's write p50."""
PANEL_GOAL = 1.2
"""Target: the panel with provenance within this many times the previous release's."""
WRITES = ("turn", "edit_pin", "set_summary")
PANELS = ("provenance", "texts", "records")
"""20 pins with 16 sources each; the previous release's texts only; records, no sources."""


def _turn(user: str, assistant: str) -> FinalTurn:
    return FinalTurn(user_text=user, assistant_text=assistant, status="completed")


def _ms(started: float) -> float:
    return 1000 * (time.perf_counter() - started)


def _stats(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": round(median(values), 3),
        "p90_ms": round(pct(values, 90), 3),
    }


async def _writes(url: str, rounds: int) -> dict[str, Any]:
    timings: dict[str, list[float]] = {w: [] for w in WRITES}
    turns = conversation(seed=13)
    token = "bench-memory-edits-writes-0001"
    async with open_memory(url, compactor=InstantCompactor()) as mem:
        pin = await mem.pin(token, "We decided the budget ceiling is 40,000 EUR.")
        for _ in range(WARM):
            user, assistant = next(turns)
            await mem.append_turn(token, _turn(user, assistant))
            await mem.settle(token)
        for r in range(rounds):
            for w in WRITES[r % 3 :] + WRITES[: r % 3]:
                started = time.perf_counter()
                if w == "turn":
                    user, assistant = next(turns)
                    await mem.append_turn(token, _turn(user, assistant))
                    timings[w].append(_ms(started))
                    await mem.settle(token)  # a compaction lands between the user's turns
                elif w == "edit_pin":
                    await mem.edit_pin(token, pin.id, f"We decided the ceiling is {r} EUR.")
                    timings[w].append(_ms(started))
                else:
                    await mem.set_summary(token, f"The team plans a launch; revision {r}.")
                    timings[w].append(_ms(started))
    stats = {w: _stats(v) for w, v in timings.items()}
    turn = stats["turn"]["p50_ms"]
    return {
        "stats": stats,
        "edit_vs_turn": ratio(stats["edit_pin"]["p50_ms"], turn),
        "summary_vs_turn": ratio(stats["set_summary"]["p50_ms"], turn),
    }


def _window(at: datetime) -> list[ChatThreadMessage]:
    turns = conversation(seed=29)
    messages = []
    for i in range(4):
        user, assistant = next(turns)
        for role, text in (("user", user), ("assistant", assistant)):
            messages.append(
                ChatThreadMessage(id=f"w{i}-{role}", role=role, text=text, created_at=at)
            )
    return messages


def _pins(at: datetime, *, sources: bool) -> list[Pin]:
    turns = conversation(seed=31)
    pins = []
    for n in range(PINNED_MAX):
        said = []
        for s in range(PIN_SOURCES_MAX if sources else 0):
            text, _ = next(turns)
            said.append(
                PinSource(
                    message_id=f"p{n}-m{s}",
                    role="user" if s % 2 == 0 else "assistant",
                    excerpt=text[:PIN_EXCERPT_CHARS],
                    created_at=at - timedelta(minutes=s),
                )
            )
        pins.append(
            Pin(
                text=f"We decided rule {n}: the deploy window {n} is Friday {n}:00.",
                origin="model",
                pinned_at=at,
                sources=tuple(said),
            )
        )
    return pins


async def _store(mem: MemoryService, token: str, variant: str) -> None:
    at = datetime(2026, 11, 1, 10, tzinfo=UTC)
    summary = " ".join(user for (user, _), _ in zip(conversation(seed=37), range(8), strict=False))
    state = ThreadState(
        messages=_window(at),
        summary=summary[:2000],
        pins=_pins(at, sources=variant == "provenance"),
        last_compacted_at=at,
    )
    thread_id = mem.thread_id(token)
    if variant != "texts":
        await mem.store.write(thread_id, state, None)
        return
    channels = state.to_channels()  # the previous release's shape: texts, no records
    del channels["pins"], channels["unpinned"]
    head, versions = next_head(mem.backend.saver, channels, None)
    assert await mem.backend.threads.put(thread_id, head, None, versions, prune=False)


async def _panels(url: str, rounds: int) -> dict[str, Any]:
    timings = {f"{v}_{t}": [] for v in PANELS for t in ("warm", "cold")}
    async with open_memory(url) as mem:
        tokens = {v: f"bench-memory-edits-panel-{v}" for v in PANELS}
        for variant, token in tokens.items():
            await _store(mem, token, variant)
        sizes = {}
        for variant, token in tokens.items():
            dto = memory_panel_dto(await mem.snapshot(token), mem.limits)
            assert len(dto["pins"]) == PINNED_MAX, variant
            sizes[variant] = sum(
                len(p["text"]) + sum(len(s["excerpt"]) for s in p["sources"]) for p in dto["pins"]
            )
        for r in range(rounds + WARM):
            for variant in PANELS[r % 3 :] + PANELS[: r % 3]:
                token = tokens[variant]
                for kind in ("warm", "cold"):
                    if kind == "cold":
                        mem.store.forget(mem.thread_id(token))
                    started = time.perf_counter()
                    memory_panel_dto(await mem.snapshot(token), mem.limits)
                    if r >= WARM:
                        timings[f"{variant}_{kind}"].append(_ms(started))
    stats = {k: _stats(v) for k, v in timings.items()}
    out: dict[str, Any] = {"stats": stats, "pin_chars": sizes}
    for kind in ("warm", "cold"):
        mine = stats[f"provenance_{kind}"]["p50_ms"]
        out[f"vs_texts_{kind}"] = ratio(mine, stats[f"texts_{kind}"]["p50_ms"])
        out[f"vs_records_{kind}"] = ratio(mine, stats[f"records_{kind}"]["p50_ms"])
    return out


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    rounds = ROUNDS.get(profile.name, ROUNDS["quick"])
    backends = {}
    for name in BACKENDS:
        print(f"[bench] {LABEL} on {name}: {rounds} rounds", flush=True)
        backends[name] = {
            "writes": await _writes(env.backend(name).url, rounds),
            "panel": await _panels(env.backend(name).url, rounds),
        }
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "rounds": rounds,
        "pins": PINNED_MAX,
        "sources_per_pin": PIN_SOURCES_MAX,
        "excerpt_chars": PIN_EXCERPT_CHARS,
        "backends": backends,
        "edit_goal": EDIT_GOAL,
        "panel_goal": PANEL_GOAL,
    }
    write_json(out, NAME, result)
    plot(result, out / f"{NAME}.png")
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    names = list(result["backends"])
    for i, b in enumerate(names):
        writes = result["backends"][b]["writes"]["stats"]
        left.bar(
            [i * 4 + j for j in range(3)],
            [writes[w]["p50_ms"] for w in WRITES],
            color=["C7", "C0", "C1"],
            label=list(WRITES) if i == 0 else None,
        )
        panel = result["backends"][b]["panel"]["stats"]
        for j, kind in enumerate(("warm", "cold")):
            values = [panel[f"{v}_{kind}"]["p50_ms"] for v in PANELS]
            right.bar(
                [i * 8 + j * 4 + k for k in range(3)],
                values,
                color=["C0", "C7", "C2"],
                label=list(PANELS) if i == 0 and j == 0 else None,
            )
    left.set_xticks([i * 4 + 1 for i in range(len(names))], names)
    left.set_ylabel("p50 ms")
    left.set_title("A write: turn vs edits")
    left.legend(fontsize=7)
    right.set_xticks(
        [i * 8 + j * 4 + 1 for i in range(len(names)) for j in range(2)],
        [f"{b} {k}" for b in names for k in ("warm", "cold")],
        fontsize=7,
    )
    right.set_title("Panel read, 20 pins")
    right.legend(fontsize=7)
    for ax in (left, right):
        ax.grid(alpha=0.3, axis="y")
    save_figure(fig, path)


# --- report -------------------------------------------------------------------------


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for b, r in result["backends"].items():
        w = r["writes"]
        worst = max(w["edit_vs_turn"], w["summary_vs_turn"])
        out.append(
            _target(
                f"an edit costs about one turn's write [{b}]",
                "edit p50 / turn write p50, the slower of edit_pin and set_summary",
                worst,
                f"≤ {result['edit_goal']:g}",
                worst <= result["edit_goal"],
                f"edit_pin {w['edit_vs_turn']}, set_summary {w['summary_vs_turn']}; turn "
                f"{w['stats']['turn']['p50_ms']} ms",
            )
        )
        p = r["panel"]
        worst = max(p["vs_texts_warm"], p["vs_texts_cold"])
        out.append(
            _target(
                f"panel with {result['pins']} pins × {result['sources_per_pin']} sources within "
                f"{result['panel_goal']:g} × the previous release's [{b}]",
                "snapshot + panel DTO p50, provenance / the same pins as texts, the slower of "
                "warm and cold",
                worst,
                f"≤ {result['panel_goal']:g}",
                worst <= result["panel_goal"],
                f"warm {p['vs_texts_warm']}, cold {p['vs_texts_cold']}; against records "
                f"without sources: warm {p['vs_records_warm']}, cold {p['vs_records_cold']}",
            )
        )
    return out


def readme_section(result: dict[str, Any]) -> list[str]:
    lines = [
        "### 13. The user's corrections: an edit's cost, the pins panel with provenance",
        "",
        "An edit (`edit_pin`, `set_summary`) is written like a turn: under the thread's lock,",
        "one compare-and-put. Round by round in a rotating order, one session takes a turn's",
        "write (`append_turn`; a compaction it starts lands, with an instant fake model,",
        "outside the timing), an `edit_pin` and a `set_summary`. The panel is what",
        "`GET /api/chat/memory` does in the server (`snapshot` + the panel DTO) on three",
        f"sessions with the same summary, window and {result['pins']} pins: with provenance",
        f"({result['sources_per_pin']} sources per pin, {result['excerpt_chars']}-character "
        "excerpts: the most a pin carries),",
        "as the previous release stored them (texts only, read by today's code) and as records",
        "without sources; warm (the process's kept copy) and cold (the row fetched and",
        f"decoded, as another replica reads it). {result['rounds']} rounds.",
        "",
        "| backend | turn write p50 ms | edit_pin p50 ms | set_summary p50 ms | "
        "panel warm p50 ms: provenance / texts / records | panel cold p50 ms: "
        "provenance / texts / records |",
        "|---|---|---|---|---|---|",
    ]
    for b, r in result["backends"].items():
        w, p = r["writes"]["stats"], r["panel"]["stats"]
        warm = " / ".join(str(p[f"{v}_warm"]["p50_ms"]) for v in PANELS)
        cold = " / ".join(str(p[f"{v}_cold"]["p50_ms"]) for v in PANELS)
        lines.append(
            f"| {b} | {w['turn']['p50_ms']} | {w['edit_pin']['p50_ms']} | "
            f"{w['set_summary']['p50_ms']} | {warm} | {cold} |"
        )
    lines += ["", f"![memory edits](results/{NAME}.png)", ""]
    return lines
