"""Lay the package out as it installs, for the tools that read source files themselves.

The repository keeps ``memory/``, ``adapters/`` and ``graphs/`` as top-level folders
(contract §2); installed they are ``aimind_memory.memory``, ``.adapters`` and ``.graphs``
(``pyproject.toml``'s ``package-dir``). Python finds them through setuptools' editable
import hook; mypy, import-linter and the docs' API reader (griffe) read files without it.
This makes ``build/stage/aimind_memory`` (git-ignored), a folder of links to the
repository's files in the installed layout, for them to read: ``scripts/check.sh`` and
the docs build (``docs/hooks/stage.py``) run it. Made anew each time; nothing is copied.
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGE = ROOT / "build" / "stage"
INSIDE = ("memory", "adapters", "graphs")
"""The repository's folders installed inside ``aimind_memory``."""


def stage() -> Path:
    """Make ``build/stage/aimind_memory`` anew and return ``build/stage``."""
    package = STAGE / "aimind_memory"
    shutil.rmtree(STAGE, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in sorted((ROOT / "aimind_memory").iterdir()):
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for folder in INSIDE:
        (package / folder).symlink_to(ROOT / folder, target_is_directory=True)
    return STAGE


if __name__ == "__main__":
    print(stage().relative_to(ROOT))
