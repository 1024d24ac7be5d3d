"""A second process that reads and corrects one session's memory on command (used by
test_stale_copy).

Run as ``python -m tests.memory.edit_worker URL TOKEN``: opens memory, prints ``ready``,
then for every JSON line read from stdin does one thing and prints one JSON line:

- ``{"op": "pins"}``: reads the pins (the panel's read); ``{"pins": [{"id", "text", "origin"}]}``
- ``{"op": "pin", "text"}``: pins a text; ``{"id"}``
- ``{"op": "edit", "id", "text"}``: edits a pin; ``{"id", "text"}``
- ``{"op": "unpin", "id"}``: unpins; ``{"id"}``
- ``{"op": "turn", "user", "assistant"}``: appends a turn without ids; ``{"written", "skipped"}``

A refusal prints ``{"error": "<its class>"}``. So the test process and this one each
keep their own copy of the thread, as two servers' processes do.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from aimind_memory.memory import MemoryService, open_memory
from aimind_memory.memory.errors import AIMindError

from .helpers import turn


async def answer(mem: MemoryService, token: str, command: dict[str, Any]) -> dict[str, Any]:
    op = command["op"]
    if op == "pins":
        pins = await mem.pins(token)
        return {"pins": [{"id": p.id, "text": p.text, "origin": p.origin} for p in pins]}
    if op == "pin":
        return {"id": (await mem.pin(token, command["text"])).id}
    if op == "edit":
        edited = await mem.edit_pin(token, command["id"], command["text"])
        return {"id": edited.id, "text": edited.text}
    if op == "unpin":
        return {"id": (await mem.unpin(token, command["id"])).id}
    if op == "turn":
        result = await mem.append_turn(token, turn(command["user"], command["assistant"]))
        return {"written": result.written, "skipped": result.skipped}
    raise ValueError(f"unknown op {op!r}")


async def main(url: str, token: str) -> None:
    async with open_memory(url) as mem:
        print("ready", flush=True)
        while line := (await asyncio.to_thread(sys.stdin.readline)).strip():
            try:
                reply = await answer(mem, token, json.loads(line))
            except AIMindError as exc:
                reply = {"error": type(exc).__name__}
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
