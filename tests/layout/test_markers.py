"""Every test has its kind from its folder (tests/conftest.py): a new folder must say
which it is, or ``-m unit`` and friends would silently leave its tests out."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.conftest import FOLDER_MARKS

ROOT = Path(__file__).resolve().parents[2]
PYTEST = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]


def test_every_folder_of_tests_has_a_kind() -> None:
    folders = {
        p.parent.relative_to(ROOT / "tests").parts[0] for p in (ROOT / "tests").rglob("test_*.py")
    }
    assert folders == set(FOLDER_MARKS), folders ^ set(FOLDER_MARKS)


def test_markers_are_declared_and_strict() -> None:
    declared = {line.split(":")[0] for line in PYTEST["markers"]}
    assert {*FOLDER_MARKS.values(), "postgres"} <= declared
    options = PYTEST["addopts"].split()
    assert {"--strict-markers", "--strict-config", "--durations=15"} <= set(options)
