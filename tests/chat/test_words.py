"""Word counts for English, Chinese and mixed text (``graphs/tasklist_agent/word_count.py``)."""

from __future__ import annotations

import pytest

from aimind_memory.graphs.tasklist_agent.word_count import word_count


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Plan the beta launch", 4),
        ("Ship it", 2),
        ("don't stop the well-known show", 5),
        ("准备周五的发布", 4),  # 准备 / 周五 / 的 / 发布
        ("发布", 1),
        ("准备发布", 2),
        ("准备 v2 发布", 3),
        ("2024 年 Q3 目标：上线", 5),
        ("準備しましょう", 4),
        ("— ... !!", 0),
        ("", 0),
    ],
)
def test_words_are_counted_in_any_script(text: str, words: int) -> None:
    assert word_count(text) == words
