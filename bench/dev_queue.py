"""Benchmark 10 — what we change in ``langgraph dev``: the run queue wake-up and the chat
thread's one-query reads.

Two ``langgraph dev`` servers run side by side on the repo's config (auth
included) and the offline model: ours, and one as shipped
(``AIMIND_DEV_QUEUE_WAKEUP=0`` and ``AIMIND_DEV_DELTA_HISTORY=0``). Each figure is
moved by one of the two changes only:

- the wake-up (``adapters/server/langgraph_dev/run_queue.py``): one SDK client sends ``chat`` runs
  one after the other (``runs.wait``, stateless, with a session: what a person
  chatting does), in blocks that alternate between the servers; the ratio of the
  median run latencies, and each server's own log for how long runs waited in its
  queue (``run_queue_ms``) and ran (``run_exec_ms``);
- a user's own agent: a third server serves the ``create_agent`` graph of
  ``docs/guides/own-agent.md`` from a folder of its own (``aimind_memory.server``'s
  auth and app, the wake-up on), in the same alternating blocks; the ratio of its
  median run latency to ``chat``'s on our server says whether a user's graph runs as
  fast as ours;
- the delta-channel history (``adapters/server/langgraph_dev/delta_history.py``): a ``chat`` thread
  of ``thread_turns`` turns on each server, then ``getState`` and ``getHistory``
  (limit 10: what agent-chat-ui asks for after every turn), timed by the client.
"""

from __future__ import annotations

import contextlib
import re
import statistics
import time
from pathlib import Path
from typing import Any

from bench.common import BenchEnv, Profile, pct, pyplot, ratio, save_figure, write_json
from bench.common import target as _target

NAME = "dev_queue"
LABEL = "dev run queue: one client, with and without the wake-up"
SIDES = ("stock", "wakeup")
OWN = "own"
"""The user's own agent's server (``docs/guides/own-agent.md``), timed beside the two."""
GRAPHS = {"stock": "chat", "wakeup": "chat", OWN: "agent"}
SWITCH = {"stock": {"AIMIND_DEV_QUEUE_WAKEUP": "0", "AIMIND_DEV_DELTA_HISTORY": "0"}, "wakeup": {}}
THREAD_TURNS = {"full": 100, "quick": 30}
"""Turns of the chat thread whose reads are timed (a full copy of its transcript every
100 channel updates, two per turn)."""
THREAD_READS = 5
READ_GOAL = 2.0
"""Target: a long chat thread's history reads at least this many times faster."""
TOKEN = "bench-dev-queue-session-01"
WARM_RUNS = 3
GOAL = 5.0
"""Target: the wake-up makes one client's run at least this many times faster."""
OWN_GOAL = 1.5
"""Target: a user's own agent's run is at most this many times slower than ``chat``'s."""
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FIELD = {"queue": re.compile(r"run_queue_ms=(\d+)"), "exec": re.compile(r"run_exec_ms=(\d+)")}


def server_ms(log_text: str) -> dict[str, list[int]]:
    """``run_queue_ms`` and ``run_exec_ms`` of every run in a ``langgraph dev`` log."""
    text = _ANSI.sub("", log_text)
    return {k: [int(v) for v in pattern.findall(text)] for k, pattern in _FIELD.items()}


async def _block(client: Any, runs: int, tag: str, graph: str = "chat") -> list[float]:
    """``runs`` runs of ``graph`` back to back; the latency of each, in ms."""
    latencies = []
    for i in range(runs):
        text = f"Bench question {tag}-{i}: what did we decide?"
        started = time.perf_counter()
        await client.runs.wait(None, graph, input={"messages": [{"role": "user", "content": text}]})
        latencies.append(1000 * (time.perf_counter() - started))
    return latencies


async def _thread_reads(client: Any, turns: int, tag: str) -> dict[str, float]:
    """A ``chat`` thread of ``turns`` turns, then its state and history read
    ``THREAD_READS`` times: the median of each, in ms."""
    thread_id = (await client.threads.create())["thread_id"]
    for i in range(turns):
        text = f"Bench turn {tag}-{i}: " + "the plan is still the plan. " * 30
        await client.runs.wait(
            thread_id, "chat", input={"messages": [{"role": "user", "content": text}]}
        )
    state_ms, history_ms = [], []
    for _ in range(THREAD_READS):
        started = time.perf_counter()
        await client.threads.get_state(thread_id)
        state_ms.append(1000 * (time.perf_counter() - started))
        started = time.perf_counter()
        await client.threads.get_history(thread_id, limit=10)
        history_ms.append(1000 * (time.perf_counter() - started))
    return {
        "state_p50_ms": round(statistics.median(state_ms), 1),
        "history10_p50_ms": round(statistics.median(history_ms), 1),
    }


