"""Property-based: random turns, statuses, ids, texts and compactor failures (contract §3-§5).

A reference model of the window runs beside the real service. After every call
the bounds hold, no message id repeats, and every written turn is either in the
window, verbatim and in order, or was handed to the compactor when it left.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aimind_memory.memory import FinalTurn, MemoryLimits, MemoryService, open_memory
from aimind_memory.memory.models import WRITABLE_STATUSES
from aimind_memory.memory.text import clean_text, normalize, truncate

from .helpers import LIMITS, ScriptedCompactor, assert_bounds, new_token

STATUSES = [
    "completed",
    "final",
    "blocked",
    "cancelled",
    "failed",
    "interrupted",
    "paused",
    "unknown",
    "",
]
MODES = ["ok", "raise", "garbage", "extra", "overlong", "timeout"]
texts = st.one_of(
    st.sampled_from(
        [
            "Same question",
            "Same answer",
            "We must ship on Friday.",
            "我们决定不做长期记忆。",
            "  padded  ",
            "",
            "   \n",
            None,
            7,
        ]
    ),
    st.text(max_size=40),
    st.just("long text. " * 1_000),
)
ids = st.one_of(st.none(), st.sampled_from(["m1", "m2", "m3", "m4", "m5"]))
steps = st.lists(
    st.tuples(texts, texts, st.sampled_from(STATUSES), ids, ids), min_size=1, max_size=16
)


@dataclass
class Turn:
    user: str
    assistant: str
    user_id: str | None
    assistant_id: str | None

    @property
    def texts(self) -> list[str]:
        return [self.user, self.assistant]


@pytest.fixture
async def chaos(db_url: str) -> AsyncIterator[tuple[MemoryService, ScriptedCompactor]]:
    compactor = ScriptedCompactor()
    # a "timeout" compaction sleeps 5 s; an "ok" one must never reach the limit, even on
    # two loaded cores
    limits = MemoryLimits(compaction_timeout_s=0.15)
    async with open_memory(db_url, compactor=compactor, limits=limits) as mem:
        yield mem, compactor


def _expected_skip(window: list[Turn], turn: FinalTurn) -> tuple[str | None, Turn | None]:
    if turn.status not in WRITABLE_STATUSES:
        return "status", None
    user, assistant = clean_text(turn.user_text), clean_text(turn.assistant_text)
    if user is None or assistant is None:
        return "empty", None
    cap = LIMITS.message_char_cap
    assistant_id = turn.assistant_message_id
    if assistant_id == turn.user_message_id:
        assistant_id = None  # one id cannot name two messages: the answer gets its own
    new = Turn(truncate(user, cap), truncate(assistant, cap), turn.user_message_id, assistant_id)
    given_ids = {i for i in (new.user_id, new.assistant_id) if i}
    stored_ids = {i for t in window for i in (t.user_id, t.assistant_id) if i}
    if given_ids:
        if given_ids & stored_ids:
            return "duplicate", None
    elif window and window[-1].texts == new.texts:
        return "duplicate", None
    return None, new


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(program=steps, modes=st.lists(st.sampled_from(MODES), max_size=8))
async def test_random_turns_keep_bounds_and_lose_nothing(
    chaos: tuple[MemoryService, ScriptedCompactor],
    program: list[tuple[object, object, str, str | None, str | None]],
    modes: list[str],
) -> None:
    mem, compactor = chaos
    compactor.modes = list(modes)
    compactor.requests = []
    token = new_token()
    window: list[Turn] = []
    for user, assistant, status, user_id, assistant_id in program:
        final = FinalTurn(
            user_text=user,
            assistant_text=assistant,
            status=status,
            user_message_id=user_id,
            assistant_message_id=assistant_id,
        )
        before = await mem.load(token)
        skip, new = _expected_skip(window, final)
        requests_before = len(compactor.requests)
        result = await mem.append_turn(token, final)
        # right after the write, a fold may still be running (after a model failure, the
        # extractive fallback on long texts): the pending bound holds; once it landed, all
        assert_bounds(await mem.load(token), pending=result.pending)
        await mem.settle(token)
        state = await mem.load(token)

        assert_bounds(state)
        assert result.written == (skip is None) and result.skipped == skip
        if new is not None:
            window.append(new)
        folded: list[Turn] = []
        if len(window) > LIMITS.recent_turns:
            folded, window = window[: -LIMITS.keep_turns], window[-LIMITS.keep_turns :]
        # the window is exactly the newest written turns, verbatim, ids kept when given
        assert [m.text for m in state.messages] == [t for w in window for t in w.texts]
        for message, given_id in zip(
            state.messages, [i for w in window for i in (w.user_id, w.assistant_id)], strict=True
        ):
            if given_id is not None:
                assert message.id == given_id
        if folded:
            # the turns that left the window were handed to the compactor, all of them
            assert result.pending and not result.compacted  # a model compactor: after the write
            assert len(compactor.requests) == requests_before + 1
            request = compactor.requests[-1]
            assert [m.text for m in request.folded] == [t for w in folded for t in w.texts]
            assert request.summary == before.summary
            assert state.summary.strip()
            assert state.last_compacted_at is not None
            if len(state.pinned_decisions) < LIMITS.pinned_max:
                kept_keys = [normalize(p) for p in state.pinned_decisions]
                for old in map(normalize, before.pinned_decisions):
                    assert any(old == k or old in k for k in kept_keys), (old, kept_keys)
        else:
            assert not result.pending and len(compactor.requests) == requests_before
            assert state.summary == before.summary
            assert state.pinned_decisions == before.pinned_decisions
