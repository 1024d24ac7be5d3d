"""Benchmark 14 — the user's corrections (contract §9a): what an edit costs, and what pins with
provenance cost the memory panel a user reads.

- **An edit against a turn.** One session on each backend; round by round, in a rotating
  order, one turn's write (``append_turn``: the read-free compare-and-put a run makes;
  a compaction it starts runs with an instant fake model and lands outside the timing,
  as between a user's turns), one ``edit_pin`` and one ``set_summary``. Each is the same
  kind of write (under the thread's lock, compare-and-put), so an edit should cost about
  a turn.
- **The panel read, over HTTP (the target).** ``GET /api/chat/memory`` on a real
  ``langgraph dev`` (the repo's ``langgraph.json``, a free port) on a SQLite database the
  bench shares with it: this process writes three sessions' memory with the library, the
  server reads them. The sessions hold the same summary, window and 20 pins: with
  provenance (``PIN_SOURCES_MAX`` source messages per pin, each with a full-length
  excerpt: the most a pin carries), as the previous release stored them (the pins' texts
  only, no records: read by today's code, the baseline) and as records without sources.
  Round by round, in a rotating order, each session is read warm (the server's kept copy,
  proved current by the shared stamps: what a user pays for every panel refresh), then
  this process writes the session again (same size, a new summary revision: another
  process's write, untimed) and it is read again: the server sees its copy is stale,
  fetches the row and decodes it (cold-ish: the connection is open and the row is in
  the page cache). Timed by the client (httpx, one kept-alive loopback connection): from
  sending the request to the whole body read, not parsed.
- **The panel in process (information).** The same three sessions on each backend, read
  by ``MemoryService.snapshot`` + the panel DTO (what the route does, without the HTTP
  server, the field guard and JSON), warm and with the kept copy dropped.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aimind_memory.adapters.server.memory_panel import memory_panel_dto
from aimind_memory.memory import FinalTurn, MemoryService, open_memory
from aimind_memory.memory.config.limits import PIN_EXCERPT_CHARS, PIN_SOURCES_MAX, PINNED_MAX
from aimind_memory.memory.models import ChatThreadMessage, Pin, PinSource, ThreadState
from aimind_memory.memory.session import SECRET_ENV
from aimind_memory.memory.storage import Head
from bench.common import (
    BACKENDS,
    BenchEnv,
    InstantCompactor,
    Profile,
    bench_secret,
    conversation,
    median,
    pct,
    pyplot,
    ratio,
    save_figure,
    write_json,
)
from bench.common import target as _target

NAME = "memory_edits"
LABEL = "memory edits and the pins panel"
ROUNDS = {"full": 300, "quick": 20}
WARM = 10
EDIT_GOAL = 1.2
"""Target: an edit's write p50 within this many times a turn's write p50."""
PANEL_GOAL = 1.2
"""Target: the panel read over HTTP with provenance within this many times the previous
release's (warm)."""
WRITES = ("turn", "edit_pin", "set_summary")
PANELS = ("provenance", "texts", "records")
"""20 pins with PIN_SOURCES_MAX sources each; the previous release's texts only; records,
no sources."""
KINDS = ("warm", "cold")
ROUTE = "/api/chat/memory"
ROUTE_SERVER = "langgraph dev"
ROUTE_BACKEND = "sqlite"
SESSION_HEADER = "X-AIMind-Session"
SUMMARY_CHARS = 2000
REVISION = "r{:05d} "
"""Each rewrite's summary starts with its revision (same length): the read proves it saw
the write."""


def _rotation(items: tuple[str, ...], r: int) -> tuple[str, ...]:
    return items[r % len(items) :] + items[: r % len(items)]


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
            for w in _rotation(WRITES, r):
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


class _PreviousRelease(ThreadState):
    """Stored as the previous release stored a thread: the pins' texts, no records (today's
    code reads it back with a record per text)."""

    def to_channels(self) -> dict[str, Any]:
        channels = super().to_channels()
        del channels["pins"], channels["pin_provenance"], channels["unpinned"]
        return channels


def _state(variant: str, revision: int = 0) -> ThreadState:
    """One panel session's memory; the same summary, window and pin texts in every variant."""
    at = datetime(2026, 11, 1, 10, tzinfo=UTC)
    said = " ".join(user for (user, _), _ in zip(conversation(seed=37), range(8), strict=False))
    prefix = REVISION.format(revision)
    kind = _PreviousRelease if variant == "texts" else ThreadState
    return kind(
        messages=_window(at),
        summary=prefix + said[: SUMMARY_CHARS - len(prefix)],
        pins=_pins(at, sources=variant == "provenance"),
        last_compacted_at=at,
    )


