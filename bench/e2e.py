"""Benchmark 6 — end to end: ``chat`` graph runs/s under ``langgraph dev``, memory on vs off.

One ``langgraph dev`` server (the test harness ``tests/support/langgraph_server.py``)
serves the repo's graphs on the bench database with the offline model. Memory
on = the run carries a session (run context ``session_id``); memory off = the
same run with no session, so ``load_memory_state`` returns None and the
final-turn node skips memory (``adapters/final_turn.py``). The bench config
leaves out the ``auth`` section — with auth every request has a session, so
"off" could not run on the same server — and on/off blocks alternate on that
one server, so auth is no part of either figure.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import BACKENDS, BenchEnv, Profile, median, pyplot, ratio, write_json

NAME = "e2e"
BLOCK = 5
"""Runs per block; blocks alternate memory on / off."""
WARMUP_RUNS = 2
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


async def _runs(client: Any, n: int, session: str | None, tag: str) -> list[float]:
    times = []
    for i in range(n):
        payload = {"messages": [{"role": "user", "content": f"Bench question {tag} {i}: hi?"}]}
        kwargs: dict[str, Any] = {"context": {"session_id": session}} if session else {}
        t0 = time.perf_counter()
        await client.runs.wait(None, "chat", input=payload, **kwargs)
        times.append(time.perf_counter() - t0)
    return times


async def run_backend(env: BenchEnv, name: str, profile: Profile) -> dict[str, Any]:
    from langgraph_sdk import get_client

    backend = env.backend(name)
    session = f"bench-e2e-{name}-session-0001"
    data_dir = env.workdir / f"e2e-{name}"
    times: dict[str, list[float]] = {"on": [], "off": []}
    started = time.perf_counter()
    with _server(backend.url, data_dir) as server:
        boot_s = time.perf_counter() - started
        client = get_client(url=server.base_url)
        await _runs(client, WARMUP_RUNS, session, "warm-on")
        await _runs(client, WARMUP_RUNS, None, "warm-off")
        blocks = max(1, profile.e2e_runs // BLOCK)
        for b in range(blocks):
            order = [("on", session), ("off", None)]
            for label, sess in order if b % 2 == 0 else order[::-1]:
                times[label] += await _runs(client, BLOCK, sess, f"{label}{b}")
        probe = await client.runs.wait(
            None,
            "chat",
            input={"messages": [{"role": "user", "content": "What do you know?"}]},
            context={"session_id": session},
        )
    runs_per_s = {k: len(v) / sum(v) for k, v in times.items()}
    return {
        "backend": name,
        "server_boot_s": round(boot_s, 1),
        "runs_each": len(times["on"]),
        "runs_per_s": {k: round(v, 2) for k, v in runs_per_s.items()},
        "p50_ms": {k: round(1000 * median(v), 2) for k, v in times.items()},
        "on_vs_off_runs_per_s": ratio(runs_per_s["on"], runs_per_s["off"]),
        "memory_cost_pct": round(100 * (1 - runs_per_s["on"] / runs_per_s["off"]), 1),
        "memory_seen_by_model": "Bench question" in str(probe),
        "per_run_ms": {k: [round(1000 * t, 2) for t in v] for k, v in times.items()},
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
    ax.set_ylabel("chat runs / s (sequential, langgraph dev)")
    ax.set_title("End to end: memory on vs off")
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    backends = {}
    for name in BACKENDS:
        backends[name] = await run_backend(env, name, profile)
        await asyncio.sleep(0)
    result = {"benchmark": NAME, "profile": profile.name, "backends": backends}
    write_json(out, NAME, result)
    plot(backends, out / f"{NAME}.png")
    return result
