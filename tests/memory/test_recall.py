"""What memory keeps over long chats (the recall benchmark's data, replayed quickly).

Every labelled conversation goes through ``open_memory`` (in-memory backend); the
planted answers must be in the final memory far more often than in a window of
the same size, and the pins must be the labelled decisions.
"""

from __future__ import annotations

import pytest

from bench.recall import Conversation, chained, conversations, replay, score, totals

CHATS = conversations()


def test_the_conversations_are_long_and_in_both_languages() -> None:
    assert sum(len(c.turns) for c in CHATS) >= 200
    assert {c.language for c in CHATS} == {"en", "zh"}
    for c in CHATS:
        assert len(c.sessions) >= 3 and len(c.questions) >= 15


@pytest.mark.parametrize("chat", CHATS, ids=[c.id for c in CHATS])
async def test_each_conversation_keeps_its_planted_answers(chat: Conversation) -> None:
    scored = score(chat, await replay(chat, "memory"))
    found = sum(k["memory"] for k in scored["by_kind"].values())
    assert found >= 0.9 * len(chat.questions), scored["summary"]
    assert scored["pin_precision"] >= 0.75, scored["pinned_decisions"]


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_months_of_chat_memory_beats_a_same_size_window(language: str) -> None:
    chat = chained(language, CHATS)
    figures = totals([score(chat, await replay(chat, "memory"))])
    assert figures["memory_share"] >= 0.75, figures
    assert figures["memory_vs_window"] >= 1.4, figures