def _summary(latencies: list[float], log: dict[str, list[int]]) -> dict[str, Any]:
    return {
        "runs": len(latencies),
        "p50_ms": round(statistics.median(latencies), 1),
        "p90_ms": round(pct(latencies, 90), 1),
        "server_queue_p50_ms": statistics.median(log["queue"]) if log["queue"] else None,
        "server_exec_p50_ms": statistics.median(log["exec"]) if log["exec"] else None,
        "server_runs_logged": len(log["exec"]),
    }


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    from langgraph_sdk import get_client

    from harness.langgraph_server import langgraph_server
    from harness.own_agent import user_folder

    timed = (*SIDES, OWN)
    latencies: dict[str, list[float]] = {side: [] for side in timed}
    logs: dict[str, dict[str, list[int]]] = {}
    with contextlib.ExitStack() as stack:
        servers, clients, offsets = {}, {}, {}
        for side in timed:
            root = env.workdir / f"{NAME}-{side}"
            config = user_folder(root / "work") if side == OWN else None
            servers[side] = stack.enter_context(
                langgraph_server(
                    f"sqlite:///{root / 'db' / 'aimind.sqlite'}",
                    root / "data",
                    workdir=root / "work",
                    env=SWITCH.get(side),
                    config=config,
                )
            )
            clients[side] = get_client(
                url=servers[side].base_url, headers={"X-AIMind-Session": TOKEN}
            )
        for side in timed:
            await _block(clients[side], WARM_RUNS, f"warm-{side}", GRAPHS[side])
            offsets[side] = servers[side].log_path.stat().st_size
        for r in range(profile.queue_rounds):
            for side in timed if r % 2 == 0 else timed[::-1]:
                latencies[side] += await _block(
                    clients[side], profile.queue_runs, f"{side}{r}", GRAPHS[side]
                )
        for side in timed:
            with servers[side].log_path.open("rb") as fh:
                fh.seek(offsets[side])
                logs[side] = server_ms(fh.read().decode(errors="replace"))
        turns = THREAD_TURNS.get(profile.name, THREAD_TURNS["quick"])
        reads = {side: await _thread_reads(clients[side], turns, side) for side in SIDES}
    sides = {
        side: {**_summary(latencies[side], logs[side]), **reads.get(side, {})} for side in timed
    }
    result = {
        "benchmark": NAME,
        "profile": profile.name,
        "rounds": profile.queue_rounds,
        "runs_per_block": profile.queue_runs,
        "sides": sides,
        "stock_vs_wakeup_p50": ratio(sides["stock"]["p50_ms"], sides["wakeup"]["p50_ms"]),
        "goal": GOAL,
        "own_vs_ours_p50": ratio(sides[OWN]["p50_ms"], sides["wakeup"]["p50_ms"]),
        "own_goal": OWN_GOAL,
        "thread_turns": turns,
        "history_stock_vs_ours": ratio(
            sides["stock"]["history10_p50_ms"], sides["wakeup"]["history10_p50_ms"]
        ),
        "state_stock_vs_ours": ratio(
            sides["stock"]["state_p50_ms"], sides["wakeup"]["state_p50_ms"]
        ),
        "read_goal": READ_GOAL,
    }
    write_json(out, NAME, result)
    plot(result, out / f"{NAME}.png")
    return result


