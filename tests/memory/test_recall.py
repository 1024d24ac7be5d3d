"""What memory keeps over long chats (the recall benchmark's data, replayed quickly).

Every labelled conversation goes through ``open_memory`` (in-memory backend); the
planted answers must be in the final memory far more often than in a window of
the same size, and the pins must be the labelled decisions.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from bench import dialogues
from bench.recall import (
    Conversation,
    chained,
    conversations,
    public_conversations,
    replay,
    score,
    totals,
)

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


# --- the public dialogues' readers, on dialogues shaped like theirs (written here) ---------


MULTIWOZ_LIKE = {
    "SNG0001": {
        "log": [
            {
                "text": "I need a taxi to Pizza Hut at 17:15 .",
                "span_info": [
                    ["Taxi-Inform", "Dest", "pizza hut", 5, 6],
                    ["Taxi-Inform", "Leave", "17:15", 8, 8],
                ],
            },
            {
                "text": "Booked ! Your car is a blue honda , reference AB12CD .",
                "span_info": [
                    ["Taxi-Inform", "Car", "blue honda", 6, 7],
                    ["Taxi-Request", "Phone", "?", 0, 0],
                ],
            },
        ]
    }
}
CROSSWOZ_LIKE = {
    "7": {
        "messages": [
            {"content": "推荐一个评分4.5分以上的景点。", "role": "usr", "dialog_act": []},
            {
                "content": "推荐北京植物园，门票60元。",
                "role": "sys",
                "dialog_act": [
                    ["Inform", "景点", "名称", "北京植物园"],
                    ["Inform", "景点", "门票", "70元"],
                ],
            },
        ]
    }
}


def test_public_dialogues_are_read_from_a_file_or_zip_and_their_facts_are_verbatim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "test.json"
    plain.write_text(json.dumps(MULTIWOZ_LIKE))
    zipped = tmp_path / "crosswoz.json.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("test.json", json.dumps(CROSSWOZ_LIKE, ensure_ascii=False))
    monkeypatch.setenv(dialogues.MULTIWOZ_ENV, str(plain))
    monkeypatch.setenv(dialogues.CROSSWOZ_ENV, str(zipped))
    (en,), _ = dialogues.load("multiwoz")
    assert en.turns == [(MULTIWOZ_LIKE["SNG0001"]["log"][0]["text"], en.turns[0][1])]
    assert en.facts == [("Pizza Hut", "place"), ("17:15", "time"), ("blue honda", "name")]
    (zh,), _ = dialogues.load("crosswoz")
    assert zh.facts == [("北京植物园", "name")]  # 70元 is not what the text says: not asked
    chats, _ = public_conversations("crosswoz", 1)
    assert [q.answer for q in chats[0].questions] == ["北京植物园"]


def test_absent_public_dialogues_are_said_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(dialogues.MULTIWOZ_ENV, raising=False)
    monkeypatch.setenv(dialogues.CROSSWOZ_ENV, "/nonexistent/crosswoz")
    assert public_conversations("multiwoz", 1) == ([], f"{dialogues.MULTIWOZ_ENV} is not set")
    chats, why = public_conversations("crosswoz", 1)
    assert chats == [] and "does not exist" in why
