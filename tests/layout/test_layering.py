"""SPEC §2: memory knows nothing of graphs; graphs reach memory only through the adapters."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported_packages(path: Path) -> set[str]:
    """Top-level package names a module imports, lazy imports inside functions included."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def offenders(package: str, forbidden: set[str]) -> dict[str, set[str]]:
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        bad = imported_packages(path) & forbidden
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    return found


def test_memory_never_imports_graphs() -> None:
    assert offenders("memory", {"graphs"}) == {}


def test_graphs_reach_memory_only_through_adapters() -> None:
    assert offenders("graphs", {"memory"}) == {}


def test_the_checker_sees_a_direct_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from memory.text import truncate\n    return truncate\n")
    assert imported_packages(module) == {"memory"}
