"""One error tree, gathered per package: every exception class the project raises to a
user, an operator or a caller derives from ``AIMindError`` (``aimind_memory.AIMindError``),
keeping its builtin base (``ValueError``, ``RuntimeError``, …) so that existing ``except``
clauses hold; each package defines its errors in its ``errors`` module; every error
``aimind_memory`` exports is on the Python API page."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import aimind_memory
from aimind_memory.memory.errors import AIMindError

ROOT = Path(__file__).resolve().parents[2]
INSIDE = ("memory", "adapters", "graphs")
"""The product's packages, installed inside ``aimind_memory``: one ``errors`` module each."""
INTERNAL = "internal: memory reports MemoryUnavailableError"
OFF_THE_TREE = {
    "aimind_memory.memory.errors.WriteConflictError": INTERNAL,
    "aimind_memory.memory.errors.ScrubBusyError": INTERNAL,
    "aimind_memory.memory.errors.RefusedOutput": "internal: a failed compaction, folded "
    "extractively",
    "aimind_memory.memory.storage.pg_pool.DatabaseUnreachable": "psycopg_pool's PoolTimeout",
    "aimind_memory.adapters.server.request_guard._TooLarge": "private: never raised out",
}
"""Exception classes that stay off the tree, and why: ``AIMindError`` means "its sentence
may be shown, pass it on", which these internal signals must not be."""
OUTSIDE_ERRORS_MODULES = {
    "aimind_memory.memory.storage.pg_pool.DatabaseUnreachable": "the pool's own PoolTimeout: "
    "memory's errors module stays free of psycopg",
    "aimind_memory.adapters.server.request_guard._TooLarge": "private to its module",
}
"""Exception classes defined outside their package's ``errors`` module, and why."""
API_PAGE = ROOT / "docs" / "reference" / "python-api.md"


def module_name(path: Path) -> str:
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    return f"aimind_memory.{module}" if module.split(".")[0] in INSIDE else module


def exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class the product and the bench define, by its full name."""
    found: dict[str, type[BaseException]] = {}
    for package in (*INSIDE, "aimind_memory", "bench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.parse(path.read_text()).body:
                if not isinstance(node, ast.ClassDef):
                    continue
                cls = getattr(importlib.import_module(module_name(path)), node.name)
                if isinstance(cls, type) and issubclass(cls, BaseException):
                    found[f"{module_name(path)}.{node.name}"] = cls
    return found


def test_every_exception_class_is_on_the_one_tree() -> None:
    classes = exception_classes()
    assert len(classes) >= 35
    off = sorted(
        name
        for name, cls in classes.items()
        if not issubclass(cls, AIMindError | Warning)  # a warning category is no error
    )
    assert off == sorted(OFF_THE_TREE), "derive it from memory.errors.AIMindError"


def test_each_package_defines_its_errors_in_its_errors_module() -> None:
    """One place per package to find what it raises (``memory/errors.py``,
    ``adapters/errors.py``, ``graphs/errors.py``)."""
    elsewhere = sorted(
        name
        for name in exception_classes()
        if name.startswith("aimind_memory.")
        and name.rsplit(".", 2)[-2] != "errors"
        and name not in OUTSIDE_ERRORS_MODULES
    )
    assert not elsewhere, f"move them to their package's errors module: {elsewhere}"
    for package in INSIDE:
        assert (ROOT / package / "errors.py").is_file(), package


def exported_errors() -> list[str]:
    return [
        name
        for name in aimind_memory.__all__
        if isinstance(value := getattr(aimind_memory, name), type)
        and issubclass(value, BaseException)
    ]


def test_the_errors_a_library_user_meets_are_exported_from_one_place() -> None:
    exported = exported_errors()
    meets = {
        "SettingsError",
        "LimitsError",
        "DatabaseURLError",
        "DatabaseUnreachableError",
        "InvalidSessionError",
        "ForbiddenFieldError",
        "MemoryThreadError",
        "MemoryNotServedError",
        "MemoryUnavailableError",
        "PinSourceError",
    }
    assert meets <= set(exported), meets - set(exported)
    for name in exported:
        cls = getattr(aimind_memory, name)
        assert issubclass(cls, aimind_memory.AIMindError | Warning), name


def test_every_exported_error_is_documented_on_the_api_page() -> None:
    documented = set(re.findall(r"^::: aimind_memory\.(\w+)$", API_PAGE.read_text(), re.M))
    missing = sorted(set(exported_errors()) - documented)
    assert not missing, f"docs/reference/python-api.md lacks ::: aimind_memory.<name> for {missing}"