async def _store(mem: MemoryService, token: str, state: ThreadState, previous: Head | None) -> Head:
    """Write ``state`` as the session's next checkpoint, as memory writes one (the thread's
    lock, the compare-and-put, the shared stamps), and drop this process's kept copy so its
    own next read decodes what was stored."""
    thread_id = mem.thread_id(token)
    async with mem.locks.hold(thread_id):
        head = await mem.store.write(thread_id, state, previous)
    assert head is not None, "nobody else writes the bench's sessions"
    mem.store.forget(thread_id)
    return head


def _pin_chars(dto: dict[str, Any]) -> int:
    return sum(len(p["text"]) + sum(len(s["excerpt"]) for s in p["sources"]) for p in dto["pins"])


def _check(dto: dict[str, Any], variant: str) -> None:
    """The panel lists every pin, with every source the variant stored."""
    sources = PIN_SOURCES_MAX if variant == "provenance" else 0
    assert len(dto["pins"]) == PINNED_MAX, variant
    assert all(len(p["sources"]) == sources for p in dto["pins"]), variant


def _comparison(stats: dict[str, dict[str, float]]) -> dict[str, float]:
    out = {}
    for kind in KINDS:
        mine = stats[f"provenance_{kind}"]["p50_ms"]
        out[f"vs_texts_{kind}"] = ratio(mine, stats[f"texts_{kind}"]["p50_ms"])
        out[f"vs_records_{kind}"] = ratio(mine, stats[f"records_{kind}"]["p50_ms"])
    return out


async def _panels(url: str, rounds: int) -> dict[str, Any]:
    """The panel in process: ``snapshot`` + the panel DTO, warm and with the copy dropped."""
    timings: dict[str, list[float]] = {f"{v}_{k}": [] for v in PANELS for k in KINDS}
    async with open_memory(url) as mem:
        tokens = {v: f"bench-memory-edits-panel-{v}" for v in PANELS}
        for variant, token in tokens.items():
            await _store(mem, token, _state(variant), None)
        sizes = {}
        for variant, token in tokens.items():
            dto = memory_panel_dto(await mem.snapshot(token), mem.limits)
            _check(dto, variant)
            sizes[variant] = _pin_chars(dto)
        for r in range(rounds + WARM):
            for variant in _rotation(PANELS, r):
                token = tokens[variant]
                for kind in KINDS:
                    if kind == "cold":
                        mem.store.forget(mem.thread_id(token))
                    started = time.perf_counter()
                    memory_panel_dto(await mem.snapshot(token), mem.limits)
                    if r >= WARM:
                        timings[f"{variant}_{kind}"].append(_ms(started))
    stats = {k: _stats(v) for k, v in timings.items()}
    return {"stats": stats, "pin_chars": sizes, **_comparison(stats)}


async def _read(client: Any, token: str) -> tuple[float, Any]:
    """One ``GET /api/chat/memory`` as the session: its time to the whole body, and the
    response."""
    started = time.perf_counter()
    response = await client.get(ROUTE, headers={SESSION_HEADER: token})
    elapsed = _ms(started)
    response.raise_for_status()
    return elapsed, response


