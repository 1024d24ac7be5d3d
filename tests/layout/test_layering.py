"""contract §2 and the layout (issue 25): every import points down — graphs → adapters → memory.

The direction itself is checked statically by ``lint-imports`` (the contracts in
``pyproject.toml``, lazy imports inside functions included). What no static check sees is
an import made at run time by name: this test opens memory as a library user does and
looks at what got loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_opening_memory_loads_no_edge(tmp_path: Path) -> None:
    """A library user's ``open_memory()`` pulls in no model provider, tool or graph."""
    script = (
        "import asyncio, sys\n"
        "from aimind_memory.memory import open_memory\n"
        "async def main():\n"
        f"    async with open_memory('sqlite:///{tmp_path / 'm.sqlite'}') as mem:\n"
        "        from aimind_memory.memory import FinalTurn\n"
        "        await mem.append_turn('session-token-0001', FinalTurn(\n"
        "            user_text='hi', assistant_text='hello', status='completed'))\n"
        "asyncio.run(main())\n"
        "edge = {'aimind_memory.adapters', 'aimind_memory.graphs'}\n"
        "print(sorted({'.'.join(m.split('.')[:2]) for m in sys.modules} & edge))\n"
    )
    env = {**os.environ, "AIMIND_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
