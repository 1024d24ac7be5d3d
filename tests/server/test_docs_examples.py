"""The code blocks of the README and of every docs page run as written: every ``python``
block with Python, every ``js`` block with Node and the official SDK, against a real
``langgraph dev`` whose URL replaces the docs' ``http://127.0.0.1:2024`` (the suite's shared
server on SQLite, with default settings as a newcomer's is: ``tests/support/deployment.py``).
A block that stops running fails here with its output, not in a newcomer's terminal.

A block that awaits at the top level or prints nothing is a fragment — a signature, with
``model``, ``tools`` or ``token`` the reader's — not a program: it must compile and its
imports must run. Every ``bash``
block's ``bash scripts/…`` and ``python -m …`` must name a script and a module that exist.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.langgraph_server import REPO_ROOT, LangGraphServer
from tests.support.deployment import Deployment

pytestmark = pytest.mark.e2e

DOCS = REPO_ROOT / "docs"
PAGES = (REPO_ROOT / "README.md", *sorted(DOCS.rglob("*.md")))
DOCS_URL = "http://127.0.0.1:2024"
NODE_MODULES = REPO_ROOT / "tests" / "node" / "node_modules"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.DOTALL | re.MULTILINE)
RUN_TIMEOUT_S = 300
PRIVATE_IMPORT = re.compile(r"^\s*(?:from|import)\s+(?:memory|adapters|graphs)\b", re.MULTILINE)


def _name(page: Path) -> str:
    return str(page.relative_to(REPO_ROOT))


def blocks(language: str) -> list[tuple[str, int, str]]:
    """``(page, index on the page, code)`` of every block in ``language``."""
    found = []
    for page in PAGES:
        codes = [code for lang, code in BLOCK.findall(page.read_text()) if lang == language]
        found += [(_name(page), i, code) for i, code in enumerate(codes)]
    return found


def _ids(found: list[tuple[str, int, str]]) -> list[str]:
    return [f"{page}#{i}" for page, i, _ in found]


def is_program(code: str) -> bool:
    """A block that runs whole: a module without top-level ``await`` that prints."""
    try:
        compile(code, "<docs block>", "exec")  # a top-level await does not compile
    except SyntaxError:
        return False
    tree = ast.parse(code)
    return any(
        isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"
        for node in ast.walk(tree)
    )


PROGRAMS = [b for b in blocks("python") if is_program(b[2])]
FRAGMENTS = [b for b in blocks("python") if not is_program(b[2])]


@pytest.fixture(scope="module")
def server(sqlite_deployment: Deployment) -> LangGraphServer:
    """The worker's ``langgraph dev`` on SQLite with default settings (started once for
    every module that uses it); each example's session is its own."""
    if not sqlite_deployment.server.running:  # a test stopped it and failed before a start
        sqlite_deployment.server.start()
    return sqlite_deployment.server


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
        f"docs block {name} failed (exit {done.returncode}):\n{code}\n"
        f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-6000:]}"
    )
    return done.stdout


def test_the_docs_have_the_blocks_this_test_runs() -> None:
    sdk = [code for page, _, code in PROGRAMS if DOCS_URL in code]
    assert len(sdk) == 1, "the SDK example (one python block against a server) is missing"
    assert len(PROGRAMS) >= 3 and FRAGMENTS, "the library and middleware examples are missing"
    js = blocks("js")
    assert js and all(DOCS_URL in code for _, _, code in js)


def test_examples_import_only_the_public_path() -> None:
    private = [f"{page}#{i}" for page, i, code in blocks("python") if PRIVATE_IMPORT.search(code)]
    assert not private, f"docs examples import memory/adapters/graphs, not aimind_memory: {private}"


@pytest.mark.parametrize(("page", "index", "code"), PROGRAMS, ids=_ids(PROGRAMS))
def test_python_block_runs(
    request: pytest.FixtureRequest, tmp_path: Path, page: str, index: int, code: str
) -> None:
    if DOCS_URL in code:
        server: LangGraphServer = request.getfixturevalue("server")
        code = code.replace(DOCS_URL, server.base_url)
    name = re.sub(r"\W", "_", f"{page}_{index}") + ".py"
    out = run_block([sys.executable], code, name, tmp_path)
    assert out.strip(), "the example prints what it did"
    if "get_client" in code:  # the SDK example: a chat reply, then the approved plan
        assert "[offline model]" in out
        assert "Proposed:" in out and "Tasklist final:" in out


@pytest.mark.parametrize(("page", "index", "code"), FRAGMENTS, ids=_ids(FRAGMENTS))
def test_python_fragment_compiles_and_imports(
    tmp_path: Path, page: str, index: int, code: str
) -> None:
    tree = compile(code, page, "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    assert imports, f"{page}#{index} shows no import: which path does it use?"
    program = "\n".join(ast.unparse(node) for node in imports) + "\nprint('imported')\n"
    assert run_block([sys.executable], program, f"fragment_{index}.py", tmp_path).strip()


@pytest.mark.parametrize(("page", "index", "code"), blocks("bash"), ids=_ids(blocks("bash")))
def test_shell_block_names_what_exists(page: str, index: int, code: str) -> None:
    for script in re.findall(r"\bbash\s+(\S+\.sh)\b", code):
        assert (REPO_ROOT / script).is_file(), f"{page}#{index}: {script} does not exist"
    for module in re.findall(r"\bpython\s+-m\s+([\w.]+)", code):
        if module in {"pip", "pytest", "uvicorn"}:
            continue
        assert importlib.util.find_spec(module), f"{page}#{index}: no module {module}"


@pytest.mark.parametrize(("page", "index", "code"), blocks("js"), ids=_ids(blocks("js")))
def test_js_block_runs_with_the_official_sdk(
    server: LangGraphServer, tmp_path: Path, page: str, index: int, code: str
) -> None:
    assert (NODE_MODULES / "@langchain" / "langgraph-sdk").is_dir(), (
        "tests/node has no node_modules: run `bash scripts/bootstrap.sh`"
    )
    node = shutil.which("node")
    assert node, "node is missing: install Node.js 20+"
    (tmp_path / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    out = run_block([node], code.replace(DOCS_URL, server.base_url), "docs.mjs", tmp_path)
    assert "[offline model]" in out
