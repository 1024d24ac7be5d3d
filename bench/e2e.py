"""Benchmark 6 — end to end: ``chat`` graph runs/s under ``langgraph dev``, memory on vs off.

One ``langgraph dev`` server (the test harness ``tests/support/langgraph_server.py``)
serves the repo's graphs on the bench database with the offline model. Memory
on = the run carries a session (run context ``session_id``); memory off = the
same run with no session, so ``load_memory_state`` returns None and the
final-turn node skips memory (``adapters/final_turn.py``). The bench config
leaves out the ``auth`` section — with auth every request has a session, so
"off" could not run on the same server — and on/off phases alternate on that
one server, so auth is no part of either figure.

``langgraph dev`` runs one run at a time: without ``--n-jobs-per-worker`` its CLI
sets ``N_JOBS_PER_WORKER=1`` (``langgraph_api/cli.py``; the flag's help says 10).
So runs/s is one over a run's latency, and memory's cost is the wall time it
adds to every run: its database round trips as much as its CPU. (With
``--n-jobs-per-worker 10`` the in-memory runtime's queue jams on stateless runs
whose temporary thread is already gone — "Unexpected missing thread in
Runs.next", memory on or off — so the bench keeps the dev default.)

Runs/s is measured at steady load: ``CLIENTS`` clients send runs back to back
and only runs finishing after a settling second count. (Blocks that let the
queue drain would add the dev server's idle poll, up to 0.5 s, to both sides.)

After the server stops, the same chat runs go through the graph in the bench's own
process, on/off blocks interleaved on the same database: memory's own cost per run
(wall and CPU), without the server's noise, to hold against the 10 % budget."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import BACKENDS, BenchEnv, Profile, pyplot, ratio, save_figure, write_json

NAME = "e2e"
CLIENTS = 16
"""Runs queued or running at once, so the dev server's queue never empties while measuring."""
SETTLE_S = 1.0
"""Left out at the start of each phase: the switch of sides, and the dev server's queue
poll, which sleeps 0.5 s whenever it found the queue empty."""
IN_PROCESS_ROUNDS = 8
"""On/off block pairs of in-process runs; the order alternates."""
MODEL_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AIMIND_MODEL", "AIMIND_COMPACTION_MODEL")


@contextlib.contextmanager
def _server(database_url: str, data_dir: Path) -> Iterator[Any]:
    """``langgraph dev`` via the test harness, with the repo config minus ``auth``."""
    from tests.support import langgraph_server as harness

    original = harness.server_config

    def without_auth(root: Path = harness.REPO_ROOT) -> dict[str, Any]:
        config = original(root)
        config.pop("auth", None)
        return config

    env = {name: "" for name in MODEL_ENV}  # the offline model, whatever the shell has
    env["AIMIND_SESSION_SECRET"] = os.environ["AIMIND_SESSION_SECRET"]
    harness.server_config = without_auth
    try:
        with harness.langgraph_server(database_url, data_dir, env=env) as server:
            yield server
    finally:
        harness.server_config = original


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _phase(
    client: Any, sessions: list[str] | None, seconds: float, tag: str
) -> tuple[int, int]:
    """``CLIENTS`` clients run chat runs back to back for ``seconds``: (runs that finished
    after the settling second and before the end, i.e. at steady load; all runs).

    Clients never wait for each other, so the server's queue is never empty while
    measuring: blocks that drain would include the dev server's idle queue poll.
    """
    start = time.perf_counter()
    window, deadline = start + SETTLE_S, start + seconds
    done = total = 0

    async def one(c: int) -> None:
        nonlocal done, total
        kwargs: dict[str, Any] = {"context": {"session_id": sessions[c]}} if sessions else {}
        i = 0
        while time.perf_counter() < deadline:
            text = f"Bench question {tag}-{c}-{i}: what should we do next?"
            payload = {"messages": [{"role": "user", "content": text}]}
            await client.runs.wait(None, "chat", input=payload, **kwargs)
            i += 1
            total += 1
            if window <= time.perf_counter() <= deadline:
                done += 1

    await asyncio.gather(*(one(c) for c in range(CLIENTS)))
    return done, total


