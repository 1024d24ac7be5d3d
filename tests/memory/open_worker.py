"""A process that opens memory on a database when told to (used by test_first_start).

Run as ``python -m tests.memory.open_worker``: prints ``ready`` once imported, then
for every database URL read from stdin opens memory on it (on a fresh database:
the schema set-up), writes one turn and prints one JSON line, ``{"ok": true}`` or
``{"error": "<exception type>", "detail": "<its message>"}``. Start several, then send
them one URL at once: processes starting together on a fresh database, without paying their imports.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from aimind_memory.memory import FinalTurn, open_memory


async def main() -> None:
    print("ready", flush=True)
    while url := (await asyncio.to_thread(sys.stdin.readline)).strip():
        try:
            async with open_memory(url) as mem:
                done = await mem.append_turn(
                    f"first-start-session-{os.getpid()}",
                    FinalTurn(user_text="hello", assistant_text="hi", status="completed"),
                )
            answer = {"ok": done.written}
        except Exception as exc:  # reported to the test, which fails on it
            # the type, and the driver's sentence (no user text here) for a failing test to show
            answer = {"error": type(exc).__name__, "detail": str(exc)[:200]}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
