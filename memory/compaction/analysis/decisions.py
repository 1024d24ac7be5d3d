"""Whether a sentence states a decision, and how strongly: what to pin and what to evict first."""

from __future__ import annotations

import re
from functools import lru_cache

from aimind_memory.memory.compaction.analysis import decisions_en, decisions_zh
from aimind_memory.memory.compaction.analysis.sentences import is_chinese, split_sentences

UNRECOGNISED = 0.5
"""The strength of a pin no rule recognises (a model's terse "DB: PostgreSQL", a pin kept
from before): it stays, but past the cap it goes before any recognised decision."""


_QUOTED = re.compile(r'"[^"]*"|“[^”]*”|「[^」]*」|『[^』]*』')
_WORD = re.compile(r"[A-Za-z0-9]+|[\u4e00-\u9fff]")
_OPENING_MARKS = '"“「『'
"""What a quote of ``_QUOTED`` opens with: a sentence with none quotes nothing."""


def unquoted(sentence: str) -> str:
    """The sentence without reported speech: a quote of three or more words is not ours.

    A short quote stays ("we named the puppy "Luna""); a bot quoting the user's
    message or the pins back is not deciding anything.
    """
    if not any(mark in sentence for mark in _OPENING_MARKS):
        return sentence
    return _QUOTED.sub(lambda m: m.group() if len(_WORD.findall(m.group())) < 3 else " ", sentence)


@lru_cache(maxsize=4_096)
def decision_strength(sentence: str) -> float:
    """0 for no decision; above 0 the stronger the more explicitly it was decided.

    Cached: the summary's sentences come back at every compaction.
    """
    text = unquoted(sentence)
    rules = decisions_zh if is_chinese(text) else decisions_en
    return rules.decision_strength(text)


@lru_cache(maxsize=4_096)
def is_small_talk(sentence: str) -> bool:
    """Encouragement, advice, a compliment, a feeling, a platitude (``analysis.smalltalk``):
    never a pin, whoever says it — not even as a change of plan ("Glad everyone could make
    it." has the words of "make it 6 people" and replaces nothing)."""
    text = unquoted(sentence)
    return (decisions_zh if is_chinese(text) else decisions_en).is_small_talk(text)


def is_bare_confirmation(sentence: str) -> bool:
    """ "Done!", "说定了！" (with the booking profile "Booked!", "预订成功。"): a confirmation
    whose object is the sentence after it."""
    rules = decisions_zh if is_chinese(sentence) else decisions_en
    return rules.is_bare_confirmation(sentence)


@lru_cache(maxsize=4_096)
def pin_strength(pin: str) -> float:
    """A pin's rank for eviction: its most decision-like sentence, or ``UNRECOGNISED``."""
    return max((decision_strength(s) for s in split_sentences(pin)), default=0.0) or UNRECOGNISED
