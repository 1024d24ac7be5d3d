"""How the suite is shared out between xdist workers: units of work, the longest first.

``scripts/test.sh`` runs ``pytest -n 2 --dist loadfile --no-loadscope-reorder``, and
``tests/conftest.py`` makes that scheduler :class:`UnitScheduling`: a unit, which one
worker runs from start to end, is a test file, or a whole folder where that folder's
conftest starts servers once for the folder (package-scoped: a folder split over both
workers, or interleaved with other folders on one, starts them again each time it is
re-entered). Units run in the order of their recorded cost, the longest first, so the
workers finish together; xdist's own order (most tests first) leaves the few-test files
that start servers, the longest, for the end.

(``--dist loadgroup`` with ``xdist_group`` marks would say the same, but xdist 3.8 renames
a marked test through an attribute pytest 9 no longer reads, so the marks group nothing.)

The costs are seconds from one whole run (``python -m tests.support.schedule junit.xml``
rewrites them). A unit not yet recorded costs nothing and runs after the recorded ones, in
collection order: a stale table only costs balance, never a test.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import pytest
from xdist.scheduler import LoadFileScheduling

COSTS_FILE = Path(__file__).with_name("unit_costs.json")
FOLDER_UNITS = ("browser", "production")
"""Folders whose conftest starts package-scoped servers (Chromium and ``langgraph dev``;
two Aegra replicas and Redis): each runs as one unit."""


def unit_of(nodeid: str) -> str:
    """``tests/<folder>`` for a test in a folder unit, else the test's file."""
    path = nodeid.split("::", 1)[0]
    parts = path.split("/")
    if len(parts) > 2 and parts[0] == "tests" and parts[1] in FOLDER_UNITS:
        return f"tests/{parts[1]}"
    return path


class UnitScheduling(LoadFileScheduling):
    """``--dist loadfile``, with a whole folder as the unit for :data:`FOLDER_UNITS`."""

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)


def recorded_costs() -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in json.loads(COSTS_FILE.read_text()).items()}
    except FileNotFoundError:
        return {}


def order_units(items: list[pytest.Item]) -> None:
    """Units by recorded cost, the longest first; a unit's tests stay together, in order."""
    costs = recorded_costs()
    units = [unit_of(item.nodeid) for item in items]
    first_seen: dict[str, int] = {}
    for n, unit in enumerate(units):
        first_seen.setdefault(unit, n)
    ranked = sorted(
        range(len(items)), key=lambda n: (-costs.get(units[n], 0.0), first_seen[units[n]], n)
    )
    items[:] = [items[n] for n in ranked]


def costs_from_junit(junit_xml: Path) -> dict[str, float]:
    """Seconds per unit: every test's time (setup, call and teardown) summed."""
    costs: dict[str, float] = {}
    for case in ET.parse(junit_xml).getroot().iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        module = max(n for n, part in enumerate(parts) if part.startswith("test_"))
        unit = unit_of("/".join(parts[: module + 1]) + ".py")
        costs[unit] = costs.get(unit, 0.0) + float(case.get("time") or 0.0)
    return costs


def main(argv: Sequence[str]) -> None:
    costs = costs_from_junit(Path(argv[0]))
    ordered = dict(
        sorted(((u, round(c)) for u, c in costs.items() if c >= 1), key=lambda uc: -uc[1])
    )
    COSTS_FILE.write_text(json.dumps(ordered, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
