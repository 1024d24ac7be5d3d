"""Sentence splitting (``memory/compaction/analysis/sentences.py``): names with dots stay
whole, quotes stay whole."""

from __future__ import annotations

import pytest

from aimind_memory.memory.compaction.analysis.sentences import is_chinese, split_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We deploy to Fly.io on v2.1. Node.js 18 is fine, e.g. for the API.",
            ["We deploy to Fly.io on v2.1.", "Node.js 18 is fine, e.g. for the API."],
        ),
        ("It costs 3.5 dollars! Really? Yes.", ["It costs 3.5 dollars!", "Really?", "Yes."]),
        (
            "Meet Dr. Patel at 4 p.m. Friday. Then lunch.",
            ["Meet Dr. Patel at 4 p.m. Friday.", "Then lunch."],
        ),
        ("See item No. 5 today. No. We decided.", ["See item No. 5 today.", "No.", "We decided."]),
        (
            'Your latest message: "Hi! We decided to use PostgreSQL.". Next.',
            ['Your latest message: "Hi! We decided to use PostgreSQL.".', "Next."],
        ),
        ('A stray " quote. Then more.', ['A stray " quote.', "Then more."]),
        ("- first item\n- second item. more", ["first item", "second item.", "more"]),
        (
            "我们定了，下个月十号搬家。不要紧，慢慢来！好的!我们用 Node.js。",
            ["我们定了，下个月十号搬家。", "不要紧，慢慢来！", "好的!", "我们用 Node.js。"],
        ),
        ("他说：“好的！我们定了。”然后走了。", ["他说：“好的！我们定了。”", "然后走了。"]),
        ('pins: "先做网页版。"; 2 turns.', ['pins: "先做网页版。"; 2 turns.']),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_language_is_the_one_with_more_words() -> None:
    assert is_chinese("数据库最终用 PostgreSQL，不用 MySQL。")
    assert not is_chinese("We meet at 王府井 on Friday.")
    assert not is_chinese("Plain English.")
