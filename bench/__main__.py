"""``python -m bench [--quick] [--only NAME ...] [--out DIR] [--render]``."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import compaction_rate, concurrency, context_size, report, storage, turn_cost
from bench.common import BACKENDS, FULL, QUICK, RESULTS_DIR, Profile, bench_env, postgres_version

LOOP_BENCHES = ("turn_cost", "storage", "context_size", "compaction_rate")
ALL = (*LOOP_BENCHES, "concurrency", *(m.NAME for m in report.REPORTING))


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
            results["compaction_rate"] = compaction_rate.report(raws, profile, out)
        if "concurrency" in only:
            print("[bench] concurrency", flush=True)
            results["concurrency"] = await concurrency.run(env, profile, out)
        for module in report.REPORTING:  # each gives its own targets and results section
            if module.NAME in only:
                print(f"[bench] {module.LABEL}", flush=True)
                results[module.NAME] = await module.run(env, profile, out)
        results["_environment"] = report.environment(postgres_version(env.pg_server_url))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="CI smoke run: small sizes")
    parser.add_argument("--only", nargs="+", choices=ALL, help="default: all")
    parser.add_argument("--out", type=Path, help="results folder (default: bench/results)")
    parser.add_argument(
        "--render",
        action="store_true",
        help="regenerate the results page from the stored results, measuring nothing",
    )
    args = parser.parse_args(argv)
    if args.render:
        out = args.out or RESULTS_DIR
        page = report.results_page(out)
        page.write_text(report.render(out))
        print(f"[bench] rendered {page} from {out}")
        return 0
    logging.basicConfig(level=logging.ERROR)
    profile = QUICK if args.quick else FULL
    tmp = None
    out = args.out
    if out is None and args.quick:
        tmp = tempfile.TemporaryDirectory(prefix="aimind-bench-quick-")
        out = Path(tmp.name)
    out = out or RESULTS_DIR
    started = time.perf_counter()
    only = set(args.only or ALL)
    results = asyncio.run(run_all(profile, out, only))
    elapsed = time.perf_counter() - started
    targets = report.targets(results)
    print(report.targets_table(targets))
    if not args.quick:
        report.write(out, results, profile, elapsed)
    print(f"[bench] {profile.name} run finished in {elapsed:.1f} s; results in {out}")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
