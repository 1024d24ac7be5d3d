"""A hypothesis state machine over the memory API, checking every invariant after every step.

A plain-Python model predicts exactly which turns are written and what the
recent window holds; compaction output is only checked for its bounds and the
durability of pins. The async API runs on a loop owned by each machine.
"""

from __future__ import annotations

import asyncio
import uuid
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from aimind_memory.memory import (
    CompactionOutput,
    CompactionRequest,
    FinalTurn,
    MemoryLimits,
    open_memory,
)
from aimind_memory.memory.models import WRITABLE_STATUSES
from aimind_memory.memory.text import clean_text, normalize, truncate
from harness.faults import assert_bounded

LIMITS = MemoryLimits(compaction_timeout_s=0.05)
STATUSES = [*sorted(WRITABLE_STATUSES), "cancelled", "failed", "interrupted", "paused", "odd"]
FAULT_MODES = ["ok", "raise", "timeout", "invalid"]

texts = st.one_of(
    st.text(
        alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",))
        | st.sampled_from("\x00 \n"),
        max_size=40,
    ),
    st.sampled_from(["", "   ", "\n\t", "We decided to ship. ", "Don't use MySQL!", "x" * 9_000]),
    st.sampled_from([None, 42, ["list"]]),
)
user_ids = st.one_of(st.none(), st.sampled_from([f"u{i}" for i in range(5)]))
assistant_ids = st.one_of(st.none(), st.sampled_from([f"a{i}" for i in range(5)]))


class FlakyCompactor:
    """The 'LLM' compactor: keeps old pins and adds one; or fails in the mode it is set to."""

    name = "llm"

    def __init__(self) -> None:
        self.mode = "ok"
        self.count = 0

    async def compact(self, request: CompactionRequest) -> Any:
        self.count += 1
        if self.mode == "raise":
            raise RuntimeError("compaction model failed")
        if self.mode == "timeout":
            await asyncio.sleep(1.0)
        if self.mode == "invalid":
            return {"summary": "s", "pinned_decisions": [], "rawPrompt": "leak"}
        return CompactionOutput(
            summary=f"{request.summary[-200:]} folded {len(request.folded)} messages.",
            pinned_decisions=[*request.pinned_decisions, f"Decision number {self.count}."],
        )


@dataclass(frozen=True)
class Turn:
    user: str
    assistant: str
    user_id: str | None
    assistant_id: str | None


