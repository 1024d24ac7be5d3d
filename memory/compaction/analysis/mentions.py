"""The handles a fact is asked by — names, numbers with their unit, times, dates, codes —
as spans of a sentence, verbatim.

The summary's last line lists those of the sentences it had no room for ("- Also
mentioned: Clay Corner; April 19; 8 miles"): a name or a number costs a tenth of the
sentence around it, and it is what a later question asks for.
"""

from __future__ import annotations

import re
from functools import lru_cache

from aimind_memory.memory.compaction.analysis.names import (
    BRANCH,
    NOT_IN_NAME,
    ZH_NAME,
    ZH_NAME_SUFFIXES,
)
from aimind_memory.memory.compaction.analysis.segmenter import words as chinese_words
from aimind_memory.memory.compaction.analysis.sentences import is_chinese
from aimind_memory.memory.compaction.analysis.words import (
    EN_FEELING,
    EN_STOPWORDS,
    ZH_FEELING,
    ZH_STOPWORDS,
)
from aimind_memory.memory.text import word_set

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)"
)
_DAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
_CAP = r"[A-Z][\w'’&.-]*[\w]|[A-Z]"
_EN_SPAN = re.compile(  # every span starts with a capital, a digit or a currency sign
    r"(?=[A-Z$€£]|\d)"
    rf"(?:\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\b|"
    rf"\b{_DAY}\b|"
    r"\b\d{1,2}:\d{2}(?:\s?[ap]\.?m\.?)?|"
    r"[$€£]\s?\d(?:[\d,.]*\d)?|"
    r"\b(?=[A-Z0-9]*\d)(?=[0-9]*[A-Z])[A-Z0-9]{5,}\b|"
    r"\b\d(?:[\d,.]*\d)?(?:\s(?P<unit>[a-z]+))?|"
    rf"(?<=[\w,;:)] )(?:{_CAP})(?:\s+(?:of|the|de|and|&)?\s*(?:{_CAP}))*)"
)
_ZH_UNIT = "个小时|个星期|个月|个人|小时|分钟|公里|公斤|[点号日月年元块岁天周次楼层万千米分秒]"
"""What a Chinese number counts, longest first (9个小时, not 9个); a bare 个 only after digits
(一个, 两个 are words, not counts)."""
_ZH_BOUND = "(?:以上|以下|以内|以外|左右|起)?"
"""A bound said with the number (4分以上, 20元以下): the figure asked for is the whole."""
_ZH_WEEKDAY = r"周[一二三四五六日天](?:\s*[,，、至到-]\s*周[一二三四五六日天])*"
_ZH_SPAN = re.compile(
    rf"(?:{_ZH_WEEKDAY}\s*)?\d{{1,2}}:\d{{2}}(?:\s*-\s*\d{{1,2}}:\d{{2}})?|"
    + ZH_NAME.pattern
    + rf"|[0-9０-９][0-9０-９.:\-]*(?:{_ZH_UNIT}|个|[A-Za-z]+)?{_ZH_BOUND}|"
    rf"[一二三四五六七八九十两百千万]+(?:{_ZH_UNIT}){_ZH_BOUND}|"
    rf"[^\W{NOT_IN_NAME}]{{1,3}}型|"
    r"#?[A-Za-z][A-Za-z0-9.+#-]+"
)
_ZH_LEAD = re.compile(r"^(?:推荐|另外|看看|比如|例如|像|去|有|是|到|在)")
"""Words before a name that the name pattern takes in (推荐|798艺术区)."""
_IN_ITEM = NOT_IN_NAME.replace("家", "")
"""An item may hold 家 (白家大院); a name found by its suffix starts after it (这家|…饭店). No
digits: a clause's figure is a mention of its own (推荐798艺术区，门票120元)."""
_ZH_ITEM = rf"[^\W\d{_IN_ITEM}]{{2,16}}?{BRANCH}"
_ZH_SEP = r"\s*(?:[、，,和与及或]|或者|以及)\s*"
_ZH_AFTER = "这|都|均|等|也|吧|呢|啊|哦|吗|比较|不错|怎么样|试试|可不可以"
"""What follows a listed item: a demonstrative, an adverb, a particle, a verdict."""
_ZH_END = rf"(?={_ZH_SEP}|[。！？!?；;：:]|$|{_ZH_AFTER})"
_ZH_LIST = re.compile(
    rf"(?:推荐|有|叫|名叫|吃|去|包括|还是|或者|[:：])(?:您|你|的)?\s*"
    rf"(?P<first>{_ZH_ITEM}{_ZH_END})(?P<more>(?:{_ZH_SEP}{_ZH_ITEM}{_ZH_END})*)|"
    rf"(?P<head>{_ZH_ITEM}{_ZH_END})(?P<listed>(?:\s*、\s*{_ZH_ITEM}{_ZH_END})+"
    rf"(?:{_ZH_SEP}{_ZH_ITEM}{_ZH_END})?|(?:{_ZH_SEP}{_ZH_ITEM}{_ZH_END})+(?=都|均))"
)
"""What a sentence lists or offers by name: the items after 推荐 / 有 / 叫 / 吃 …, or a run
joined by 、 ("推荐恭王府，什刹海和北京动物园", "有拌山野菜", "A、B、C这几家"), or by 和 before
都 ("A和B都不错") — names without a
suffix the name pattern knows, dishes, the choices on offer."""
_ZH_SEP_SPLIT = re.compile(_ZH_SEP)
_ZH_JOINS = re.compile(r"\s*(?:[-~～至到]\s*)?")
"""What may stand between two spans that make one mention: nothing (北京市东城区|国子监街|15号),
spaces (周一至周日 11:30-16:00 17:00-21:30) or a range's dash (2小时 - 4小时)."""
_LEAD_VERBS = word_set(
    "您 看 去 到 想 要 喜欢 觉得 知道 查 查询 找 推荐 建议 选择 尝尝 试试 位于 "
    "比如 例如 像 还有 另外"
)
"""Verbs and leads a name's prefix takes in (您看|北京海洋馆, 查询|金融街国际酒店, 比如|…)."""
_CJK_START = re.compile(r"[\u4e00-\u9fff]")
_NOT_NAMES = frozenset({"I", "I'm", "I'll", "I've", "I'd", "OK", "Ok", "TV"})


