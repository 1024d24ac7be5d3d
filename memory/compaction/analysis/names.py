"""Chinese names of places and organisations, counted without a tagger.

A restaurant, hotel, sight, street or company is named by what it is: 老码头火锅,
北京鹏润国际大酒店, 景山公园, 春熙路, 青禾科技, often with its branch in brackets
(全聚德烤鸭店(清华园店)). Counting these lets the summary prefer sentences that name
things. jieba's part-of-speech tagger (``jieba.posseg``) was tried: ten times slower than
segmenting (about 1 ms a sentence) and it missed most such names, so a suffix rule it is.
"""

from __future__ import annotations

import re

from aimind_memory.memory.text import word_set

ZH_NAME_SUFFIXES = word_set(
    "大酒店 酒店 饭店 宾馆 旅馆 客栈 餐厅 餐馆 饭庄 酒家 酒楼 食府 火锅 烤鸭店 小吃店 咖啡馆 "
    "公园 博物馆 纪念馆 艺术馆 美术馆 图书馆 体育馆 游泳馆 乐园 度假村 景区 古城 古镇 大厦 广场 "
    "中心 商场 市场 寺 宫 塔 湖 山 街 路 胡同 村 镇 区 站 机场 大学 学院 小学 中学 医院 公司 "
    "科技 集团 银行 影院 剧院 书店 超市 花园 小区 馆 园 府 坊 阁 店"
)
"""The last word of a place's or an organisation's name."""

NOT_IN_NAME = (
    "的了是在叫去到从和与跟给为做把被有就也还又很这个家些吗呢吧啊您你我他她它们想要说讲问玩逛"
)
"""Function characters and verbs a name does not hold: where one before a name ends it
(叫|青禾科技, 导游说|中山公园). Not 都 or 那, which names hold (北京贵都大酒店, 那兰酒楼)."""
_PREFIX = rf"[^\W{NOT_IN_NAME}]{{1,12}}?"
BRANCH = r"(?:[(（][^)）]{1,16}[)）])?"
"""A branch in brackets after the name: 全聚德烤鸭店(清华园店)."""
_LONG = "|".join(sorted((w for w in ZH_NAME_SUFFIXES if len(w) > 1), key=len, reverse=True))
_SHORT = "".join(w for w in ZH_NAME_SUFFIXES if len(w) == 1)
ZH_NAME = re.compile(rf"{_PREFIX}(?:{_LONG}){BRANCH}|{_PREFIX}[{_SHORT}]{BRANCH}")
"""A two-character suffix is tried first: 中山公园, not 中山 (山 is a suffix too)."""


def zh_names(text: str) -> int:
    """How many place or organisation names the Chinese text holds."""
    return len(ZH_NAME.findall(text))