class MemoryMachine(RuleBasedStateMachine):
    url: str = "memory"

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.stack = AsyncExitStack()
        self.compactor = FlakyCompactor()
        self.mem = self.run(
            self.stack.enter_async_context(
                open_memory(self.url, compactor=self.compactor, limits=LIMITS)
            )
        )
        self.session = f"fuzz-{uuid.uuid4().hex}"
        self.window: list[Turn] = []
        self.pins: list[str] = []

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def teardown(self) -> None:
        self.run(self.stack.aclose())
        self.loop.close()

    @initialize()
    def start_empty(self) -> None:
        assert self.run(self.mem.load(self.session)).is_empty

    # --- the model ---------------------------------------------------------------
    def expect(self, user: Any, assistant: Any, status: str, uid: Any, aid: Any) -> Turn | None:
        """The turn that must be written, or None when it must be skipped."""
        if status not in WRITABLE_STATUSES:
            return None
        u, a = clean_text(user), clean_text(assistant)
        if u is None or a is None:
            return None
        u, a = truncate(u, LIMITS.message_char_cap), truncate(a, LIMITS.message_char_cap)
        ids = {i for i in (uid, aid) if i}
        stored_ids = {i for t in self.window for i in (t.user_id, t.assistant_id) if i}
        if ids and ids & stored_ids:
            return None
        if not ids and self.window and (self.window[-1].user, self.window[-1].assistant) == (u, a):
            return None
        return Turn(u, a, uid, aid)

    def advance(self, turn: Turn) -> bool:
        """Add a written turn to the model window; True when it must compact."""
        self.window.append(turn)
        if len(self.window) > LIMITS.recent_turns:
            self.window = self.window[-LIMITS.keep_turns :]
            return True
        return False

    # --- rules -------------------------------------------------------------------
    @rule(
        user=texts,
        assistant=texts,
        status=st.sampled_from(STATUSES),
        uid=user_ids,
        aid=assistant_ids,
    )
    def append(self, user: Any, assistant: Any, status: str, uid: Any, aid: Any) -> None:
        expected = self.expect(user, assistant, status, uid, aid)
        pins_before = list(self.pins)
        turn = FinalTurn(
            user_text=user,
            assistant_text=assistant,
            status=status,
            user_message_id=uid,
            assistant_message_id=aid,
        )
        events: list[dict[str, Any]] = []
        result = self.run(self.mem.append_turn(self.session, turn, on_status=events.append))
        assert result.written == (expected is not None), (result, expected)
        if expected is None:
            assert not events
            return
        compacts = self.advance(expected)
        # the model compactor runs after the write; load() waits for it to land
        assert result.pending == compacts and not result.compacted
        state = self.run(self.mem.load(self.session))
        if compacts:
            snapshot = self.run(self.mem.snapshot(self.session))
            fallback = self.compactor.mode != "ok"
            assert snapshot.last_compaction["compactor"] == ("extractive" if fallback else "llm")
            events.append(snapshot.landed)
            outcome = "failed" if fallback else "succeeded"
            assert [e["status"] for e in events] == ["started", outcome]
        self.pins = list(state.pinned_decisions)
        if compacts and len(self.pins) < LIMITS.pinned_max:
            kept = {normalize(p) for p in self.pins}
            assert {normalize(p) for p in pins_before} <= kept, "old pins survive"

    @rule(n=st.integers(min_value=2, max_value=4))
    def concurrent_appends(self, n: int) -> None:
        tag = uuid.uuid4().hex[:8]
        turns = [
            FinalTurn(
                user_text=f"parallel {tag} {i}",
                assistant_text=f"reply {i}",
                status="completed",
                user_message_id=f"p-{tag}-{i}",
            )
            for i in range(n)
        ]

        async def together() -> list[Any]:
            return await asyncio.gather(*(self.mem.append_turn(self.session, t) for t in turns))

        results = self.run(together())
        assert all(r.written for r in results), results
        previous = list(self.window)
        state = self.run(self.mem.load(self.session))
        stored = [
            (u.text, a.text) for u, a in zip(state.messages[::2], state.messages[1::2], strict=True)
        ]
        # the batch's last turn is always kept; how much older text stays depends on whether
        # a pending model compaction landed or an inline fold overtook it
        assert LIMITS.keep_turns <= len(stored) <= LIMITS.recent_turns
        batch = {(t.user_text, t.assistant_text) for t in turns}
        old = [(t.user, t.assistant) for t in previous]
        new_part = [s for s in stored if s in batch]
        assert (
            stored[: len(stored) - len(new_part)] == old[len(old) - (len(stored) - len(new_part)) :]
        )
        self.window = [
            Turn(u.text, a.text, u.id, a.id)
            for u, a in zip(state.messages[::2], state.messages[1::2], strict=True)
        ]
        self.pins = list(state.pinned_decisions)

    @rule()
    def clear(self) -> None:
        self.run(self.mem.clear(self.session))
        self.window, self.pins = [], []

    @rule(mode=st.sampled_from(FAULT_MODES))
    def set_compactor_mode(self, mode: str) -> None:
        self.compactor.mode = mode

    # --- invariants --------------------------------------------------------------
    @invariant()
    def memory_matches_the_model(self) -> None:
        state = self.run(self.mem.load(self.session))
        assert_bounded(state, LIMITS)
        pairs = list(zip(state.messages[::2], state.messages[1::2], strict=True))
        assert [(u.text, a.text) for u, a in pairs] == [(t.user, t.assistant) for t in self.window]
        for (u, a), t in zip(pairs, self.window, strict=True):
            if t.user_id:
                assert u.id == t.user_id
            if t.assistant_id:
                assert a.id == t.assistant_id
        dto = self.run(self.mem.hydrate(self.session))
        assert [m["text"] for m in dto["messages"]] == [m.text for m in state.messages]
        assert dto["restored"] == (not state.is_empty)


FUZZ_SETTINGS = settings(
    max_examples=12,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_memory_state_machine(db_url: str) -> None:
    machine = type("Machine", (MemoryMachine,), {"url": db_url})
    from hypothesis.stateful import run_state_machine_as_test

    run_state_machine_as_test(machine, settings=FUZZ_SETTINGS)