async def run_backend(env: BenchEnv, name: str, profile: Profile) -> dict[str, Any]:
    from langgraph_sdk import get_client

    backend = env.backend(name)
    sessions = [f"bench-e2e-{name}-session-{c:04d}" for c in range(CLIENTS)]
    data_dir = env.workdir / f"e2e-{name}"
    phase_rates: dict[str, list[float]] = {"on": [], "off": []}
    cpu_s = {"on": 0.0, "off": 0.0}
    runs = {"on": 0, "off": 0}
    all_runs = {"on": 0, "off": 0}
    measured_s = profile.e2e_phase_s - SETTLE_S
    started = time.perf_counter()
    with _server(backend.url, data_dir) as server:
        boot_s = time.perf_counter() - started
        client = get_client(url=server.base_url)
        await _phase(client, sessions, SETTLE_S + 0.5, "warm-on")
        await _phase(client, None, SETTLE_S + 0.5, "warm-off")
        for p in range(profile.e2e_phases):
            order = [("on", sessions), ("off", None)]
            for label, sess in order if p % 2 == 0 else order[::-1]:
                cpu0 = _cpu_s(server.process.pid)
                done, total = await _phase(client, sess, profile.e2e_phase_s, f"{label}{p}")
                cpu_s[label] += _cpu_s(server.process.pid) - cpu0
                phase_rates[label].append(done / measured_s)
                runs[label] += done
                all_runs[label] += total
        probe = await client.runs.wait(
            None,
            "chat",
            input={"messages": [{"role": "user", "content": "What do you remember?"}]},
            context={"session_id": sessions[0]},
        )
    runs_per_s = {k: runs[k] / (measured_s * profile.e2e_phases) for k in runs}
    seen = re.search(r"(\d+) recent turns", str(probe))
    return {
        "backend": name,
        "server_boot_s": round(boot_s, 1),
        "clients": CLIENTS,
        "phases_per_side": profile.e2e_phases,
        "measured_s_per_phase": measured_s,
        "runs_per_side": runs,
        "runs_per_s": {k: round(v, 2) for k, v in runs_per_s.items()},
        "on_vs_off_runs_per_s": ratio(runs_per_s["on"], runs_per_s["off"]),
        "memory_cost_pct": round(100 * (1 - runs_per_s["on"] / runs_per_s["off"]), 1),
        "run_ms": {k: round(1000 / v, 2) for k, v in runs_per_s.items()},
        "memory_ms_per_run": round(1000 / runs_per_s["on"] - 1000 / runs_per_s["off"], 2),
        "memory_seen_by_model": bool(seen and int(seen.group(1)) > 0),
        "phase_runs_per_s": {k: [round(r, 2) for r in v] for k, v in phase_rates.items()},
        "adjacent_phase_ratios": [
            round(on / off, 3)
            for on, off in zip(phase_rates["on"], phase_rates["off"], strict=True)
        ],
        "server_cpu_ms_per_run": {k: round(1000 * cpu_s[k] / all_runs[k], 2) for k in runs},
        "in_process": await _in_process(
            backend.url, sessions, IN_PROCESS_ROUNDS, profile.e2e_in_process_runs
        ),
    }


async def _in_process(url: str, sessions: list[str], rounds: int, runs: int) -> dict[str, Any]:
    """Memory's own cost per chat run, without the server: the chat graph (local tools, the
    offline model) invoked in this process, memory on/off blocks of ``runs`` interleaved.

    CPU is this process's (the SQLite connection's thread included, not the Postgres
    server's). The final-turn node's "no session" warning is silenced for the off side,
    which only makes "off" cheaper.
    """
    from adapters.memory_runtime import close_memory
    from adapters.tools import local_tools
    from graphs.chat import build_graph
    from memory.backends import DATABASE_URL_ENV

    graph = build_graph(tools=local_tools())
    final_turn_log = logging.getLogger("aimind.final_turn")
    level, saved_url = final_turn_log.level, os.environ.get(DATABASE_URL_ENV)
    final_turn_log.setLevel(logging.ERROR)
    os.environ[DATABASE_URL_ENV] = url
    wall = {"on": 0.0, "off": 0.0}
    cpu = {"on": 0.0, "off": 0.0}

    async def block(label: str, count: int) -> None:
        for i in range(count):
            context = {"session_id": sessions[i % len(sessions)]} if label == "on" else None
            text = f"Bench question in-process-{label}-{i}: what should we do next?"
            await graph.ainvoke({"messages": [{"role": "user", "content": text}]}, context=context)

    try:
        await block("on", runs)  # warm: every session's kept copy, imports, first queries
        await block("off", runs)
        for r in range(rounds):
            for label in ("on", "off") if r % 2 == 0 else ("off", "on"):
                w, c = time.perf_counter(), time.process_time()
                await block(label, runs)
                wall[label] += time.perf_counter() - w
                cpu[label] += time.process_time() - c
    finally:
        await close_memory()
        final_turn_log.setLevel(level)
        if saved_url is None:
            os.environ.pop(DATABASE_URL_ENV, None)
        else:
            os.environ[DATABASE_URL_ENV] = saved_url
    n = rounds * runs
    run_ms = {k: round(1000 * v / n, 3) for k, v in wall.items()}
    cpu_ms = {k: round(1000 * v / n, 3) for k, v in cpu.items()}
    return {
        "runs_per_side": n,
        "run_ms": run_ms,
        "cpu_ms_per_run": cpu_ms,
        "memory_ms_per_run": round(run_ms["on"] - run_ms["off"], 3),
        "memory_cpu_ms_per_run": round(cpu_ms["on"] - cpu_ms["off"], 3),
    }


def plot(results: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    labels, values = [], []
    for backend, res in results.items():
        for k in ("off", "on"):
            labels.append(f"{backend}\nmemory {k}")
            values.append(res["runs_per_s"][k])
    ax.bar(range(len(values)), values, color=["C7", "C0"] * len(results))
    ax.set_xticks(range(len(values)), labels, fontsize=8)
    ax.set_ylabel("chat runs / s at steady load (langgraph dev)")
    ax.set_title("End to end: memory on vs off")
    ax.grid(alpha=0.3, axis="y")
    save_figure(fig, path)


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    backends = {}
    for name in BACKENDS:
        backends[name] = await run_backend(env, name, profile)
        await asyncio.sleep(0)
    result = {"benchmark": NAME, "profile": profile.name, "backends": backends}
    write_json(out, NAME, result)
    plot(backends, out / f"{NAME}.png")
    return result
