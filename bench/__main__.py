"""``python -m bench [--quick] [--only NAME ...] [--out DIR]``."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import (
    compaction_rate,
    concurrency,
    context_size,
    dev_queue,
    e2e,
    recall,
    report,
    storage,
    turn_cost,
)
from bench.common import BACKENDS, FULL, QUICK, RESULTS_DIR, Profile, bench_env, postgres_version

LOOP_BENCHES = ("turn_cost", "storage", "context_size", "compaction_rate")
ALL = (*LOOP_BENCHES, "concurrency", "recall", "e2e", "dev_queue")
QUICK_SKIPS = ("e2e",)
"""Too slow for the smoke run: a server boot per backend and long steady-load phases."""


async def run_all(profile: Profile, out: Path, only: set[str]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with bench_env() as env:
        if only & set(LOOP_BENCHES):
            raws = []
            for name in BACKENDS:
                print(
                    f"[bench] turn loop on {name}: {profile.turns} turns × 4 variants", flush=True
                )
                raws.append(await turn_cost.play(env, name, profile))
            results["turn_cost"] = turn_cost.report(raws, profile, out)
            results["storage"] = storage.report(raws, profile, out)
            results["context_size"] = context_size.report(raws, profile, out)
            print("[bench] compaction latency with a slow model", flush=True)
            results["compaction_rate"] = await compaction_rate.run(env, raws, profile, out)
        if "concurrency" in only:
            print("[bench] concurrency", flush=True)
            results["concurrency"] = await concurrency.run(env, profile, out)
        if "recall" in only:
            print("[bench] recall: planted facts and decisions after long chats", flush=True)
            results["recall"] = await recall.run(env, out)
        if "e2e" in only:
            print("[bench] end to end under langgraph dev", flush=True)
            results["e2e"] = await e2e.run(env, profile, out)
        if "dev_queue" in only:
            print("[bench] dev run queue: one client, with and without the wake-up", flush=True)
            results["dev_queue"] = await dev_queue.run(env, profile, out)
        results["_environment"] = report.environment(postgres_version(env.pg_server_url))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="CI smoke run: small sizes")
    parser.add_argument("--only", nargs="+", choices=ALL, help="default: all (quick: all but e2e)")
    parser.add_argument("--out", type=Path, help="results folder (default: bench/results)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    profile = QUICK if args.quick else FULL
    tmp = None
    out = args.out
    if out is None and args.quick:
        tmp = tempfile.TemporaryDirectory(prefix="aimind-bench-quick-")
        out = Path(tmp.name)
    out = out or RESULTS_DIR
    started = time.perf_counter()
    quick = tuple(name for name in ALL if name not in QUICK_SKIPS)
    only = set(args.only or (quick if args.quick else ALL))
    results = asyncio.run(run_all(profile, out, only))
    elapsed = time.perf_counter() - started
    targets = report.targets(results)
    print(report.targets_table(targets))
    if not args.quick:
        report.write(out, results, targets, profile, elapsed)
    print(f"[bench] {profile.name} run finished in {elapsed:.1f} s; results in {out}")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
