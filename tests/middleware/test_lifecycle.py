"""One memory service per process, loop and options, closed at shutdown — also in a
script that never closes it (``asyncio.run`` and contract §13a's lines, nothing else)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.memory import ExtractiveCompactor, MemoryLimits

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import asyncio, sys
from langchain.agents import create_agent
from aimind_memory.adapters.chat_memory import ChatMemoryMiddleware
from aimind_memory.adapters.models import chat_model

agent = create_agent(chat_model(), [], middleware=[ChatMemoryMiddleware(sys.argv[1])])

async def main():
    for text in ("We decided to ship on Friday.", "When do we ship?"):
        out = await agent.ainvoke(
            {"messages": [{"role": "user", "content": text}]},
            context={"session_id": "lifecycle-session-0001"},
        )
    print(out["messages"][-1].content)

asyncio.run(main())
"""


def test_a_script_that_never_closes_memory_exits_cleanly(db_url: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIMIND_", "OPENAI_"))}
    env["AIMIND_DATA_DIR"] = str(tmp_path / "data")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, db_url],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "1 recent turn" in done.stdout  # the second turn saw the first
    assert "Traceback" not in done.stderr, done.stderr
    assert "error occurred" not in done.stderr, done.stderr


async def test_callers_with_the_same_options_share_one_service(memory_url: str) -> None:
    first = await get_memory()
    assert await get_memory(memory_url) is first
    assert await get_memory(memory_url, compactor=ExtractiveCompactor(MemoryLimits())) is not first
