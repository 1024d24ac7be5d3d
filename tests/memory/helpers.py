"""Shared helpers for the chat-memory tests: bounds checks, turns, test compactors."""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import Awaitable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aimind_memory.memory import (
    CompactionOutput,
    CompactionRequest,
    ExtractiveCompactor,
    FinalTurn,
    MemoryService,
    ThreadState,
)
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.models import AppendResult

LIMITS = MemoryLimits()
ROOT = Path(__file__).resolve().parents[2]
_counter = itertools.count()


def new_token() -> str:
    """A fresh valid session token (so each test or example gets its own memory thread)."""
    return f"test-session-{next(_counter):08d}-{id(_counter) % 10_000:04d}"


def turn(
    user: Any = "hello",
    assistant: Any = "hi there",
    status: str = "completed",
    *,
    source: str = "chat",
    user_id: str | None = None,
    assistant_id: str | None = None,
) -> FinalTurn:
    return FinalTurn(
        user_text=user,
        assistant_text=assistant,
        status=status,
        source=source,
        user_message_id=user_id,
        assistant_message_id=assistant_id,
    )


async def settled(
    mem: MemoryService, token: str, finished: FinalTurn, **kwargs: Any
) -> AppendResult:
    """``append_turn``, then wait for a compaction it started: the next turn comes after
    the model compaction landed (with a model compactor, it runs after the write)."""
    result = await mem.append_turn(token, finished, **kwargs)
    await mem.settle(token)
    return result


async def landed_compactor(mem: MemoryService, token: str) -> str | None:
    """The compactor that folded the session's window last (after a model failure: the
    extractive fallback)."""
    last = (await mem.snapshot(token)).last_compaction
    return last["compactor"] if last else None


def assert_bounds(
    state: ThreadState, limits: MemoryLimits = LIMITS, *, pending: bool = False
) -> None:
    """Every bound of contract §3 that must hold after every write (``pending``: while a
    deferred compaction may still be pending, the window may reach 12 messages)."""
    assert len(state.messages) <= (limits.pending_max_messages if pending else limits.max_messages)
    assert len(state.messages) % 2 == 0
    for i, message in enumerate(state.messages):
        assert message.role == ("user" if i % 2 == 0 else "assistant")
        assert message.text.strip()
        assert len(message.text) <= limits.message_char_cap
    ids = [m.id for m in state.messages]
    assert len(ids) == len(set(ids)), f"duplicate message ids: {ids}"
    assert len(state.summary) <= limits.summary_chars
    assert len(state.pinned_decisions) <= limits.pinned_max
    for pin in state.pinned_decisions:
        assert 1 <= len(pin) <= limits.pin_chars


def user_texts(state: ThreadState) -> list[str]:
    return [m.text for m in state.messages if m.role == "user"]


_FOLDS: ContextVar[list[CompactionRequest] | None] = ContextVar("test_folds", default=None)
"""The compactions run during one ``CountingCompactor.counted`` append."""


@dataclass
class CountingCompactor:
    """The extractive compactor, recording every request (how many turns it folded).

    It folds inline, as the extractive compactor does, so each fold is part of the
    write that stored it and the tests can account for every turn.
    """

    name: str = "counting"
    inline: bool = True
    requests: list[CompactionRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._inner = ExtractiveCompactor(LIMITS)

    @property
    def folded_turns(self) -> int:
        return sum(len(r.folded) // 2 for r in self.requests)

    @property
    def folded_user_texts(self) -> list[str]:
        return [m.text for r in self.requests for m in r.folded if m.role == "user"]

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        self.requests.append(request)
        if (folds := _FOLDS.get()) is not None:
            folds.append(request)
        return await self._inner.compact(request)

    async def counted(self, append: Awaitable[AppendResult]) -> tuple[AppendResult, list[str]]:
        """Await one ``append_turn``: its result and the user texts its stored fold folded.

        A Postgres write that lost to another process's write is retried on fresh
        state and compacts again; only the last fold of a turn that compacted was stored.
        """
        folds: list[CompactionRequest] = []
        token = _FOLDS.set(folds)
        try:
            result = await append
        finally:
            _FOLDS.reset(token)
        if not (result.compacted and folds):
            return result, []
        return result, [m.text for m in folds[-1].folded if m.role == "user"]


@dataclass
class GatedCompactor:
    """A model compactor that answers only once the test sets ``release``: a compaction
    that stays pending as long as the test needs. Its summary names every folded text."""

    name: str = "gated"
    requests: list[CompactionRequest] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    asked: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when a compaction is asked for."""

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        self.requests.append(request)
        self.asked.set()
        await self.release.wait()
        folded = " | ".join(m.text for m in request.folded)
        return CompactionOutput(
            summary=f"{request.summary} {folded}".strip(),
            pinned_decisions=[f"gated pin {len(self.requests)}"],
        )


def overlong_pin(i: int) -> str:
    """The ``i``-th overlong pin's start, told apart without a number: "overlong pin iii"."""
    return "overlong pin " + "i" * (i + 1)


@dataclass
class ScriptedCompactor:
    """Plays one behaviour per compaction: ok, raise, garbage, extra, overlong or timeout.

    Every request is recorded on entry, whatever the behaviour, so a test can
    account for the turns folded even when this compactor fails. Its pins hold no value
    the conversation does not say (the gate would drop them, contract §5): "pin 1" needs
    a turn that says 1, and the overlong pins hold none.
    """

    modes: list[str] = field(default_factory=list)
    name: str = "scripted"
    requests: list[CompactionRequest] = field(default_factory=list)
    pins_made: int = 0

    async def compact(self, request: CompactionRequest) -> Any:
        self.requests.append(request)
        mode = self.modes.pop(0) if self.modes else "ok"
        if mode == "raise":
            raise RuntimeError("compaction model is down")
        if mode == "timeout":
            await asyncio.sleep(5)
        if mode == "garbage":
            return "this is not a compaction"
        folded = " ".join(m.text[:40] for m in request.folded)
        if mode == "extra":
            return {"summary": folded, "pinned_decisions": [], "messages": []}
        if mode == "overlong":
            return CompactionOutput(
                summary=("Long summary sentence. " * 400),
                pinned_decisions=[overlong_pin(i) + " " + "x" * 400 for i in range(30)],
            )
        self.pins_made += 1
        return CompactionOutput(
            summary=f"{request.summary} {folded}".strip(),
            pinned_decisions=[f"pin {self.pins_made}"],
        )


async def line_writer(
    url: str, token: str, prefix: str, env: dict[str, str], skew_s: float | None = None
) -> asyncio.subprocess.Process:
    """A second writer process (``tests/memory/line_writer.py``), ready for lines."""
    args = [url, token, prefix] + ([] if skew_s is None else [str(skew_s)])
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.memory.line_writer",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 120)
    assert line.strip() == b"ready", line
    return proc


async def write_line(proc: asyncio.subprocess.Process, n: int) -> dict[str, bool]:
    """Have the writer process append its turn ``n``: ``{"written", "pending"}``."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{n}\n".encode())
    await proc.stdin.drain()
    return json.loads(await asyncio.wait_for(proc.stdout.readline(), 60))
