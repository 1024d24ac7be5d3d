"""The README's code blocks run as written: every ``python`` block with Python, the ``js``
block with Node and the official SDK, against a real ``langgraph dev`` whose URL replaces
the README's ``http://127.0.0.1:2024``. A block that stops running fails here with its
output, not in a newcomer's terminal.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.langgraph_server import REPO_ROOT, LangGraphServer, langgraph_server

pytestmark = pytest.mark.e2e

README = REPO_ROOT / "README.md"
README_URL = "http://127.0.0.1:2024"
NODE_MODULES = REPO_ROOT / "tests" / "node" / "node_modules"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.DOTALL | re.MULTILINE)
RUN_TIMEOUT_S = 300
EXPECTED = {"python": 3, "js": 1}
"""The SDK example, the agent middleware example and the library example; the JS SDK example."""


def blocks(language: str) -> list[str]:
    return [code for lang, code in BLOCK.findall(README.read_text()) if lang == language]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LangGraphServer]:
    root = tmp_path_factory.mktemp("readme-server")
    with langgraph_server(
        f"sqlite:///{root / 'db' / 'aimind.sqlite'}", root / "data", workdir=root / "work"
    ) as running:
        yield running


def run_block(command: list[str], code: str, name: str, cwd: Path) -> str:
    """Run one block from its own file in ``cwd``; its output, or a failure that shows it."""
    path = cwd / name
    path.write_text(code)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AIMIND_", "OPENAI_")) and not k.endswith("_API_KEY")
    }
    env["AIMIND_DATA_DIR"] = str(cwd / "data")
    done = subprocess.run(
        [*command, str(path)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, (
        f"README block {name} failed (exit {done.returncode}):\n{code}\n"
        f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-6000:]}"
    )
    return done.stdout


def test_the_readme_has_the_blocks_this_test_runs() -> None:
    found = {language: len(blocks(language)) for language in EXPECTED}
    assert found == EXPECTED, "a README code block was added or removed: run it here too"
    assert all(README_URL in code for code in blocks("js"))
    assert sum(README_URL in code for code in blocks("python")) == 1


@pytest.mark.parametrize("index", range(EXPECTED["python"]))
def test_python_block_runs(server: LangGraphServer, tmp_path: Path, index: int) -> None:
    code = blocks("python")[index].replace(README_URL, server.base_url)
    out = run_block([sys.executable], code, f"readme_{index}.py", tmp_path)
    assert out.strip(), "the example prints what it did"
    if server.base_url in code:  # the SDK example: a chat reply, then the approved plan
        assert "[offline model]" in out
        assert "Proposed:" in out and "Tasklist final:" in out


def test_js_block_runs_with_the_official_sdk(server: LangGraphServer, tmp_path: Path) -> None:
    assert (NODE_MODULES / "@langchain" / "langgraph-sdk").is_dir(), (
        "tests/node has no node_modules: run `bash scripts/bootstrap.sh`"
    )
    node = shutil.which("node")
    assert node, "node is missing: install Node.js 20+"
    (tmp_path / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    (code,) = blocks("js")
    out = run_block([node], code.replace(README_URL, server.base_url), "readme.mjs", tmp_path)
    assert "[offline model]" in out