async def _route(env: BenchEnv, rounds: int) -> dict[str, Any]:
    """``GET /api/chat/memory`` on a real ``langgraph dev`` reading what this process wrote."""
    import httpx

    from harness.langgraph_server import langgraph_server

    timings: dict[str, list[float]] = {f"{v}_{k}": [] for v in PANELS for k in KINDS}
    url = env.backend(ROUTE_BACKEND).url
    root = env.workdir / f"{NAME}-server"
    tokens = {v: f"bench-memory-edits-route-{v}" for v in PANELS}
    async with open_memory(url) as mem:
        heads = {v: await _store(mem, tokens[v], _state(v), None) for v in PANELS}
        print(f"[bench] {LABEL}: starting {ROUTE_SERVER}", flush=True)
        with langgraph_server(
            url, root / "data", workdir=root / "work", env={SECRET_ENV: bench_secret()}
        ) as server:
            async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as client:
                body_bytes = {}
                for variant, token in tokens.items():
                    _, response = await _read(client, token)
                    _check(response.json(), variant)
                    body_bytes[variant] = len(response.content)
                for r in range(rounds + WARM):
                    for variant in _rotation(PANELS, r):
                        token = tokens[variant]
                        warm, _ = await _read(client, token)
                        state = _state(variant, revision=r + 1)
                        heads[variant] = await _store(mem, token, state, heads[variant])
                        cold, response = await _read(client, token)
                        assert response.json()["summary"] == state.summary, "a stale read"
                        if r >= WARM:
                            timings[f"{variant}_warm"].append(warm)
                            timings[f"{variant}_cold"].append(cold)
    stats = {k: _stats(v) for k, v in timings.items()}
    return {
        "server": ROUTE_SERVER,
        "backend": ROUTE_BACKEND,
        "path": ROUTE,
        "stats": stats,
        "body_bytes": body_bytes,
        **_comparison(stats),
    }


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    rounds = ROUNDS.get(profile.name, ROUNDS["quick"])
    backends = {}
    for name in BACKENDS:
        print(f"[bench] {LABEL} on {name}: {rounds} rounds", flush=True)
        backends[name] = {
            "writes": await _writes(env.backend(name).url, rounds),
            "panel": await _panels(env.backend(name).url, rounds),
        }
    print(f"[bench] {LABEL}: {ROUTE} on {ROUTE_SERVER}, {rounds} rounds", flush=True)
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "rounds": rounds,
        "warm_rounds": WARM,
        "pins": PINNED_MAX,
        "sources_per_pin": PIN_SOURCES_MAX,
        "excerpt_chars": PIN_EXCERPT_CHARS,
        "route": await _route(env, rounds),
        "backends": backends,
        "edit_goal": EDIT_GOAL,
        "panel_goal": PANEL_GOAL,
    }
    write_json(out, NAME, result)
    plot(result, out / f"{NAME}.png")
    return result


def _panel_bars(
    ax: Any, groups: dict[str, dict[str, dict[str, float]]], title: str, cold: str
) -> None:
    """p50 of each variant, warm and cold (named ``cold``), for each group (a backend, or
    the route)."""
    ticks, labels = [], []
    for i, (group, stats) in enumerate(groups.items()):
        for j, kind in enumerate(KINDS):
            x = i * 8 + j * 4
            ax.bar(
                [x + k for k in range(len(PANELS))],
                [stats[f"{v}_{kind}"]["p50_ms"] for v in PANELS],
                color=["C0", "C7", "C2"],
                label=list(PANELS) if i == 0 and j == 0 else None,
            )
            ticks.append(x + 1)
            labels.append(f"{group} {cold if kind == 'cold' else kind}")
    ax.set_xticks(ticks, labels, fontsize=7)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(12, 3.6))
    names = list(result["backends"])
    for i, b in enumerate(names):
        writes = result["backends"][b]["writes"]["stats"]
        left.bar(
            [i * 4 + j for j in range(3)],
            [writes[w]["p50_ms"] for w in WRITES],
            color=["C7", "C0", "C1"],
            label=list(WRITES) if i == 0 else None,
        )
    left.set_xticks([i * 4 + 1 for i in range(len(names))], names)
    left.set_ylabel("p50 ms")
    left.set_title("A write: turn vs edits", fontsize=9)
    left.legend(fontsize=7)
    route = result["route"]
    _panel_bars(
        middle,
        {route["backend"]: route["stats"]},
        f"GET {route['path']} on {route['server']}, {result['pins']} pins (target: warm)",
        "cold-ish",
    )
    _panel_bars(
        right,
        {b: result["backends"][b]["panel"]["stats"] for b in names},
        "In process: snapshot + panel DTO",
        "dropped",
    )
    for ax in (left, middle, right):
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
    route = result["route"]
    s = route["stats"]
    warm = " / ".join(str(s[f"{v}_warm"]["p50_ms"]) for v in PANELS)
    out.append(
        _target(
            f"{route['path']} with {result['pins']} pins × {result['sources_per_pin']} sources "
            f"within {result['panel_goal']:g} × the previous release's "
            f"[{route['server']}, {route['backend']}]",
            "HTTP read p50 at the client, warm (the server's kept copy), provenance / the same "
            "pins stored as texts only",
            route["vs_texts_warm"],
            f"≤ {result['panel_goal']:g}",
            route["vs_texts_warm"] <= result["panel_goal"],
            f"p50 {warm} ms (provenance / texts / records); against records without sources "
            f"{route['vs_records_warm']}; cold-ish, after another process wrote the session: "
            f"{route['vs_texts_cold']} against texts, {route['vs_records_cold']} against records",
        )
    )
    return out


