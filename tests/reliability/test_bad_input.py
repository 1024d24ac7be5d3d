"""Bad input at the memory API: a clear error or a safe bounded result, on both backends."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from aimind_memory.memory import FinalTurn, MemoryLimits, build_context, open_memory
from aimind_memory.memory.config.limits import TRUNCATION_MARKER
from aimind_memory.memory.errors import InvalidSessionError
from aimind_memory.memory.text import clean_text
from harness.faults import assert_bounded, stored_row_count

SESSION = "bad-input-session-0001"
MB = 1024 * 1024


def turn(user: Any, assistant: Any = "Fine.", **ids: str) -> FinalTurn:
    return FinalTurn(user_text=user, assistant_text=assistant, status="completed", **ids)


def context_chars(messages: list[Any]) -> int:
    return sum(len(m.content) for m in messages)


@pytest.mark.slow
async def test_huge_messages_are_capped_and_context_stays_bounded(db_url: str) -> None:
    limits = MemoryLimits()
    huge_1mb = "All work and no play. " * (MB // 22)
    huge_10mb = "x" * (10 * MB)
    async with open_memory(db_url) as mem:
        for i, text in enumerate([huge_1mb, huge_10mb] * 3):
            result = await mem.append_turn(SESSION, turn(text, text + f" ({i})"))
            assert result.written
            state = await mem.load(SESSION)
            assert_bounded(state, limits)
            for message in state.messages:
                assert len(message.text) <= limits.message_char_cap
            capped = state.messages[-2:]
            assert all(m.text.endswith(TRUNCATION_MARKER) for m in capped)
            # the next turn's model context is bounded whatever came before
            context = build_context(state, system_prompt="You help.", latest_user_text="next?")
            bound = (
                limits.max_messages * limits.message_char_cap
                + limits.summary_chars
                + limits.pinned_max * (limits.pin_chars + 3)
                + 2_000
            )
            assert context_chars(context) <= bound
        dto = await mem.hydrate(SESSION)
    assert all(len(m["text"]) <= limits.message_char_cap for m in dto["messages"])


ODD_TEXTS = {
    "nul": "before\x00after",
    "lone-surrogate": "left \ud800 right \udfff",
    "control": "bell\x07 esc\x1b[31m del\x7f tab\tnewline\nform\x0c",
    "emoji": "family 👨‍👩‍👧‍👦 flag 🇨🇭 skin 👍🏽 4-byte 𝄞",
    "rtl": "שלום עולם مرحبا بالعالم \u202eevil\u202c mixed עברית and English",
    "cjk-combining": "我们决定用 Postgres。 e\u0301 a\u0308 ＡＢＣ",
    "bom-zero-width": "\ufeffzero\u200bwidth\u2060joiner",
}


@pytest.mark.parametrize("kind", sorted(ODD_TEXTS))
async def test_odd_text_round_trips_or_is_cleaned(kind: str, db_url: str) -> None:
    raw = ODD_TEXTS[kind]
    expected = clean_text(raw)
    assert expected is not None
    assert "\x00" not in expected
    async with open_memory(db_url) as mem:
        result = await mem.append_turn(SESSION, turn(raw, raw, user_message_id=f"u-{kind}"))
        assert result.written, result
        state = await mem.load(SESSION)
        assert [m.text for m in state.messages] == [expected, expected]
        dto = await mem.hydrate(SESSION)
        assert [m["text"] for m in dto["messages"]] == [expected, expected]
        # and through a compaction into the summary and pins
        for i in range(5):
            assert (await mem.append_turn(SESSION, turn(f"{raw} we decided {i}.", raw))).written
        state = await mem.load(SESSION)
    assert_bounded(state)
    assert "\x00" not in state.summary and all("\x00" not in p for p in state.pinned_decisions)
    assert state.summary


BAD_IDS = {
    "nul": "id\x00nul",
    "control": "id\x07bell",
    "emoji": "id-🙂",
    "rtl": "id-\u202eevil",
}


@pytest.mark.parametrize("kind", sorted(BAD_IDS))
async def test_odd_message_ids_are_stored_or_rejected_cleanly(kind: str, db_url: str) -> None:
    """Ids come from clients: the same outcome on both backends, and memory stays readable."""
    raw = BAD_IDS[kind]
    async with open_memory(db_url) as mem:
        assert (await mem.append_turn(SESSION, turn("first", "one"))).written
        try:
            bad = turn("second", "two", user_message_id=raw, assistant_message_id=raw + "a")
        except ValidationError:
            bad = None
        if bad is not None:
            result = await mem.append_turn(SESSION, bad)
            assert result.written, result
            state = await mem.load(SESSION)
            assert [m.text for m in state.messages] == ["first", "one", "second", "two"]
            # the same ids dedupe the same way after the round trip
            assert (await mem.append_turn(SESSION, bad)).skipped == "duplicate"
        state = await mem.load(SESSION)
    assert_bounded(state)


BAD_TOKENS = {
    "empty": "",
    "one-char": "a",
    "fifteen": "a" * 15,
    "too-long": "a" * 129,
    "ten-thousand": "t" * 10_000,
    "non-ascii": "séssion-tökén-ñññññ",
    "cjk": "会话令牌会话令牌会话令牌会话令牌",
    "dot-dot": "../../../etc/passwd",
    "slash": "abcdefgh/ijklmnopq",
    "sql": "x' OR '1'='1'; DROP TABLE checkpoints; --",
    "space": "token with spaces 1234",
    "nul": "abcdefghijklmnop\x00",
    "newline": "abcdefghijklmnop\n",
    "chat-prefix": "chat:" + "0" * 64,
}


@pytest.mark.parametrize("kind", sorted(BAD_TOKENS))
async def test_bad_session_tokens_are_refused_and_create_nothing(kind: str, db_url: str) -> None:
    token = BAD_TOKENS[kind]
    async with open_memory(db_url) as mem:
        assert (await mem.append_turn(SESSION, turn("keep me", "kept"))).written
        before = stored_row_count(db_url)
        calls = [
            lambda: mem.append_turn(token, turn("hello", "hi")),
            lambda: mem.load(token),
            lambda: mem.hydrate(token),
            lambda: mem.clear(token),
        ]
        for call in calls:
            with pytest.raises(InvalidSessionError) as err:
                await call()
            if len(token) >= 4:
                assert token not in str(err.value), "the error does not echo the token"
        with pytest.raises(InvalidSessionError):
            mem.thread_id(token)
        assert stored_row_count(db_url) == before
        state = await mem.load(SESSION)
    assert [m.text for m in state.messages] == ["keep me", "kept"]
