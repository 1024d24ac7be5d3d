"""A sentence cut to its informative span: what the summary keeps per character.

The summary is bounded and folded turns are far longer, so every character spent on
"Oh wow," or "could you help?" is a fact that does not fit. This module only removes
words that tell nothing and never rewrites the ones it keeps, so names, numbers and
times stay verbatim: clauses with no information ("Thanks, …", "…, would you like
anything else?"), interjections and discourse markers in front ("Oh, and …", "好的，…",
"哈哈…"), politeness frames around a request ("I'd like to book …" → "book …",
"Could you please …", "麻烦你帮我查一下…", "请问…"), and tag questions at the end
("…, is that okay?", "…好吗？"). "I'd like to book a table for 4 at 17:15 on Sunday at
Pizza Hut, could you help?" becomes "book a table for 4 at 17:15 on Sunday at Pizza Hut."
"""

from __future__ import annotations

import re
from functools import lru_cache

from aimind_memory.memory.compaction.analysis.cues import Cues
from aimind_memory.memory.compaction.analysis.salience import FILLER_BELOW, information
from aimind_memory.memory.compaction.analysis.sentences import is_chinese

MIN_REMAINS = {"en": 8, "zh": 4}
"""A cut that leaves fewer characters than this is not made: the sentence stays whole."""

_EN_INTERJECTION = (
    r"oh+|ah+|aw+|wow+|yeah|yep|yup|yes|okay|ok|hey|hi|hello|haha\w*|lol|um+|uh+|hmm+|"
    r"anyway|honestly|btw|by the way|guess what|you know what|oh and|and oh|oh also|"
    r"no way|omg|gosh|phew|alright|all right"
)
_EN_MARKER = (
    r"well|so|also|and|plus|great|perfect|excellent|sure|fine|cool|right|actually|okay then"
)
"""Words that lead a sentence as a marker only when a comma follows ("So, …" but "So far …")
or after an interjection ("Oh, so …"); "and", "also", "plus" lead anywhere ("And my cat …")."""
_EN_LEAD = re.compile(
    rf"^(?:(?:{_EN_INTERJECTION})\b[\s,!.:;~-]*|(?:{_EN_MARKER})\s*,\s*|"
    r"(?:(?<=[,!.] )(?:so|and|also|plus)|^(?:and|also|plus))\s+)+",
    re.IGNORECASE,
)
_EN_FRAME = re.compile(
    r"^(?:(?:i|we)(?:'d| would) (?:like|love) to|(?:i|we) (?:want|need|wanted|needed) to|"
    r"(?:i|we)(?:'m| am| are) (?:looking|hoping|trying) to|i was wondering if (?:you|i) could|"
    r"(?:can|could|would|will) you(?: please)?(?: help (?:me|us))?(?: to)?|"
    r"(?:would|is) it (?:be )?possible to|please|kindly)\s+"
    r"(?=(?:book|reserve|get|find|make|know|have|give|send|check|tell|help|arrange|change|"
    r"cancel|order|add|see|look|recommend|suggest|confirm|schedule)\b)",
    re.IGNORECASE,
)
"""A request's polite frame, cut only in front of the verb that says what is wanted."""
_EN_TAIL = re.compile(r"\s*,?\s*\b(?:please|for me|for us|thanks|thank you)\s*([.!?]*)$", re.I)

_ZH_LEAD = re.compile(
    r"^(?:(?:好的|好吧|好|嗯+呢?|恩+|哦+|噢|喔|哇+塞?|啊|呀|哈哈+|嘿嘿|呵呵|对了|那个|其实|说实话|"
    r"你好|您好|请问|不好意思|抱歉|谢谢(?:你|您)?|太好了|没问题|是的|对|行|可以|嗯嗯)"
    r"[，,！!。～~、\s]+|(?:哈哈+|嘿嘿|请问|对了|那个|其实|说实话)\s*)+"
)
"""Interjections and politeness in front: "好的，谢谢，…", "哈哈…", "请问…"; a bare 好/对/行
only with the punctuation after it (不是 "好吃", "对面")."""
_ZH_FRAME = re.compile(
    r"^(?:(?:麻烦|请)(?:你|您)?(?:帮(?:我|忙))?|(?:你|您)(?:能|可以|能不能|可不可以)(?:帮(?:我|忙))?|"
    r"帮(?:我|忙)|(?:为|给)您|(?:我想|我要|我需要)(?:请你|请您)?)"
    r"(?=[查找订推预问看介说告发])"
)
"""A request's or an offer's polite frame, cut in front of the verb: 麻烦你帮我查…,
你能帮我找…, 为您推荐…."""
_ZH_TAIL = re.compile(
    r"[，,\s]*(?:好吗|好不好|可以吗|行吗|行不行|谢谢(?:你|您)?(?:了)?|麻烦(?:你|您)了|吧)\s*([？?！!。]*)$"
)

