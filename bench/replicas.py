"""Benchmark 11 — production: Aegra replicas on one PostgreSQL + Redis, and ``langgraph dev``.

Aegra replicas (``scripts/serve-prod.sh``) and one ``langgraph dev`` on one PostgreSQL
server (a database each) and one ``redis-server`` (a Redis database per deployment, so
each deployment has its own run queue), in two phases, so that no more servers share
PostgreSQL's 100 connections than a comparison needs:

- **one** — a deployment of one replica; **two** — a deployment of two replicas;
- **polled** — one replica with ``AIMIND_AEGRA_WAIT_WAKEUP=0`` (Aegra's own run wait);
- **dev** — ``langgraph dev`` on PostgreSQL (with its run-queue wake-up).

Phase 1, throughput (one and two up): ``sessions`` sessions at once, each sending
``turns`` chat turns one after another (``runs.wait``, stateless), to the one-replica
deployment, then to the two-replica one (turn ``t`` of session ``i`` on replica
``(i + t) % 2``), in blocks that alternate. Every turn must be in its session's memory.
Phase 2, latency (one, polled and dev up): one client's chat runs back to back (each on
a new thread), alternating between the deployments; and for each of ``runs.wait``,
``runs.stream`` and ``runs.create`` + ``runs.join``, how long after the run's own end
the answer came (client time minus the run's own time, from its record: created to
finished).
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.common import (
    BenchEnv,
    Profile,
    bench_secret,
    pct,
    pyplot,
    ratio,
    save_figure,
    write_json,
)
from bench.common import target as _target

NAME = "replicas"
LABEL = "production: Aegra replicas vs one, Aegra vs langgraph dev"
DEPLOYMENTS = ("one", "two", "polled")
WAKE_UP_OFF = {"AIMIND_AEGRA_WAIT_WAKEUP": "0"}
KINDS = ("wait", "stream", "join")
ANSWER_GOAL_S = 0.1
"""Each call answers within this of the run's own end (the issue's goal)."""


@dataclass(frozen=True)
class Sizes:
    sessions: int
    turns: int
    rounds: int
    """Blocks per side, alternating."""
    runs: int
    """Sequential runs per deployment and block (latency), per call kind (answer delay)."""


SIZES = {"quick": Sizes(8, 2, 1, 3), "full": Sizes(32, 4, 3, 20)}


def _human(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def _seconds(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": round(1000 * statistics.median(values), 1),
        "p99_ms": round(1000 * pct(values, 99), 1),
    }


async def _load_block(urls: list[str], sizes: Sizes, tag: str) -> dict[str, Any]:
    """``sizes.sessions`` sessions at once, ``sizes.turns`` turns each; turns/s, per-turn
    latency, and turns missing from memory afterwards (fresh tokens: no compaction)."""
    from langgraph_sdk import get_client

    from aimind_memory.memory.session import new_token

    tokens = [new_token() for _ in range(sizes.sessions)]
    latencies: list[float] = []

    async def converse(i: int, token: str) -> None:
        for t in range(sizes.turns):
            client = get_client(url=urls[(i + t) % len(urls)], api_key=token, timeout=300)
            started = time.perf_counter()
            result = await client.runs.wait(None, "chat", input=_human(f"{tag} s{i} t{t}"))
            latencies.append(time.perf_counter() - started)
            assert "__error__" not in result, result

    started = time.perf_counter()
    await asyncio.gather(*(converse(i, t) for i, t in enumerate(tokens)))
    elapsed = time.perf_counter() - started
    return {"tokens": tokens, "latencies": latencies, "elapsed_s": elapsed}


async def _latency_block(url: str, runs: int, tag: str) -> list[float]:
    """One client's chat runs back to back, each on a new thread (made before the clock
    starts): the same work on both servers, checkpoints included. (A stateless run is
    not: ``langgraph dev`` runs it without a checkpointer, Aegra on a thread it deletes.)"""
    from langgraph_sdk import get_client

    from aimind_memory.memory.session import new_token

    client = get_client(url=url, api_key=new_token(), timeout=300)
    out = []
    for i in range(runs):
        thread = (await client.threads.create())["thread_id"]
        started = time.perf_counter()
        await client.runs.wait(thread, "chat", input=_human(f"{tag} question {i}?"))
        out.append(time.perf_counter() - started)
    return out


async def _answer_delays(url: str, runs: int) -> dict[str, list[float]]:
    """For each call kind, client time minus the run's own time (its record's created to
    finished), one run at a time on one thread."""
    from langgraph_sdk import get_client

    from aimind_memory.memory.session import new_token

    client = get_client(url=url, api_key=new_token(), timeout=300)
    delays: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for i in range(runs):
        for kind in KINDS:
            thread = (await client.threads.create())["thread_id"]
            body = _human(f"{kind} {i}: how long after the end do I hear back?")
            started = time.perf_counter()
            if kind == "wait":
                await client.runs.wait(thread, "chat", input=body)
            elif kind == "stream":
                async for _ in client.runs.stream(thread, "chat", input=body):
                    pass
            else:
                run = await client.runs.create(thread, "chat", input=body)
                await client.runs.join(thread, run["run_id"])
            took = time.perf_counter() - started
            [record] = await client.runs.list(thread)
            # JSON gives ISO strings, whatever the SDK's Run type says (datetime)
            ran = _seconds(str(record["created_at"]), str(record["updated_at"]))
            delays[kind].append(took - ran)
    return delays


async def _missing_turns(database_url: str, tokens: list[str], turns: int) -> int:
    from aimind_memory.memory import open_memory

    missing = 0
    async with open_memory(database_url) as mem:
        for token in tokens:
            state = await mem.load(token)
            missing += turns - sum(m.role == "user" for m in state.messages)
    return missing


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    from harness.aegra_server import aegra_replicas, replica_env
    from harness.langgraph_server import langgraph_server
    from harness.redis_server import redis_server

    sizes = SIZES.get(profile.name, SIZES["quick"])
    secret = bench_secret()  # bench_env's: this process reads memory too
    root = env.workdir / NAME
    load: dict[str, dict[str, Any]] = {
        side: {"latencies": [], "elapsed_s": 0.0, "turns": 0, "missing": 0}
        for side in ("one", "two")
    }
    latency: dict[str, list[float]] = {s: [] for s in ("one", "polled", "dev")}
    with contextlib.ExitStack() as stack:
        redis = stack.enter_context(redis_server(root / "redis"))
        databases = {name: env.backend("postgres").url for name in (*DEPLOYMENTS, "dev")}

        def deployment(name: str) -> list[dict[str, str]]:
            extra = WAKE_UP_OFF if name == "polled" else {}
            return [
                replica_env(
                    databases[name],
                    redis.url(DEPLOYMENTS.index(name)),
                    secret,
                    root / f"data-{name}{i}",
                    extra,
                )
                for i in range(2 if name == "two" else 1)
            ]

        async def warm(targets: list[str]) -> None:  # graphs load on a process's first run
            for url in targets:
                await _latency_block(url, 2, "warm")

        urls: dict[str, list[str]] = {}
        # Phase 1, throughput: only the two deployments compared are up (PostgreSQL's 100
        # connections are shared by every server process on it).
        (one,) = stack.enter_context(aegra_replicas(deployment("one"), root / "one"))
        urls["one"] = [one.base_url]
        with aegra_replicas(deployment("two"), root / "two") as two:
            urls["two"] = [r.base_url for r in two]
            await warm(urls["one"] + urls["two"])
            for r in range(sizes.rounds):
                for side in ("one", "two") if r % 2 == 0 else ("two", "one"):
                    block = await _load_block(urls[side], sizes, f"{side}{r}")
                    load[side]["latencies"] += block["latencies"]
                    load[side]["elapsed_s"] += block["elapsed_s"]
                    load[side]["turns"] += len(block["latencies"])
                    load[side]["missing"] += await _missing_turns(
                        databases[side], block["tokens"], sizes.turns
                    )
        # Phase 2, latency: one replica with the wake-up, one without, langgraph dev.
        (polled,) = stack.enter_context(aegra_replicas(deployment("polled"), root / "polled"))
        dev = stack.enter_context(
            langgraph_server(
                databases["dev"],
                root / "data-dev",
                workdir=root / "dev",
                env={"AIMIND_SESSION_SECRET": secret},
            )
        )
        urls["polled"], urls["dev"] = [polled.base_url], [dev.base_url]
        await warm(urls["polled"] + urls["dev"])
        for r in range(sizes.rounds):
            order = ("one", "polled", "dev") if r % 2 == 0 else ("dev", "polled", "one")
            for side in order:
                latency[side] += await _latency_block(urls[side][0], sizes.runs, f"{side}{r}")
        delays = {
            "wake-up": await _answer_delays(urls["one"][0], sizes.runs),
            "polled": await _answer_delays(urls["polled"][0], sizes.runs),
        }
    throughput = {
        side: {
            "replicas": len(urls[side]),
            "turns": v["turns"],
            "turns_per_s": round(v["turns"] / v["elapsed_s"], 2),
            "lost_turns": v["missing"],
            **_summary(v["latencies"]),
        }
        for side, v in load.items()
    }
    per_run = {side: _summary(v) for side, v in latency.items()}
    answer = {
        mode: {kind: _summary(v) for kind, v in by_kind.items()} for mode, by_kind in delays.items()
    }
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "sessions": sizes.sessions,
        "turns_per_session": sizes.turns,
        "rounds": sizes.rounds,
        "runs": sizes.runs,
        "throughput": throughput,
        "two_vs_one_turns_per_s": ratio(
            throughput["two"]["turns_per_s"], throughput["one"]["turns_per_s"]
        ),
        "per_run": per_run,
        "aegra_vs_dev_p50": ratio(per_run["one"]["p50_ms"], per_run["dev"]["p50_ms"]),
        "polled_vs_wakeup_p50": ratio(per_run["polled"]["p50_ms"], per_run["one"]["p50_ms"]),
        "answer_after_run_end": answer,
        "answer_goal_s": ANSWER_GOAL_S,
    }
    write_json(out, NAME, result)
    plot(result, out / f"{NAME}.png")
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    tp = result["throughput"]
    left.bar([0, 1], [tp["one"]["turns_per_s"], tp["two"]["turns_per_s"]], color=["C7", "C0"])
    left.set_xticks([0, 1], ["one replica", "two replicas"])
    left.set_ylabel("chat turns / s")
    left.set_title(f"{result['sessions']} sessions at once ({result['two_vs_one_turns_per_s']} ×)")
    left.grid(alpha=0.3, axis="y")
    answer = result["answer_after_run_end"]
    x = range(len(KINDS))
    width = 0.38
    for offset, (mode, colour) in ((-width / 2, ("polled", "C7")), (width / 2, ("wake-up", "C0"))):
        right.bar(
            [i + offset for i in x],
            [answer[mode][k]["p50_ms"] for k in KINDS],
            width,
            color=colour,
            label="Aegra's poll" if mode == "polled" else "with the wake-up",
        )
    right.axhline(1000 * result["answer_goal_s"], color="k", linestyle="--", linewidth=0.8)
    right.set_xticks(list(x), [f"runs.{k}" for k in KINDS])
    right.set_ylabel("ms after the run's end (p50)")
    right.set_title("When the answer comes")
    right.legend(fontsize=8)
    right.grid(alpha=0.3, axis="y")
    save_figure(fig, path)


# --- report -------------------------------------------------------------------------


def targets(rp: dict[str, Any]) -> list[dict[str, Any]]:
    """This benchmark's rows of the targets table."""
    on = rp["answer_after_run_end"]["wake-up"]
    worst = max(on[k]["p50_ms"] for k in KINDS) / 1000
    tp = rp["throughput"]
    lost = tp["one"]["lost_turns"] + tp["two"]["lost_turns"]
    return [
        _target(
            f"Aegra answers within {rp['answer_goal_s']:g} s of the run's end",
            "slowest p50 of runs.wait / stream / join: client time − the run's own time (s)",
            round(worst, 3),
            f"≤ {rp['answer_goal_s']:g}",
            worst <= rp["answer_goal_s"],
            ", ".join(f"{k} {on[k]['p50_ms']} ms" for k in KINDS),
        ),
        _target(
            "run wait wake-up on Aegra",
            "chat run latency p50, Aegra's poll / with the wake-up",
            rp["polled_vs_wakeup_p50"],
            "≥ 2",
            rp["polled_vs_wakeup_p50"] >= 2,
            f"{rp['per_run']['polled']['p50_ms']} ms vs {rp['per_run']['one']['p50_ms']} ms",
        ),
        _target(
            f"two replicas serve {rp['sessions']} sessions with no lost turn",
            "turns/s, two replicas / one (2 shared cores: the second core is the gain)",
            rp["two_vs_one_turns_per_s"],
            "≥ 1, 0 lost",
            rp["two_vs_one_turns_per_s"] >= 1 and lost == 0,
            f"{tp['one']['turns_per_s']} vs {tp['two']['turns_per_s']} turns/s; lost {lost}",
        ),
    ]


