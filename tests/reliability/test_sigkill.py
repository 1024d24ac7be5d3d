"""A writer killed with SIGKILL at random points: memory is always the state before or after.

After every kill the memory thread loads, validates, keeps its bounds, ends at
the last acknowledged turn or the one after it, and its summary and pins fold
exactly the turns before the verbatim window: never corrupt, never half-compacted.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from aimind_memory.memory import ThreadState, open_memory
from harness.faults import assert_bounded
from tests.reliability.kill_writer import WRITER_APP

KILLS = 20
SESSION = "sigkill-session-00001"
SEED = 20_251_129
REPO = Path(__file__).resolve().parents[2]
_TURN = re.compile(r"Turn (\d{5})")
EARLY_EVERY = 5
"""Every fifth writer is killed at a random moment from its start, before it may have written."""
FIRST_ACK_TIMEOUT_S = 60.0


def _acked(ackfile: Path) -> bool:
    return ackfile.exists() and ackfile.stat().st_size > 0


async def first_ack(ackfile: Path) -> None:
    """Wait until the writer has acknowledged a turn (it is then in its write loop)."""
    deadline = asyncio.get_running_loop().time() + FIRST_ACK_TIMEOUT_S
    while not _acked(ackfile):
        assert asyncio.get_running_loop().time() < deadline, "the writer never wrote a turn"
        await asyncio.sleep(0.01)


async def server_done_with_writer(url: str) -> None:
    """Wait until PostgreSQL has no backend of the killed writer left.

    A write the writer sent before it died still commits on the server after
    the process is gone; the memory is checked once nothing more can land.
    """
    if not url.startswith("postgresql://"):
        return
    deadline = asyncio.get_running_loop().time() + FIRST_ACK_TIMEOUT_S
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        while True:
            cur = await conn.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND application_name = %s",
                (WRITER_APP,),
            )
            row = await cur.fetchone()
            if row and row[0] == 0:
                return
            assert asyncio.get_running_loop().time() < deadline, (
                "the killed writer's backend lives on"
            )
            await asyncio.sleep(0.01)


class ForkServer:
    """Drives ``kill_writer``: fork a writer, kill it, reap it."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.kill_writer"],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def _ask(self, line: str) -> str:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def run(self, url: str, start: int, ackfile: Path) -> int:
        answer = self._ask(f"run {url} {SESSION} {start} {ackfile}")
        assert answer.startswith("pid "), answer
        return int(answer.split()[1])

    def kill(self, pid: int) -> None:
        os.kill(pid, signal.SIGKILL)
        assert self._ask(f"reap {pid}") == "reaped"

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def turn_index(text: str) -> int:
    match = _TURN.search(text)
    assert match, text
    return int(match.group(1))


def check_consistent(state: ThreadState) -> int:
    """The window is consecutive turns; summary and pins end right before it.

    Returns the last stored turn index (-1 for an empty thread).
    """
    assert_bounded(state)
    users = [turn_index(m.text) for m in state.messages if m.role == "user"]
    if not users:
        assert state.is_empty
        return -1
    assert users == list(range(users[0], users[0] + len(users)))
    for message in state.messages:
        expected = f"u{turn_index(message.text):05d}" if message.role == "user" else None
        if expected:
            assert message.id == expected
    folded = users[0]
    if folded == 0:
        assert not state.summary and not state.pinned_decisions
    else:
        # A folded turn is in the summary or, once pinned, in the pins only (the summary
        # does not repeat a pin).
        remembered = " ".join([state.summary, *state.pinned_decisions])
        folded_turns = [int(n) for n in _TURN.findall(remembered)]
        assert max(folded_turns) == folded - 1, "memory folds exactly the turns before the window"
        pin_turns = [turn_index(p) for p in state.pinned_decisions]
        assert pin_turns == list(range(folded - len(pin_turns), folded)), "pins are the newest"
    return users[-1]


@pytest.mark.slow
async def test_sigkill_at_random_points(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(SEED)
    monkeypatch.setenv("AIMIND_SESSION_SECRET", "k" * 40)
    server = ForkServer({**os.environ, "PYTHONPATH": str(REPO)})
    last_stored = -1
    rounds_with_acks = beyond = 0
    try:
        async with open_memory(db_url) as mem:
            for kill in range(KILLS):
                ackfile = tmp_path / f"acks-{kill}.txt"
                pid = server.run(db_url, last_stored + 1, ackfile)
                if kill % EARLY_EVERY:  # mostly mid-writing, whatever the machine's load
                    await first_ack(ackfile)
                    await asyncio.sleep(rng.uniform(0.0, 0.3))
                else:  # sometimes while the writer is still opening the database
                    await asyncio.sleep(rng.uniform(0.0, 0.2))
                server.kill(pid)
                await server_done_with_writer(db_url)
                acks = [int(x) for x in ackfile.read_text().split()] if ackfile.exists() else []
                assert acks == list(range(last_stored + 1, last_stored + 1 + len(acks)))
                rounds_with_acks += bool(acks)
                acked = acks[-1] if acks else last_stored
                stored = check_consistent(await mem.load(SESSION))
                assert stored in (acked, acked + 1), (kill, acks[-3:], stored)
                beyond += stored == acked + 1
                last_stored = stored
    finally:
        server.close()
    print(f"{KILLS} kills: {last_stored + 1} turns stored, {beyond} interrupted turns landed")
    assert rounds_with_acks >= KILLS - KILLS // EARLY_EVERY
    assert last_stored >= rounds_with_acks
