"""The names, numbers, times and dates a sentence holds, verbatim (the summary's last line)."""

from __future__ import annotations

import pytest

from aimind_memory.memory.compaction.analysis.mentions import mentions
from aimind_memory.memory.compaction.analysis.names import zh_names


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "It's every Thursday evening at a studio called Clay Corner.",
            ("Thursday", "Clay Corner"),
        ),
        ("So Marco paid $4,800, and the race is on April 19.", ("Marco", "$4,800", "April 19")),
        ("The vet bill was 180 dollars, about 8 miles away.", ("180 dollars", "8 miles")),
        (
            "Your reference number is S0FC5MN8 and TR4748 leaves at 14:08.",
            ("S0FC5MN8", "TR4748", "14:08"),
        ),
        ("Thanks, that is all I needed.", ()),
        ("我知道一家新开的，叫老码头火锅，在春熙路附近。", ("老码头火锅", "春熙路")),
        (
            "营业时间是周一至周日 10:00-22:00，电话是010-62165588。",
            ("周一至周日 10:00-22:00", "010-62165588"),
        ),
        ("推荐798艺术区，门票120元。", ("798艺术区", "120元")),
        ("当然可以，给您推荐恭王府，什刹海和北京动物园。", ("恭王府", "什刹海", "北京动物园")),
        (
            "全聚德烤鸭店(清华园店)、白家大院、烤肉宛饭庄这几家都符合要求。",
            ("全聚德烤鸭店(清华园店)", "白家大院", "烤肉宛饭庄"),
        ),
        ("兔爷(燕莎金街店)和干锅传奇都不错。", ("兔爷(燕莎金街店)", "干锅传奇")),
        ("他家有拌山野菜，想吃烤羊蝎子也行。", ("拌山野菜", "烤羊蝎子")),
        ("地址是北京市东城区国子监街15号。", ("北京市东城区国子监街15号",)),
        ("游玩时长2小时 - 4小时，评分4分以上。", ("2小时 - 4小时", "4分以上")),
        ("营业时间是周一至周日 11:30-16:00 17:00-21:30。", ("周一至周日 11:30-16:00 17:00-21:30",)),
        ("我觉得北京贵都大酒店不错，您看北京海洋馆呢？", ("北京贵都大酒店", "北京海洋馆")),
    ],
)
def test_a_sentence_s_handles_verbatim(sentence: str, expected: tuple[str, ...]) -> None:
    assert mentions(sentence) == expected


def test_chinese_names_are_counted_by_what_they_name() -> None:
    assert zh_names("北京鹏润国际大酒店的电话是010-62165588，离景山公园不远。") == 2
    assert zh_names("我们明天再聊吧。") == 0
