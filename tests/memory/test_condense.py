"""A sentence cut to its informative span: filler around it goes, its words stay verbatim."""

from __future__ import annotations

import pytest

from aimind_memory.memory.compaction.analysis.condense import condense

CASES = [
    (
        "I'd like to book a table for 4 at 17:15 on Sunday at Pizza Hut, could you help?",
        "Book a table for 4 at 17:15 on Sunday at Pizza Hut.",
    ),
    ("Oh wow, we adopted a puppy on Saturday!", "We adopted a puppy on Saturday!"),
    (
        "Haha yeah, Dana runs with me on Saturday mornings.",
        "Dana runs with me on Saturday mornings.",
    ),
    ("Could you please find me a cheap hotel in the north?", "Find me a cheap hotel in the north?"),
    ("Thanks, the deposit is $400, would you like anything else?", "The deposit is $400."),
    ("好的，谢谢，押金是四百块。", "押金是四百块。"),
    ("麻烦你帮我查一下上宅文化陈列馆的门票价格好吗？", "查一下上宅文化陈列馆的门票价格？"),
    (
        "推荐蓝钻国际美食自助百汇(西直门店）， 人均消费160元， 评分5分。",
        "推荐蓝钻国际美食自助百汇(西直门店），人均消费160元，评分5分。",
    ),
    ("哈哈你会打手鼓吗？", "你会打手鼓吗？"),
]


@pytest.mark.parametrize(("sentence", "condensed"), CASES)
def test_filler_around_the_fact_goes(sentence: str, condensed: str) -> None:
    assert condense(sentence) == condensed


@pytest.mark.parametrize(
    "sentence",
    [
        "So far the Acorn Guest House is our favourite.",  # "So" leads with no comma: a word
        "Well done on the 10K race in Portland!",
        "好吃的那家叫老码头火锅。",  # 好 is not a lead without punctuation after it
        "I want to paint it purple.",  # a wish, not a polite request: its frame stays
        "Hi Leo!",  # too little would remain
        "对面那家店很好。",
    ],
)
def test_what_only_looks_like_filler_stays(sentence: str) -> None:
    assert condense(sentence) == sentence