def _en_spans(sentence: str) -> list[str]:
    out = []
    for m in _EN_SPAN.finditer(sentence):
        span = m.group()
        unit = m.group("unit")
        if unit and (unit in EN_STOPWORDS or unit in EN_FEELING):
            span = span[: -len(unit)].rstrip()
        if span not in _NOT_NAMES and span.casefold() not in EN_FEELING:
            out.append(span)
    return out


def _zh_items(sentence: str) -> list[tuple[int, int]]:
    """Spans of the items the sentence lists or offers (``_ZH_LIST``)."""
    out: list[tuple[int, int]] = []
    for m in _ZH_LIST.finditer(sentence):
        first = "first" if m.group("first") is not None else "head"
        rest = "more" if first == "first" else "listed"
        out.append(m.span(first))
        start = m.start(rest)
        for piece in _ZH_SEP_SPLIT.split(m.group(rest)):
            at = sentence.find(piece, start) if piece else -1
            if at >= 0:
                out.append((at, at + len(piece)))
                start = at + len(piece)
    return out


def _zh_spans(sentence: str) -> list[str]:
    """Names, numbers, times and listed items; spans touching (or joined by spaces or a
    range's dash) are one mention: an address, a range, a day's opening hours."""
    spans = []
    for m in _ZH_SPAN.finditer(sentence):
        lead = _ZH_LEAD.match(m.group())
        spans.append((m.start() + (lead.end() if lead else 0), m.end()))
    spans += _zh_items(sentence)
    merged: list[list[int]] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if merged and (
            start <= merged[-1][1] or _ZH_JOINS.fullmatch(sentence, merged[-1][1], start)
        ):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [_without_lead_words(sentence[start:end]) for start, end in merged]


def _without_lead_words(span: str) -> str:
    """The span less the function and feeling words a name's prefix took in (觉得|海底捞火锅,
    喜欢|北京新世界酒店, 什么|景点)."""
    if not _CJK_START.match(span):
        return span
    cut = 0
    for word in chinese_words(span):
        if word not in ZH_STOPWORDS and word not in ZH_FEELING and word not in _LEAD_VERBS:
            break
        cut += len(word)
    rest = span[cut:]
    return "" if rest in ZH_NAME_SUFFIXES else rest  # 餐馆, 景点: what it is, not which


@lru_cache(maxsize=8_192)
def mentions(sentence: str) -> tuple[str, ...]:
    """The sentence's names, numbers, times, dates and codes, in order, verbatim."""
    found = _zh_spans(sentence) if is_chinese(sentence) else _en_spans(sentence)
    return tuple(s.strip() for s in found if len(s.strip()) >= 2)
