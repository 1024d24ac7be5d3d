"""A stale copy is never the truth (contract §8): a process whose copy of a session's memory
is older than another process's write re-reads before it refuses an edit (no false 404,
no false 409 at the pin cap) or skips a turn as a duplicate — on SQLite and PostgreSQL,
two OS processes (this one, and ``tests/memory/edit_worker.py``), each with its own copy.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from aimind_memory.memory import open_memory
from aimind_memory.memory.config.limits import PINNED_MAX

from .helpers import ROOT, new_token, turn

WORKER_START_S = 120.0
ANSWER_S = 60.0


class Worker:
    """The other process: one JSON command in, one JSON answer out."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    async def ask(self, **command: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(command).encode() + b"\n")
        await self.proc.stdin.drain()
        return json.loads(await asyncio.wait_for(self.proc.stdout.readline(), ANSWER_S))


@pytest.fixture
async def worker_for(db_url: str) -> AsyncIterator[Any]:
    started: list[asyncio.subprocess.Process] = []

    async def start(token: str) -> Worker:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.memory.edit_worker",
            db_url,
            token,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
            env=dict(os.environ),
        )
        started.append(proc)
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), WORKER_START_S)
        assert line.strip() == b"ready", line
        return Worker(proc)

    yield start
    for proc in started:
        assert proc.stdin is not None
        proc.stdin.close()
        assert await asyncio.wait_for(proc.wait(), ANSWER_S) == 0


async def test_an_edit_or_unpin_of_a_pin_made_elsewhere_after_my_read_is_made(
    db_url: str, worker_for: Any
) -> None:
    """The panel on process 2 was read; process 1 pins; process 2 edits, then unpins it."""
    token = new_token()
    other = await worker_for(token)
    async with open_memory(db_url) as mem:
        await mem.pin(token, "The budget is 40,000 EUR.")
        assert [p["text"] for p in (await other.ask(op="pins"))["pins"]] == [
            "The budget is 40,000 EUR."
        ]
        made = await mem.pin(token, "We deploy on PostgreSQL.")  # after process 2's read
        edited = await other.ask(op="edit", id=made.id, text="We deploy on MySQL.")
        assert edited == {"id": made.id, "text": "We deploy on MySQL."}
        assert [p.text for p in await mem.pins(token)] == [
            "The budget is 40,000 EUR.",
            "We deploy on MySQL.",
        ]

        await other.ask(op="pins")
        later = await mem.pin(token, "Releases ship on Friday.")
        assert await other.ask(op="unpin", id=later.id) == {"id": later.id}
        assert "Releases ship on Friday." not in [p.text for p in await mem.pins(token)]
        # a pin no process has is still refused, once the copy is proven current
        assert await other.ask(op="edit", id="no-such-pin", text="x") == {
            "error": "PinNotFoundError"
        }


async def test_the_pin_cap_is_judged_on_the_latest_pins(db_url: str, worker_for: Any) -> None:
    """Process 2 read a full set of user pins; process 1 unpinned one since: process 2's
    pin is made (no false 409). With the set full again, the next is refused."""
    token = new_token()
    other = await worker_for(token)
    async with open_memory(db_url) as mem:
        pins = [
            await mem.pin(token, f"Rule {i}: room {100 + i} is booked.") for i in range(PINNED_MAX)
        ]
        assert len((await other.ask(op="pins"))["pins"]) == PINNED_MAX
        await mem.unpin(token, pins[0].id)
        made = await other.ask(op="pin", text="Rule 99: the lab closes at 6 pm.")
        assert "id" in made, made
        assert len(await mem.pins(token)) == PINNED_MAX
        assert await other.ask(op="pin", text="Rule 100: one more.") == {"error": "PinLimitError"}


async def test_a_turn_like_the_copys_last_is_written_when_it_is_not_the_latest(
    db_url: str, worker_for: Any
) -> None:
    """Process 1 writes ("thanks", "You're welcome!") then a second turn; process 2, which
    read before the second turn, writes ("thanks", "You're welcome!") again: a new turn,
    written. The same turn once more is a duplicate of the latest, and skipped."""
    token = new_token()
    other = await worker_for(token)
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("thanks", "You're welcome!"))
        await other.ask(op="pins")  # process 2 reads memory now
        await mem.append_turn(token, turn("what time is lunch?", "Noon."))
        again = await other.ask(op="turn", user="thanks", assistant="You're welcome!")
        assert again == {"written": True, "skipped": None}
        state = await mem.load(token)
        assert [m.text for m in state.messages if m.role == "user"] == [
            "thanks",
            "what time is lunch?",
            "thanks",
        ]
        repeat = await other.ask(op="turn", user="thanks", assistant="You're welcome!")
        assert repeat == {"written": False, "skipped": "duplicate"}
