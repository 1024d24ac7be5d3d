"""``pip install aimind-memory`` is the library and the middleware, nothing more (contract
§13b): the wheel requires no server, FastAPI or MCP outside its extras, and
``aimind_memory`` works with none of them importable."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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

AGENT = textwrap.dedent(
    """
    import asyncio, importlib.abc, sys

    BLOCKED = set(sys.argv[2].split(","))

    class Blocked(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"{name} is not installed", name=name)
            return None

    sys.meta_path.insert(0, Blocked())

    from langchain.agents import create_agent
    from aimind_memory import ChatMemoryMiddleware, offline_chat_model, open_memory

    url = f"sqlite:///{sys.argv[1]}"
    agent = create_agent(
        offline_chat_model(), tools=[], middleware=[ChatMemoryMiddleware(database_url=url)]
    )

    async def main() -> None:
        context = {"session_id": "lean-install-session-0001"}
        for text in ("We decided to ship on Friday.", "When do we ship?"):
            result = await agent.ainvoke(
                {"messages": [{"role": "user", "content": text}]}, context=context
            )
        print(result["messages"][-1].content)
        async with open_memory(url) as memory:
            state = await memory.load("lean-install-session-0001")
        print("turns in memory:", len(state.messages) // 2)
        loaded = sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED)
        print("server modules loaded:", loaded)

    asyncio.run(main())
    """
)


def test_the_library_and_the_middleware_run_without_the_server_extras(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", AGENT, str(tmp_path / "memory.sqlite"), ",".join(SERVER_ONLY)],
        cwd=tmp_path,  # not the checkout: the installed package, as a user's project has it
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "1 recent turn" in out  # the second answer saw the first turn: memory
    assert "turns in memory: 2" in out
    assert "server modules loaded: []" in out


def test_the_wheel_requires_no_server_outside_its_extras(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("aimind_memory-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(metadata_name).decode())
    required = metadata.get_all("Requires-Dist") or []
    core = {
        r.split(";")[0].split("[")[0].split("<")[0].split(">")[0].strip()
        for r in required
        if "extra ==" not in r
    }
    assert "langgraph" in core and "langchain" in core
    assert not core & SERVER_DISTRIBUTIONS, core & SERVER_DISTRIBUTIONS
    extras = set(metadata.get_all("Provides-Extra") or [])
    assert {"server", "production"} <= extras
    assert "aimind_memory/__init__.py" in names and "aimind_memory/server.py" in names
    # the offline compactor's word lists are data files: the wheel carries every one
    rules = {f"aimind_memory/{p.relative_to(ROOT)}" for p in (ROOT / "memory").rglob("*.toml")}
    assert rules and rules <= set(names), rules - set(names)
    # one top-level name: a user's own memory.py, adapters.py or graphs.py never meets ours
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"aimind_memory"}, tops
