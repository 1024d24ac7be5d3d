"""A user's own folder, as ``docs/guides/own-agent.md`` tells it: its ``agent.py``,
``langgraph.json`` and ``aegra.json`` taken from the page's titled code blocks, and its
Aegra start from the page's shell block, so the page cannot drift from what
``tests/server/test_own_agent.py``, ``tests/server/test_own_agent_aegra.py`` and
``bench/dev_queue.py`` serve."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness.langgraph_server import REPO_ROOT

__all__ = [
    "AEGRA_CONFIG",
    "GRAPH",
    "GUIDE",
    "aegra_folder",
    "aegra_start",
    "guide_files",
    "user_folder",
]

GUIDE = REPO_ROOT / "docs" / "guides" / "own-agent.md"
GRAPH = "agent"
"""The graph the page's ``langgraph.json`` names."""
AEGRA_CONFIG = "aegra.json"
AEGRA_APP = "aegra_api.main:app"
"""What the page's Aegra start runs: the shell block naming it is that start."""
PAGE_DATABASE_URL = "postgresql://me:CHANGE-ME@127.0.0.1:5432/myagent"
PAGE_SECRET = "YOUR-SECRET"
PAGE_PORT = "--port 8000"
"""The page's database, secret and port, which a test replaces with its own."""
_BLOCK = re.compile(r'```\w+ title="(?P<name>[^"]+)"\n(?P<text>.*?)```', re.DOTALL)
_SHELL = re.compile(r"^```bash\n(?P<text>.*?)^```", re.DOTALL | re.MULTILINE)


def guide_files() -> dict[str, str]:
    """The page's files, by their titles: ``agent.py``, ``langgraph.json``, ``aegra.json``."""
    return {m["name"]: m["text"] for m in _BLOCK.finditer(GUIDE.read_text())}


def _config(files: dict[str, str], name: str, auth: bool) -> dict[str, Any]:
    config: dict[str, Any] = json.loads(files[name])
    if not auth:
        config.pop("auth")
        config.pop("http")
    return config


def user_folder(root: Path, *, auth: bool = True) -> dict[str, Any]:
    """Make ``root`` the user's folder with the page's ``agent.py``; return its
    ``langgraph.json`` (without ``auth`` and ``http`` when ``auth`` is off), which
    ``langgraph_server(config=...)`` writes beside it."""
    files = guide_files()
    root.mkdir(parents=True, exist_ok=True)
    (root / "agent.py").write_text(files["agent.py"])
    return _config(files, "langgraph.json", auth)


def aegra_folder(root: Path, *, auth: bool = True) -> None:
    """Make ``root`` the user's folder for Aegra: the page's ``agent.py`` and
    ``aegra.json`` (the latter without ``auth`` and ``http`` when ``auth`` is off)."""
    files = guide_files()
    root.mkdir(parents=True, exist_ok=True)
    (root / "agent.py").write_text(files["agent.py"])
    if auth:
        (root / AEGRA_CONFIG).write_text(files[AEGRA_CONFIG])
    else:
        (root / AEGRA_CONFIG).write_text(json.dumps(_config(files, AEGRA_CONFIG, auth)))


def aegra_start(database_url: str, secret: str, port: int) -> str:
    """The page's shell lines that start Aegra in the user's folder, with
    ``database_url``, ``secret`` and ``port`` in place of the page's."""
    starts = [m["text"] for m in _SHELL.finditer(GUIDE.read_text()) if AEGRA_APP in m["text"]]
    assert len(starts) == 1, f"{GUIDE.name} should have one shell block running {AEGRA_APP}"
    script = starts[0]
    ours = {PAGE_DATABASE_URL: database_url, PAGE_SECRET: secret, PAGE_PORT: f"--port {port}"}
    for placeholder, value in ours.items():
        assert placeholder in script, f"{GUIDE.name}'s Aegra start no longer has {placeholder}"
        script = script.replace(placeholder, value)
    return script
