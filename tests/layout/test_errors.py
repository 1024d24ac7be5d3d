"""One error tree: every exception class the project raises to a user, an operator or a
caller derives from ``AIMindError`` (``aimind_memory.AIMindError``), keeping its builtin
base (``ValueError``, ``RuntimeError``, …) so that existing ``except`` clauses hold."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import aimind_memory
from aimind_memory.memory.errors import AIMindError

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("memory", "adapters", "graphs", "aimind_memory", "bench")
INSIDE = ("memory", "adapters", "graphs")
INTERNAL = "internal: memory reports MemoryUnavailableError"
OFF_THE_TREE = {
    "aimind_memory.memory.writes.WriteConflictError": INTERNAL,
    "aimind_memory.memory.storage.sqlite.ScrubBusyError": INTERNAL,
    "aimind_memory.memory.storage.pg_pool.DatabaseUnreachable": "psycopg_pool's PoolTimeout",
    "aimind_memory.adapters.server.request_guard._TooLarge": "private: never raised out",
}
"""Exception classes that stay off the tree, and why."""


def exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            module = module.removesuffix(".__init__")
            if package in INSIDE:  # installed inside the one top-level name
                module = f"aimind_memory.{module}"
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.ClassDef) and node.name.endswith(
                    ("Error", "Exception", "Timeout", "Unreachable", "TooLarge")
                ):
                    cls = getattr(importlib.import_module(module), node.name)
                    if isinstance(cls, type) and issubclass(cls, BaseException):
                        found[f"{module}.{node.name}"] = cls
    return found


def test_every_exception_class_is_on_the_one_tree() -> None:
    classes = exception_classes()
    assert len(classes) >= 25
    off = sorted(name for name, cls in classes.items() if not issubclass(cls, AIMindError))
    assert off == sorted(OFF_THE_TREE), "derive it from memory.errors.AIMindError"


def test_the_errors_a_library_user_meets_are_exported_from_one_place() -> None:
    exported = ("SettingsError", "InvalidSessionError", "ForbiddenFieldError", "MemoryThreadError")
    for name in exported:
        assert issubclass(getattr(aimind_memory, name), aimind_memory.AIMindError), name
        assert name in aimind_memory.__all__