def readme_section(rp: dict[str, Any]) -> list[str]:
    """This benchmark's section of the results page (``docs/benchmarks/results.md``)."""
    tp, per_run, answer = rp["throughput"], rp["per_run"], rp["answer_after_run_end"]
    lines = [
        "### 12. Production: Aegra replicas (PostgreSQL + Redis) and `langgraph dev`",
        "",
        "Aegra replicas (`scripts/serve-prod.sh`) and `langgraph dev` on one PostgreSQL",
        "server and one `redis-server`: a one-replica deployment, a two-replica deployment,",
        "one replica with `AIMIND_AEGRA_WAIT_WAKEUP=0` (Aegra's own run wait: a Redis key",
        "polled every 2 s) and `langgraph dev` on PostgreSQL, each on its own database and",
        "run queue, in two phases (the embedded PostgreSQL allows 100 connections, and each",
        "replica may take ~66: only the servers a comparison needs are up). Throughput",
        f"(one and two up): {rp['sessions']} sessions at once,",
        f"{rp['turns_per_session']} chat turns each (`runs.wait`), on one replica then on two",
        f"(turns alternating between them), {rp['rounds']} blocks each, order alternating;",
        "every turn is then looked up in memory. Latency: one client's chat runs back to",
        "back, each on a new thread (a stateless run is not the same work on both:",
        "`langgraph dev` runs it without a checkpointer), alternating between the",
        "deployments; and how long after a run's own end",
        "(its record: created → finished) each call answered.",
        "",
        "**2 cores.** A replica is one Python process, one event loop: at most one core",
        "busy. On this 2-core machine a second replica can use the second core, which it",
        "shares with PostgreSQL, Redis, the client and the machine's other users; that is",
        "all the gain there is to find here. More replicas need more cores or machines.",
        "",
        "| deployment | turns | turns/s | turn p50 ms | turn p99 ms | lost turns |",
        "|---|---|---|---|---|---|",
    ]
    for side in ("one", "two"):
        r = tp[side]
        lines.append(
            f"| {r['replicas']} replica{'s' if r['replicas'] > 1 else ''} | {r['turns']} | "
            f"{r['turns_per_s']} | {r['p50_ms']} | {r['p99_ms']} | {r['lost_turns']} |"
        )
    lines += [
        "",
        f"Two / one, turns/s: **{rp['two_vs_one_turns_per_s']} ×**.",
        "",
        "| one client's chat run | runs | p50 ms | p99 ms |",
        "|---|---|---|---|",
    ]
    labels = {
        "one": "Aegra, with the wake-up",
        "polled": "Aegra, its own poll",
        "dev": "langgraph dev",
    }
    for side, label in labels.items():
        r = per_run[side]
        lines.append(f"| {label} | {r['n']} | {r['p50_ms']} | {r['p99_ms']} |")
    lines += [
        "",
        f"Aegra / langgraph dev, p50: **{rp['aegra_vs_dev_p50']} ×**; Aegra's poll / the",
        f"wake-up: **{rp['polled_vs_wakeup_p50']} ×**. Aegra keeps every run in PostgreSQL",
        "(record, lease, status and thread updates: about 70 SQL statements per chat run",
        "with its new thread, besides the checkpoints; `langgraph dev` keeps runs in",
        "memory) and hands each run over through Redis, so a run costs more there;",
        "memory's share of a",
        "chat run is a few milliseconds on either (a profile of 40 runs on Aegra:",
        "`append_turn` about 4 ms of a run). What Aegra buys is that any replica serves",
        "any request and a crashed one loses nothing reported.",
        "",
        "| answer after the run's end, p50 (p99) ms | runs.wait | runs.stream | runs.join |",
        "|---|---|---|---|",
    ]
    for mode, label in (("polled", "Aegra's poll"), ("wake-up", "with the wake-up")):
        cells = " | ".join(
            f"{answer[mode][k]['p50_ms']} ({answer[mode][k]['p99_ms']})" for k in KINDS
        )
        lines.append(f"| {label} | {cells} |")
    lines += ["", "![replicas](results/replicas.png)", ""]
    return lines
