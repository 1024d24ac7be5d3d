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
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import BACKENDS, BenchEnv, Profile, pyplot, ratio, save_figure, write_json

NAME = "e2e"
CLIENTS = 24
"""Runs in flight at once: more than the dev server's 10 workers, so its queue never idles."""
BLOCKS = 6
"""Blocks per side; blocks alternate memory on / off."""
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


async def _block(client: Any, sessions: list[str] | None, per_client: int, tag: str) -> float:
    """``CLIENTS`` clients each run ``per_client`` chat runs back to back; wall seconds.

    Several runs in flight keep the dev server's queue busy: an idle queue polls
    every 0.5 s, which would hide everything else in a one-at-a-time loop.
    """

    async def one(c: int) -> None:
        kwargs: dict[str, Any] = {"context": {"session_id": sessions[c]}} if sessions else {}
        for i in range(per_client):
            text = f"Bench question {tag}-{c}-{i}: what should we do next?"
            payload = {"messages": [{"role": "user", "content": text}]}
            await client.runs.wait(None, "chat", input=payload, **kwargs)

    t0 = time.perf_counter()
    await asyncio.gather(*(one(c) for c in range(CLIENTS)))
    return time.perf_counter() - t0


async def run_backend(env: BenchEnv, name: str, profile: Profile) -> dict[str, Any]:
    from langgraph_sdk import get_client

    backend = env.backend(name)
    sessions = [f"bench-e2e-{name}-session-{c:04d}" for c in range(CLIENTS)]
    data_dir = env.workdir / f"e2e-{name}"
    elapsed: dict[str, list[float]] = {"on": [], "off": []}
    per_client = max(1, profile.e2e_runs // (CLIENTS * BLOCKS))
    started = time.perf_counter()
    with _server(backend.url, data_dir) as server:
        boot_s = time.perf_counter() - started
        client = get_client(url=server.base_url)
        await _block(client, sessions, 1, "warm-on")
        await _block(client, None, 1, "warm-off")
        for b in range(BLOCKS):
            order = [("on", sessions), ("off", None)]
            for label, sess in order if b % 2 == 0 else order[::-1]:
                elapsed[label].append(await _block(client, sess, per_client, f"{label}{b}"))
        probe = await client.runs.wait(
            None,
            "chat",
            input={"messages": [{"role": "user", "content": "What do you remember?"}]},
            context={"session_id": sessions[0]},
        )
    runs = CLIENTS * per_client * BLOCKS
    runs_per_s = {k: runs / sum(v) for k, v in elapsed.items()}
    seen = re.search(r"(\d+) recent turns", str(probe))
    return {
        "backend": name,
        "server_boot_s": round(boot_s, 1),
        "clients": CLIENTS,
        "runs_per_side": runs,
        "runs_per_s": {k: round(v, 2) for k, v in runs_per_s.items()},
        "on_vs_off_runs_per_s": ratio(runs_per_s["on"], runs_per_s["off"]),
        "memory_cost_pct": round(100 * (1 - runs_per_s["on"] / runs_per_s["off"]), 1),
        "memory_seen_by_model": bool(seen and int(seen.group(1)) > 0),
        "block_s": {k: [round(t, 3) for t in v] for k, v in elapsed.items()},
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
