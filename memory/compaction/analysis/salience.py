"""What a sentence is worth keeping in the summary: facts and decisions, not chatter.

Information is counted, not guessed: content words (no function, greeting or
feeling words), anchors (names, numbers, dates, times, places written as
names) and decision strength. A greeting, thanks or a cheer scores next to
nothing and is dropped as filler; "Caroline moved to Austin on May 3" scores high.
"""

from __future__ import annotations

import re
from functools import lru_cache

from aimind_memory.memory.compaction.analysis.decisions import decision_strength
from aimind_memory.memory.compaction.analysis.names import zh_names
from aimind_memory.memory.compaction.analysis.sentences import is_chinese
from aimind_memory.memory.compaction.analysis.words import anchors, content_words
from aimind_memory.memory.text import normalize

CONTENT_CAP = 8
"""Content words counted at most: a long sentence is not worth more than a dense one."""
ANCHOR_WEIGHT = 2.0
ANCHOR_CAP = 4
DECISION_WEIGHT = 2.0
OPEN_QUESTION = 0.5
"""A question with substance ("Which venue did we book?") is an open matter worth a little."""
FILLER_BELOW = 2.0
"""Information below this is a greeting, thanks, cheer or bare acknowledgement."""

_QUESTION = re.compile(r"[?？]\W*$")
_DIGITS = re.compile(r"\d+")


@lru_cache(maxsize=4_096)
def information(sentence: str) -> float:
    """Content words plus weighted anchors: how much a sentence tells (cached, like
    ``decision_strength``: the summary's sentences come back at every compaction)."""
    words = len(set(content_words(sentence)))
    handles = anchors(sentence) + (zh_names(sentence) if is_chinese(sentence) else 0)
    return min(words, CONTENT_CAP) + ANCHOR_WEIGHT * min(handles, ANCHOR_CAP)


def is_filler(sentence: str) -> bool:
    """Nothing to remember: "Thanks!", "Wow, this photo rocks!", "好的，没问题。"."""
    return information(sentence) < FILLER_BELOW and not decision_strength(sentence)


@lru_cache(maxsize=8_192)
def salience(sentence: str) -> float:
    """How much the summary should want this sentence (before recency is weighed in;
    cached, like ``information``)."""
    score = information(sentence) + DECISION_WEIGHT * decision_strength(sentence)
    if _QUESTION.search(sentence):
        score += OPEN_QUESTION
    return score


def template(sentence: str) -> str:
    """The sentence with its numbers masked: what a bot's boilerplate keeps from turn to turn."""
    return _DIGITS.sub("#", normalize(sentence))
