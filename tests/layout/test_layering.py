"""contract §2 and the layout (issue 25): every import points down — graphs → adapters → memory,
and inside each, the layers its ``__init__`` docstring names. Checked statically, lazy
imports inside functions included, so the layout cannot drift back."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OURS = ("memory", "adapters", "graphs")

_BELOW_THE_EDGES = frozenset(
    {
        "memory",
        "adapters.settings",
        "adapters.engine",
        "adapters.tools",
        "adapters.models",
        "adapters.chat_memory",
    }
)
"""What the HTTP edge and the command may import: everything of ours below them."""

LAYERS: dict[str, frozenset[str]] = {
    # memory: the service at the top imports storage and compaction; they import only the
    # shared records and constants, and not each other.
    "memory.storage": frozenset({"memory.limits", "memory.models", "memory.settings"}),
    "memory.compaction.analysis": frozenset({"memory.limits", "memory.models", "memory.text"}),
    "memory.compaction": frozenset(
        {"memory.limits", "memory.models", "memory.text", "memory.compaction.analysis"}
    ),
    "memory": frozenset({"memory"}),
    # adapters, lowest first (adapters/__init__.py)
    "adapters.settings": frozenset({"memory"}),
    "adapters.engine": frozenset({"memory"}),
    "adapters.tools": frozenset({"memory", "adapters.settings"}),
    "adapters.models": frozenset({"memory", "adapters.tools"}),
    "adapters.chat_memory": frozenset({"memory", "adapters.engine"}),
    "adapters.server": _BELOW_THE_EDGES,
    "adapters.cli": _BELOW_THE_EDGES,
    # graphs reach memory only through the adapters (but for the one error tree's base), and
    # never the servers' edge
    "graphs": frozenset(
        {"memory.errors", "adapters.tools", "adapters.models", "adapters.chat_memory"}
    ),
}
"""Package → what else of ours its modules may import (besides their own package)."""


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str, root: Path) -> bool:
    base = root.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Our modules that ``path`` imports; ``from package import module`` names the module."""
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if _is_module(candidate, root) else base)
    return {name for name in found if name.split(".")[0] in OURS}


def layer_of(module: str) -> str:
    """The longest package of ``LAYERS`` that holds ``module`` ('' for none)."""
    return max((p for p in LAYERS if _within(module, p)), key=len, default="")


def allowed(importer: str, name: str) -> bool:
    layer = layer_of(importer)
    return layer_of(name) == layer or any(_within(name, a) for a in LAYERS.get(layer, ()))


def violations(root: Path = ROOT) -> dict[str, set[str]]:
    """Module → the imports of ours that run sideways or back up the layers."""
    found: dict[str, set[str]] = {}
    for top in OURS:
        for path in sorted((root / top).rglob("*.py")):
            me = module_name(path, root)
            bad = {name for name in imported_modules(path, root) if not allowed(me, name)}
            if bad:
                found[me] = bad
    return found


def test_every_import_points_down() -> None:
    assert violations() == {}


def test_every_module_has_a_layer() -> None:
    """New code goes into a layer with a rule; only the packages' own ``__init__`` are bare."""
    unplaced = {
        module_name(path, ROOT)
        for top in OURS
        for path in (ROOT / top).rglob("*.py")
        if not layer_of(module_name(path, ROOT))
    }
    assert unplaced == {"adapters"}


def test_the_checker_sees_imports_back_up(tmp_path: Path) -> None:
    def write(relative: str, text: str = "") -> None:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    packages = (
        "memory",
        "memory/storage",
        "memory/compaction",
        "adapters",
        "adapters/chat_memory",
        "adapters/server",
        "adapters/cli",
        "graphs",
    )
    for package in packages:
        write(f"{package}/__init__.py")
    write("memory/service.py")
    write("memory/limits.py")
    write("adapters/server/app.py")
    write("memory/storage/ok.py", "from memory.limits import X\nfrom memory.storage import ok\n")
    write("memory/storage/up.py", "def f():\n    from memory.service import open_memory\n")
    write("memory/storage/side.py", "from memory import compaction\n")
    write("memory/storage/root.py", "import memory\n")
    write("adapters/chat_memory/up.py", "from adapters.server import app\n")
    write("adapters/cli/up.py", "import graphs.chat\n")
    write("graphs/deep.py", "from memory import limits\n")
    write("memory/compaction/rel.py", "from ..storage import ok\n")
    assert violations(tmp_path) == {
        "memory.storage.up": {"memory.service"},
        "memory.storage.side": {"memory.compaction"},
        "memory.storage.root": {"memory"},
        "adapters.chat_memory.up": {"adapters.server.app"},
        "adapters.cli.up": {"graphs.chat"},
        "graphs.deep": {"memory.limits"},
        "memory.compaction.rel": {"memory.storage.ok"},
    }


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
