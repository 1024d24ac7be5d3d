"""The handles a fact is asked by — names, numbers with their unit, times, dates, codes —
as spans of a sentence, verbatim.

The summary's last line lists those of the sentences it had no room for ("- Also
mentioned: Clay Corner; April 19; 8 miles"): a name or a number costs a tenth of the
sentence around it, and it is what a later question asks for.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory.compaction.analysis.names import ZH_NAME
from memory.compaction.analysis.sentences import is_chinese
from memory.compaction.analysis.words import EN_FEELING, EN_STOPWORDS

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)"
)
_DAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
_CAP = r"[A-Z][\w'’&.-]*[\w]|[A-Z]"
_EN_SPAN = re.compile(
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\b|"
    rf"\b{_DAY}\b|"
    r"\b\d{1,2}:\d{2}(?:\s?[ap]\.?m\.?)?|"
    r"[$€£]\s?\d(?:[\d,.]*\d)?|"
    r"\b(?=[A-Z0-9]*\d)(?=[0-9]*[A-Z])[A-Z0-9]{5,}\b|"
    r"\b\d(?:[\d,.]*\d)?(?:\s(?P<unit>[a-z]+))?|"
    rf"(?<=[\w,;:)] )(?:{_CAP})(?:\s+(?:of|the|de|and|&)?\s*(?:{_CAP}))*"
)
_ZH_UNIT = "个小时|个星期|个月|个人|小时|分钟|公里|公斤|[点号日月年元块岁天周次楼层万千米分秒]"
"""What a Chinese number counts, longest first (9个小时, not 9个); a bare 个 only after digits
(一个, 两个 are words, not counts)."""
_ZH_SPAN = re.compile(
    r"(?:周[一二三四五六日天](?:至周[一二三四五六日天])?\s*)?\d{1,2}:\d{2}(?:\s*-\s*\d{1,2}:\d{2})?|"
    + ZH_NAME.pattern
    + rf"|[0-9０-９][0-9０-９.:\-]*(?:{_ZH_UNIT}|个|[A-Za-z]+)?|"
    rf"[一二三四五六七八九十两百千万]+(?:{_ZH_UNIT})|"
    r"[A-Za-z][A-Za-z0-9.+#-]+"
)
_ZH_LEAD = re.compile(r"^(?:推荐|另外|看看|比如|例如|像|去|有|是|到|在)")
"""Words before a name that the name pattern takes in (推荐|798艺术区)."""
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


@lru_cache(maxsize=8_192)
def mentions(sentence: str) -> tuple[str, ...]:
    """The sentence's names, numbers, times, dates and codes, in order, verbatim."""
    if is_chinese(sentence):
        found = [_ZH_LEAD.sub("", m) for m in _ZH_SPAN.findall(sentence)]
    else:
        found = _en_spans(sentence)
    return tuple(s.strip() for s in found if len(s.strip()) >= 2)
