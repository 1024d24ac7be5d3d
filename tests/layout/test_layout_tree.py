"""The architecture page's layout is the tree of the repository's folders, one line each,
so it cannot fall behind a move."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
BRANCH = re.compile(r"^(?P<indent>(?:│   |    )*)(?:├── |└── )(?P<name>\S+)")


def drawn_tree() -> set[str]:
    """The folder paths the architecture page's layout block draws."""
    text = PAGE.read_text()
    block = text.split("## The layout", 1)[1].split("```", 2)[1]
    folders: set[str] = set()
    parents: list[str] = []
    for line in block.splitlines():
        match = BRANCH.match(line)
        if not match:
            continue
        depth = len(match["indent"]) // 4
        parents[depth:] = [match["name"]]
        folders.add("/".join(parents))
    return folders


def tracked_folders() -> set[str]:
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    folders: set[str] = set()
    for name in files:
        parts = name.split("/")[:-1]
        folders.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return folders


def test_the_architecture_page_draws_every_tracked_folder_once() -> None:
    assert drawn_tree() == tracked_folders()