def plot(result: dict[str, Any], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    sides = result["sides"]
    labels = ["stock queue", "with wake-up"]
    p50 = [sides[s]["p50_ms"] for s in SIDES]
    queue = [sides[s]["server_queue_p50_ms"] or 0 for s in SIDES]
    ax.bar([0, 1], p50, color=["C7", "C0"], label="client: run latency p50")
    ax.bar([0, 1], queue, color="none", edgecolor="k", hatch="//", label="server: queue wait p50")
    ax.set_xticks([0, 1], labels)
    ax.set_ylabel("ms")
    ax.set_title(f"One client's chat run under langgraph dev ({result['stock_vs_wakeup_p50']} ×)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    save_figure(fig, path)


# --- report -------------------------------------------------------------------------


def targets(dq: dict[str, Any]) -> list[dict[str, Any]]:
    """This benchmark's rows of the targets table."""
    out: list[dict[str, Any]] = []
    stock, wake = dq["sides"]["stock"], dq["sides"]["wakeup"]
    v = dq["stock_vs_wakeup_p50"]
    out.append(
        _target(
            f"dev run queue wake-up: one client's run ≥ {dq['goal']:g} × faster",
            "run latency p50, stock queue / with the wake-up",
            v,
            f"≥ {dq['goal']:g}",
            v >= dq["goal"],
            f"{stock['p50_ms']} ms vs {wake['p50_ms']} ms; in the server's log, queue wait "
            f"{stock['server_queue_p50_ms']} vs {wake['server_queue_p50_ms']} ms, run "
            f"{stock['server_exec_p50_ms']} vs {wake['server_exec_p50_ms']} ms",
        )
    )
    if "own_vs_ours_p50" in dq:
        own, o = dq["sides"][OWN], dq["own_vs_ours_p50"]
        out.append(
            _target(
                f"your own agent served (docs/guides/own-agent.md): its run ≤ "
                f"{dq['own_goal']:g} × the chat graph's",
                "run latency p50, own agent / chat, both with the wake-up",
                o,
                f"≤ {dq['own_goal']:g}",
                o <= dq["own_goal"],
                f"{own['p50_ms']} ms vs {wake['p50_ms']} ms; queue wait in its log "
                f"{own['server_queue_p50_ms']} ms",
            )
        )
    if "history_stock_vs_ours" in dq:
        h = dq["history_stock_vs_ours"]
        out.append(
            _target(
                f"dev delta-channel history: a {dq['thread_turns']}-turn chat thread's "
                f"history reads ≥ {dq['read_goal']:g} × faster",
                "getHistory(limit 10) p50, as shipped / ours",
                h,
                f"≥ {dq['read_goal']:g}",
                h >= dq["read_goal"],
                f"{stock['history10_p50_ms']} ms vs {wake['history10_p50_ms']} ms; getState "
                f"{stock['state_p50_ms']} vs {wake['state_p50_ms']} ms",
            )
        )
    return out


def readme_section(dq: dict[str, Any]) -> list[str]:
    """This benchmark's section of the results page (``docs/benchmarks/results.md``)."""
    lines = [
        "### 10. What we change in `langgraph dev`: the run queue wake-up, a chat thread's reads",
        "",
        "`langgraph dev`'s in-memory queue looks for new runs every 0.5 s and only takes",
        "runs created before its look began, so a run sent to an idle server waits",
        "0.5–1.0 s before it starts. `adapters/server/langgraph_dev/run_queue.py` wakes the",
        "queue when a run is created (development only). Two servers run side by side, one with",
        "`AIMIND_DEV_QUEUE_WAKEUP=0` and `AIMIND_DEV_DELTA_HISTORY=0` (as shipped); one SDK",
        "client sends `chat` runs",
        "(`runs.wait`, stateless, with a session) one after another in blocks of "
        f"{dq['runs_per_block']} that",
        f"alternate between them ({dq['rounds']} blocks each). Queue wait and run time",
        "come from each server's own log (`run_queue_ms`, `run_exec_ms`).",
        "",
        "| server | runs | client p50 ms | client p90 ms | server queue wait p50 ms | "
        "server run p50 ms |",
        "|---|---|---|---|---|---|",
    ]
    rows = [("stock", "stock queue"), ("wakeup", "with the wake-up")]
    rows += [(OWN, "your own agent (`agent`), with the wake-up")] if OWN in dq["sides"] else []
    for side, label in rows:
        r = dq["sides"][side]
        lines.append(
            f"| {label} | {r['runs']} | {r['p50_ms']} | {r['p90_ms']} | "
            f"{r['server_queue_p50_ms']} | {r['server_exec_p50_ms']} |"
        )
    lines += [
        "",
        f"Stock / wake-up, client p50: **{dq['stock_vs_wakeup_p50']} ×**.",
        "",
        *(
            [
                "A third server serves the `create_agent` graph of `docs/guides/own-agent.md`",
                "from a folder of its own (`aimind_memory.server`'s auth and app), its runs in",
                f"the same blocks: own agent / `chat`, client p50 **{dq['own_vs_ours_p50']} ×**.",
                "",
            ]
            if "own_vs_ours_p50" in dq
            else []
        ),
        "A `chat` thread keeps its transcript in a `DeltaChannel`; `langgraph dev`'s",
        "checkpointer adapter does not pass on the saver's one-query history of that",
        "channel, so reading it walks the thread one checkpoint at a time;",
        "`adapters/server/langgraph_dev/delta_history.py` passes it on (development only). After a",
        f"{dq.get('thread_turns')}-turn thread, each server reads it {THREAD_READS} times:",
        "",
        "| server | getState p50 ms | getHistory(limit 10) p50 ms |",
        "|---|---|---|",
    ]
    for side, label in (("stock", "as shipped"), ("wakeup", "ours")):
        r = dq["sides"][side]
        lines.append(f"| {label} | {r.get('state_p50_ms')} | {r.get('history10_p50_ms')} |")
    lines += [
        "",
        f"As shipped / ours, history: **{dq.get('history_stock_vs_ours')} ×**.",
        "",
        "![dev run queue](results/dev_queue.png)",
        "",
    ]
    return lines
