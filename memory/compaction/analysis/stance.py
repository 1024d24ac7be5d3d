"""Stance, not a decision: the speaker's view, wish or guess, and social imperatives.

A pin is a decision (contract §5): a commitment by the speakers, a rule for the assistant,
an arrangement. People chatting say many sentences with a decision's words in a stance's
*form*: a view or a wish ("I hope the Eagles make it again", "I figure Bill must
understand football", "我觉得…", "希望…"), a feeling or certainty about something ("I'm
glad the dunk shot is no longer banned"), an impression ("It seems unfair that…",
"好像…"), a guess about a third party with "must" ("Gillette must pay a lot") or
"应该是/肯定是", and a second-person social imperative with no concrete object ("don't get
me wrong", "别跟我扯淡", "不要为难我了", "你们真的不用迁就我", "别误会"). Whatever decision words
such a sentence has, the form says it decides nothing; ``smalltalk`` asks this module
first. The lists of verbs and states are data (``stance_en.toml``, ``stance_zh.toml``);
the forms are here. Tuned on the tuning parts of the public casual chats only
(``bench/chitchat.py``'s ``tune`` and ``seen``), guarded by the decision sets.
"""

from __future__ import annotations

import re

from aimind_memory.memory.compaction.analysis.cues import Cues
from aimind_memory.memory.compaction.analysis.wordlists import WordLists
from aimind_memory.memory.compaction.analysis.words import anchors

_EN = WordLists("stance_en")
_ZH = WordLists("stance_zh")

_EN_VIEW = re.compile(
    rf"\b(?:i|we)\s+(?:(?:{_EN.either('stance_adverbs')})\s+)*(?:{_EN.either('stance_verbs')})\b"
)
"""I hope…, I figure…, we really think…: the speaker's view or wish."""
_EN_STATE = re.compile(
    r"\b(?:i|we)\s+(?:am|are|was|were|have been|feel)\s+"
    r"(?:(?:so|really|very|just|pretty|quite|totally|absolutely|kind of|a little|not)\s+)*"
    rf"(?:{_EN.either('stance_states')})\b"
)
"""I'm glad…, we're sure…: a feeling or a certainty about something."""
_EN_IMPRESSION = re.compile(_EN.either("impressions"))
_EN_THIRD_PARTY_MUST = re.compile(
    rf"\b(?:{_EN.either('third_parties')})\s+must\s+(?:(?:really|surely|also|still)\s+)?"
    rf"(?:{_EN.either('guess_verbs')})\b(?!\s+\w+(?:ed|en)\b)"
)
_EN_NAME_MUST = re.compile(
    r"\b(?P<name>[A-Z][a-z]+)(?:\s+[A-Z][a-z]+)?\s+"
    rf"(?:{_EN.either('third_party_modals')})\s+(?:(?:really|surely|also|still)\s+)?"
    r"(?!be\s+\w+(?:ed|en)\b)[a-z]"
)
"""Gillette must pay a lot, Bill must understand football, Washington will have to deal
with…: a guess about someone else, or their obligation — not ours."""
_EN_NOT_NAMES = _EN.words("not_names")
_FIGURE = re.compile(r"\d")
"""A number after the guess makes it a rule of a deal ("Acme must pay 30 % upfront")."""
_EN_SOCIAL = re.compile(
    r"^(?:please\s+|just\s+|oh\s+|come on,?\s+)?(?:do not|never|stop)\s+"
    rf"(?:{_EN.either('social_imperatives')})\b"
)


_EN_CUES = Cues(_EN_VIEW, _EN_STATE, _EN_IMPRESSION, _EN_SOCIAL, _EN_THIRD_PARTY_MUST)
_EN_NAME_CUES = Cues(_EN_NAME_MUST)
"""What the forms below need in ``s``, and in ``raw`` (``Cues``): most sentences have none."""


def english(s: str, raw: str) -> bool:
    """Whether an English sentence (``s`` normalised: lower case, contractions spelled
    out; ``raw`` as written) is said in a stance's form or as a social imperative."""
    if not _EN_CUES.may_match(s) and not _EN_NAME_CUES.may_match(raw):
        return False
    if _EN_VIEW.search(s) or _EN_STATE.search(s) or _EN_IMPRESSION.search(s):
        return True
    if _EN_SOCIAL.match(s):
        return True
    if _EN_THIRD_PARTY_MUST.search(s) and not anchors(raw):
        return True
    return any(
        m.group("name") not in _EN_NOT_NAMES and not _FIGURE.search(raw[m.end() :])
        for m in _EN_NAME_MUST.finditer(raw)
    )


_ZH_STANCE = re.compile(_ZH.either("stance"))
"""我觉得…, 希望…, 好像…, 应该是…: a view, a wish, an impression or a guess."""
_ZH_SOCIAL = re.compile(
    r"(?:以后|今后|再)?(?:真的|千万|可|就|也|还是)?"
    rf"(?:{_ZH.either('social_negators')})"
    rf"(?:{_ZH.either('social_between')})*(?:{_ZH.either('social_verbs')})"
)
"""别跟我扯淡, 不要为难我了, 你们真的不用迁就我, 别误会: a social imperative, nothing to keep."""


def chinese(text: str) -> bool:
    """Whether a Chinese sentence is said in a stance's form or as a social imperative."""
    return bool(_ZH_STANCE.search(text) or _ZH_SOCIAL.search(text))