_CLAUSE = re.compile(r"(?<=[,;，；、])\s*|\s+(?=-\s)|(?<=\S)\s+-\s+")
"""Clause ends inside a sentence: ", ", "；", " - " (not the comma of 4,000)."""
_CLAUSE_MARKS = frozenset(",;，；、-")
"""What every clause end holds: a sentence with none is one clause."""
_CLAUSE_JOIN = re.compile(r"[,;，；、]\s*$")
_TERMINATED = re.compile(r"[.!?。！？…]\W*$")
_WIDE_GAP = re.compile(r"(?<=[，。；：！？、（）《》“”])\s+|\s+(?=[，。；：！？、（）《》“”])")
"""Spaces beside full-width punctuation, which Chinese never needs ("推荐A， 人均160元")."""


def _without_empty_clauses(sentence: str) -> str:
    """The sentence less its clauses that tell nothing ("Thanks, …", "…, would you like
    anything else?", "好的，谢谢，…")."""
    if _CLAUSE_MARKS.isdisjoint(sentence):  # a set lookup a character, not a search
        return sentence
    clauses = [c for c in _CLAUSE.split(sentence) if c and c.strip()]
    if len(clauses) < 2:
        return sentence
    kept = [c for c in clauses if information(_CLAUSE_JOIN.sub("", c).strip()) >= FILLER_BELOW]
    if not kept or len(kept) == len(clauses):
        return sentence
    text = _CLAUSE_JOIN.sub("", " ".join(c.strip() for c in kept)).strip()
    if kept[-1] is clauses[-1] or not _TERMINATED.search(sentence):
        return text
    return text + ("。" if is_chinese(text) else ".")  # not the dropped clause's "?"


_CUES = {p: Cues(p) for p in (_EN_TAIL, _ZH_TAIL)}
"""The words a cut at the end needs (``Cues``): most sentences have nothing to cut, and a
search for one tries every place. A cut at the start (``^``) is tried there alone: cheaper
than its cues."""


def _cut(pattern: re.Pattern[str], text: str, repl: str = "", language: str = "en") -> str:
    """``text`` with ``pattern`` replaced, unless too little would remain."""
    found = pattern not in _CUES or _CUES[pattern].may_match(text)
    cut = (pattern.sub(repl, text, count=1) if found else text).strip()
    return cut if len(cut) >= MIN_REMAINS[language] or len(cut) == len(text) else text


def _capitalised(text: str, original: str) -> str:
    """A cut English sentence starts with a capital again when the original did."""
    if text and original[:1].isupper() and text[:1].islower() and not text[:2].isupper():
        return text[0].upper() + text[1:]
    return text


@lru_cache(maxsize=8_192)
def condense(sentence: str) -> str:
    """The sentence's informative span, its words kept verbatim (cached: the summary's
    sentences come back at every compaction)."""
    whole = " ".join(sentence.split())  # str.split's whitespace is \s's: no regex needed
    whole = (whole if whole.isascii() else _WIDE_GAP.sub("", whole)).strip()  # no wide stop
    text = _without_empty_clauses(whole)
    if is_chinese(text):
        text = _cut(_ZH_LEAD, text, language="zh")
        text = _cut(_ZH_FRAME, text, language="zh")
        return _cut(_ZH_TAIL, text, r"\1", language="zh")
    out = _cut(_EN_TAIL, _cut(_EN_FRAME, _cut(_EN_LEAD, text)), r"\1")
    return _capitalised(out, whole) if out != whole else whole
