"""The built wheel, installed in a fresh virtual environment outside the checkout, as a user's
project has it (contract §2, §13b): one top-level name, ``py.typed``, a licence and a
version in its metadata, no server, FastAPI or MCP outside its extras; and in a folder of
the user's own holding ``memory.py``, ``adapters.py``, ``graphs.py``, ``bench.py`` and
``settings.py`` (each of which fails if imported), ``aimind_memory`` imports and the
middleware runs with every server module unimportable.

Fast and offline: the wheel is built from the sdist (``python -m build --no-isolation``,
as a release builds it: what the sdist leaves out, the wheel lacks) of a clean copy of the
checkout (what a fresh clone has: no earlier build's file lists), installed with
``--no-deps --no-index``, and the fresh environment reads its dependencies from this
one's site-packages, after its own (a ``.pth`` line: this environment's editable install
of the checkout is not loaded there).
"""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
import textwrap
import tomllib
from email.message import Message
from email.parser import Parser
from pathlib import Path
from zipfile import ZipFile

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
SERVER_ONLY = (
    "fastapi",
    "starlette",
    "uvicorn",
    "langgraph_api",
    "langgraph_runtime_inmem",
    "langgraph_cli",
    "mcp",
    "langchain_mcp_adapters",
    "aegra_api",
)
"""Top-level modules only the ``server`` and ``production`` extras bring."""
SERVER_DISTRIBUTIONS = {
    "fastapi",
    "starlette",
    "langgraph-cli",
    "langgraph-api",
    "mcp",
    "langchain-mcp-adapters",
    "aegra-api",
}
USERS_OWN = ("memory", "adapters", "graphs", "bench", "settings")
"""A user's own modules, named as the repository's folders and ours once were."""

AGENT = textwrap.dedent(
    """
    import asyncio, importlib.abc, importlib.metadata, json, sys

    BLOCKED = set(sys.argv[2].split(","))

    class Blocked(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"{name} is not installed", name=name)
            return None

    sys.meta_path.insert(0, Blocked())

    def agents():
        return sorted(m for m in sys.modules if m.startswith("langchain.agents"))

    import aimind_memory
    after_import = agents()
    from aimind_memory import ChatMemoryMiddleware, offline_chat_model, open_memory
    after_names = agents()

    from langchain.agents import create_agent

    url = f"sqlite:///{sys.argv[1]}"
    agent = create_agent(
        offline_chat_model(), tools=[], middleware=[ChatMemoryMiddleware(database_url=url)]
    )

    async def main():
        context = {"session_id": "lean-install-session-0001"}
        for text in ("We decided to ship on Friday.", "When do we ship?"):
            result = await agent.ainvoke(
                {"messages": [{"role": "user", "content": text}]}, context=context
            )
        async with open_memory(url) as memory:
            state = await memory.load("lean-install-session-0001")
        print(json.dumps({
            "answer": result["messages"][-1].content,
            "turns": len(state.messages) // 2,
            "package": aimind_memory.__file__,
            "version": aimind_memory.__version__,
            "agents_on_import": after_import,
            "agents_on_names": after_names,
            "server_modules": sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED),
        }))

    asyncio.run(main())
    """
)


def clean_copy(into: Path) -> Path:
    """The checkout's files as a fresh clone has them (tracked, or new and not ignored): no
    build folder or egg-info of an earlier build, whose lists setuptools would reuse."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted but not yet staged is listed too
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    return into


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel built from it, from a clean copy, checked by ``twine check``."""
    out, source = tmp_path_factory.mktemp("dist"), clean_copy(tmp_path_factory.mktemp("src"))
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = out.glob("aimind_memory-*.tar.gz")
    (wheel,) = out.glob("aimind_memory-*.whl")
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return {"sdist": sdist, "wheel": wheel}


def wheel_metadata(wheel: Path) -> tuple[list[str], Message]:
    with ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        return names, Parser().parsestr(archive.read(metadata_name).decode())


def test_the_wheel_installs_one_typed_licensed_name_without_the_servers(
    dists: dict[str, Path],
) -> None:
    names, metadata = wheel_metadata(dists["wheel"])
    # one top-level name: a user's own memory.py, adapters.py or graphs.py never meets ours
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"aimind_memory"}, tops
    assert "aimind_memory/py.typed" in names
    # every module of the repository's folders, where the package maps it
    for folder in ("memory", "adapters", "graphs"):
        modules = {f"aimind_memory/{p.relative_to(ROOT)}" for p in (ROOT / folder).rglob("*.py")}
        assert modules <= set(names), sorted(modules - set(names))
    # the offline compactor's word lists and the chat page are data files: carried too
    data = [*(ROOT / "memory").rglob("*.toml"), *(ROOT / "adapters/server/static").iterdir()]
    carried = {f"aimind_memory/{p.relative_to(ROOT)}" for p in data}
    assert carried <= set(names), sorted(carried - set(names))
    assert metadata["Version"] == PROJECT["version"]
    assert metadata["License-Expression"] == "MIT"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    required = metadata.get_all("Requires-Dist") or []
    core = {
        r.split(";")[0].split("[")[0].split("<")[0].split(">")[0].strip()
        for r in required
        if "extra ==" not in r
    }
    assert "langgraph" in core and "langchain" in core
    assert not core & SERVER_DISTRIBUTIONS, core & SERVER_DISTRIBUTIONS
    assert {"server", "production"} <= set(metadata.get_all("Provides-Extra") or [])


@pytest.fixture(scope="module")
def fresh_venv(dists: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment outside the checkout with the wheel installed in it."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install", "-q"),
            *("--no-deps", "--no-index", str(dists["wheel"])),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    own = subprocess.run(
        [str(python), "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # The dependencies, from this environment's site-packages, after the venv's own.
    (Path(own) / "dependencies-from-the-test-venv.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )
    return venv


@pytest.fixture
def users_folder(tmp_path: Path) -> Path:
    """A project folder of a user's own, with modules named like ours that must never load."""
    folder = tmp_path / "project"
    folder.mkdir()
    for name in USERS_OWN:
        (folder / f"{name}.py").write_text(
            f"raise ImportError('the user\\'s own {name}.py was imported by aimind_memory')\n"
        )
    (folder / "agent.py").write_text(AGENT)
    return folder


def test_a_fresh_venv_runs_the_middleware_beside_the_users_own_modules(
    fresh_venv: Path, users_folder: Path
) -> None:
    python = fresh_venv / "bin" / "python"
    done = subprocess.run(
        [str(python), "agent.py", str(users_folder / "memory.sqlite"), ",".join(SERVER_ONLY)],
        cwd=users_folder,  # the script's folder is first on sys.path, as for any user's script
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.splitlines()[-1])
    assert Path(out["package"]).is_relative_to(fresh_venv), out["package"]  # the wheel's
    assert out["version"] == PROJECT["version"]
    assert out["agents_on_import"] == []  # langchain.agents loads on first use only
    assert out["agents_on_names"] == []  # naming the middleware is not using it
    assert "1 recent turn" in out["answer"]  # the second answer saw the first turn: memory
    assert out["turns"] == 2
    assert out["server_modules"] == []
    package = Path(out["package"]).parent
    assert (package / "py.typed").is_file()
    top = {p.name for p in package.parent.iterdir()} - {"__pycache__"}
    ours = {n for n in top if n.lower().startswith("aimind")}
    assert ours == {"aimind_memory", f"aimind_memory-{PROJECT['version']}.dist-info"}, ours
    assert not top & set(USERS_OWN), top & set(USERS_OWN)
