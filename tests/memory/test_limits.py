"""Limits are named, configurable and validated at start-up (contract §3)."""

from __future__ import annotations

import pytest

from aimind_memory.memory import MemoryLimits, SettingsError, open_memory
from aimind_memory.memory.config.limits import (
    KEEP_TURNS,
    MESSAGE_CHAR_CAP,
    PIN_CHARS,
    PINNED_MAX,
    RECENT_TURNS,
    SUMMARY_CHARS,
    TRUNCATION_MARKER,
)
from aimind_memory.memory.config.settings import memory_settings
from aimind_memory.memory.errors import LimitsError

from .helpers import CountingCompactor, assert_bounds, new_token, settled, turn


def test_contract_defaults() -> None:
    assert (RECENT_TURNS, KEEP_TURNS, SUMMARY_CHARS, PINNED_MAX, PIN_CHARS, MESSAGE_CHAR_CAP) == (
        4,
        2,
        2_500,
        20,
        300,
        8_000,
    )
    assert TRUNCATION_MARKER == "\n\n[truncated for chat memory]"
    limits = MemoryLimits()
    assert (limits.max_messages, limits.kept_messages) == (8, 4)


@pytest.mark.parametrize(
    "env",
    [
        {"AIMIND_KEEP_TURNS": "5"},  # more than RECENT_TURNS=4
        {"AIMIND_KEEP_TURNS": "0"},
        {"AIMIND_KEEP_TURNS": "-1"},
        {"AIMIND_RECENT_TURNS": "1"},  # below KEEP_TURNS=2
        {"AIMIND_RECENT_TURNS": "3", "AIMIND_KEEP_TURNS": "4"},
        {"AIMIND_KEEP_TURNS": "two"},
        {"AIMIND_SUMMARY_CHARS": "0"},
        {"AIMIND_PINNED_MAX": "0"},
        {"AIMIND_MESSAGE_CHAR_CAP": "10"},  # not even room for the marker
        {"AIMIND_COMPACTION_TIMEOUT_S": "0"},
    ],
)
async def test_bad_limits_fail_at_open(
    db_url: str, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(LimitsError):
        async with open_memory(db_url):
            pytest.fail("memory opened with invalid limits")


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("AIMIND_PG_POOL_MAX", "lots"),
        ("AIMIND_SQLITE_BUSY_TIMEOUT_S", "-1"),
        ("AIMIND_ENV", "staging"),
        ("OPENAI_BASE_URL", "api.example.com"),
    ],
)
async def test_any_malformed_setting_fails_at_open_naming_it(
    db_url: str, monkeypatch: pytest.MonkeyPatch, name: str, bad: str
) -> None:
    """Not only the limits: every setting memory reads, even with the limits given."""
    monkeypatch.setenv(name, bad)
    with pytest.raises(SettingsError, match=f"^{name} must be .*[.]$"):
        async with open_memory(db_url, limits=MemoryLimits()):
            pytest.fail("memory opened with a malformed setting")


@pytest.mark.parametrize(("recent", "keep"), [(4, 5), (4, 0), (0, 0), (2, 3)])
def test_bad_limits_fail_when_constructed(recent: int, keep: int) -> None:
    with pytest.raises(LimitsError, match="KEEP_TURNS"):
        MemoryLimits(recent_turns=recent, keep_turns=keep)


async def test_configured_limits_are_honoured(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMIND_RECENT_TURNS", "3")
    monkeypatch.setenv("AIMIND_KEEP_TURNS", "1")
    monkeypatch.setenv("AIMIND_MESSAGE_CHAR_CAP", "100")
    limits = memory_settings().limits
    counter = CountingCompactor()
    token = new_token()
    async with open_memory(db_url, compactor=counter) as mem:
        assert mem.limits == limits
        for i in range(1, 10):
            await settled(mem, token, turn(f"q{i} " + "x" * 200, f"a{i}"))
            state = await mem.load(token)
            assert_bounds(state, limits)
            assert len(state.messages) <= 6
    assert [len(r.kept) for r in counter.requests] == [2, 2]  # at turns 4 and 7; keeps 1 turn
    assert all(len(m.text) <= 100 for m in state.messages)
    assert state.messages[0].text.endswith(TRUNCATION_MARKER)


async def test_keep_equal_to_window_is_allowed(db_url: str) -> None:
    limits = MemoryLimits(recent_turns=2, keep_turns=2)
    token = new_token()
    async with open_memory(db_url, limits=limits) as mem:
        for i in range(5):
            await settled(mem, token, turn(f"q{i}", f"a{i}"))
            assert_bounds(await mem.load(token), limits)