def readme_section(result: dict[str, Any]) -> list[str]:
    route = result["route"]
    lines = [
        "### 14. The user's corrections: an edit's cost, the pins panel with provenance",
        "",
        "An edit (`edit_pin`, `set_summary`) is written like a turn: under the thread's lock,",
        "one compare-and-put. Round by round in a rotating order, one session takes a turn's",
        "write (`append_turn`; a compaction it starts lands, with an instant fake model,",
        "outside the timing), an `edit_pin` and a `set_summary`.",
        "",
        "| backend | turn write p50 ms | edit_pin p50 ms | set_summary p50 ms |",
        "|---|---|---|---|",
    ]
    for b, r in result["backends"].items():
        w = r["writes"]["stats"]
        lines.append(
            f"| {b} | {w['turn']['p50_ms']} | {w['edit_pin']['p50_ms']} | "
            f"{w['set_summary']['p50_ms']} |"
        )
    lines += [
        "",
        f"The panel (the target): `GET {route['path']}` on a real `{route['server']}` (the",
        "repo's `langgraph.json`, a free port) whose SQLite database the bench shares: the",
        "bench writes three sessions' memory with the library (under the thread's lock, with",
        "the shared stamps, as memory writes a turn) and the server reads them. The sessions",
        f"hold the same summary, window and {result['pins']} pins: with provenance",
        f"({result['sources_per_pin']} sources per pin, `PIN_SOURCES_MAX`, each a "
        f"{result['excerpt_chars']}-character excerpt: the most",
        "a pin carries), as the previous release stored them (the pins' texts only, read by",
        "today's code: the baseline) and as records without sources. Round by round, in a",
        "rotating order, each session is read **warm** (the server's kept copy, which the",
        "stamps prove current: every panel refresh of a user whose memory this server wrote;",
        "the target), then the bench writes the session again (same size, untimed) and it is",
        "read **cold-ish** (the server sees its copy is stale, fetches the row and decodes it,",
        "as after a write by another replica or process; its connection is open and the row",
        'in the page cache, hence "-ish"). Each read is timed by the client (httpx, one',
        "kept-alive loopback connection) from sending the request to the whole body read,",
        "not parsed: the server's routing, identity check, read, panel DTO, field guard and",
        f"JSON encoding. {result['rounds']} rounds after {result['warm_rounds']} untimed ones.",
        "",
        "| session | body bytes | warm p50 ms | warm p90 ms | cold-ish p50 ms | cold-ish p90 ms |",
        "|---|---|---|---|---|---|",
    ]
    s = route["stats"]
    for v in PANELS:
        lines.append(
            f"| {v} | {route['body_bytes'][v]:,} | {s[f'{v}_warm']['p50_ms']} | "
            f"{s[f'{v}_warm']['p90_ms']} | {s[f'{v}_cold']['p50_ms']} | "
            f"{s[f'{v}_cold']['p90_ms']} |"
        )
    lines += [
        "",
        f"Provenance / texts, warm: **{route['vs_texts_warm']} ×**; cold-ish "
        f"{route['vs_texts_cold']} ×.",
        "",
        "For information, the same three sessions on each backend read in process",
        "(`MemoryService.snapshot` + the panel DTO: no HTTP, no field guard, no JSON), warm",
        "(the kept copy: on SQLite the stamps prove it current, on PostgreSQL one query does)",
        "and with the kept copy dropped (the row fetched and decoded), interleaved the same way:",
        "",
        "| backend | warm p50 ms: provenance / texts / records | "
        "dropped copy p50 ms: provenance / texts / records |",
        "|---|---|---|",
    ]
    for b, r in result["backends"].items():
        p = r["panel"]["stats"]
        warm = " / ".join(str(p[f"{v}_warm"]["p50_ms"]) for v in PANELS)
        cold = " / ".join(str(p[f"{v}_cold"]["p50_ms"]) for v in PANELS)
        lines.append(f"| {b} | {warm} | {cold} |")
    lines += ["", f"![memory edits](results/{NAME}.png)", ""]
    return lines
