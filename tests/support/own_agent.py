"""A user's own folder, as ``docs/guides/own-agent.md`` tells it: its ``agent.py`` and
``langgraph.json`` taken from the page's titled code blocks, so the page cannot drift
from what ``tests/server/test_own_agent.py`` and ``bench/dev_queue.py`` serve."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.support.langgraph_server import REPO_ROOT

__all__ = ["GRAPH", "GUIDE", "guide_files", "user_folder"]

GUIDE = REPO_ROOT / "docs" / "guides" / "own-agent.md"
GRAPH = "agent"
"""The graph the page's ``langgraph.json`` names."""
_BLOCK = re.compile(r'```\w+ title="(?P<name>[^"]+)"\n(?P<text>.*?)```', re.DOTALL)


def guide_files() -> dict[str, str]:
    """The page's files, by their titles: ``agent.py``, ``langgraph.json``."""
    return {m["name"]: m["text"] for m in _BLOCK.finditer(GUIDE.read_text())}


def user_folder(root: Path, *, auth: bool = True) -> dict[str, Any]:
    """Make ``root`` the user's folder with the page's ``agent.py``; return its
    ``langgraph.json`` (without ``auth`` and ``http`` when ``auth`` is off), which
    ``langgraph_server(config=...)`` writes beside it."""
    files = guide_files()
    root.mkdir(parents=True, exist_ok=True)
    (root / "agent.py").write_text(files["agent.py"])
    config: dict[str, Any] = json.loads(files["langgraph.json"])
    if not auth:
        config.pop("auth")
        config.pop("http")
    return config
