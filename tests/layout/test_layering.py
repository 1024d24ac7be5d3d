"""SPEC §2: memory is the core (it imports neither the adapters nor the graphs); graphs reach
memory only through the adapters."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
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


def test_memory_imports_neither_graphs_nor_adapters() -> None:
    assert offenders("memory", {"graphs", "adapters"}) == {}


def test_graphs_reach_memory_only_through_adapters() -> None:
    assert offenders("graphs", {"memory"}) == {}


def test_the_checker_sees_a_direct_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from memory.text import truncate\n    return truncate\n")
    assert imported_packages(module) == {"memory"}


def test_opening_memory_loads_no_edge(tmp_path: Path) -> None:
    """A library user's ``open_memory()`` pulls in no model provider, tool or graph."""
    script = (
        "import asyncio, sys\n"
        "from memory import open_memory\n"
        "async def main():\n"
        f"    async with open_memory('sqlite:///{tmp_path / 'm.sqlite'}') as mem:\n"
        "        await mem.append_turn('session-token-0001', __import__('memory').FinalTurn(\n"
        "            user_text='hi', assistant_text='hello', status='completed'))\n"
        "asyncio.run(main())\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'adapters', 'graphs'}))\n"
    )
    env = {**os.environ, "AIMIND_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
