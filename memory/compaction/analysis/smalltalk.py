"""Small talk that reads like a decision: what friends say to each other is never a pin.

A pin is a decision, rule, booking or commitment with a concrete object (contract §5). People
chatting say many sentences with a decision's shape and nothing to hold to: a promise
with no object ("I won't quit on my dreams", "we'll keep pushing each other"), advice to
the other ("you need to practice first", "don't forget to take breaks"), a compliment
("your fur babies must be thrilled with the bigger backyard"), a platitude, a vow said
in a quarrel ("这次绝对不会给你放鸽子"), and anything said in a stance's form — a view, a
wish, a guess, a social imperative (``analysis.stance``). The decision rules (``decisions_en``,
``decisions_zh``) ask this module first; it answers *small talk* when a sentence is one of:

- **advice** to the listener — "you" (你/您) with need to / have to / should / 得 / 应该 /
  可不能 … — unless it names a number, date or time (a bank's "you have to keep $20 in
  the account" is a rule of the deal);
- **self-care and encouragement** said as an imperative: "don't forget to take breaks",
  "never stop believing in yourself", "别太累了";
- **a guess with must** ("must be thrilled", "must bring so much joy") and an assessment
  with 绝对/肯定 + 不是/不会 ("演技绝对不是吹出来的");
- **a promise, plan or let's with no concrete object**: once the frame's words, vague
  verbs (keep, push, make, get, go …), abstract nouns (dreams, goals, path, each other …)
  and feeling words are set aside, nothing is left — no thing, place, person, number or
  day — or what is left only says when, vaguely ("next month", "有时间");
- **a generic statement** — a rule of life rather than of this conversation ("when we
  have to…", "走一步看一步");
- **an opinion announced** ("I have to say…", "不得不承认…", "I mean, that's bad"), **a threat
  or bargain** with a person ("if you…, I'll…", "不然你就…") and **a suggestion to the
  listener** (你…吧 with no 我 in it): how people talk in a quarrel or in passing;
- **a story or knowledge told** — a life event ("I adopted a pup", "我们租了一套房"), what a
  film, song or person did ("获得过金曲奖", "1998年她正式进入演艺圈"), what one heard or
  remembers ("听说…", "I heard that…"): summary material, not a pin.

The word lists are data, in ``smalltalk_en.toml`` and ``smalltalk_zh.toml``
(``memory.compaction.analysis.wordlists``); the frames are here. Tuned on the tuning sets
(``tests/memory/data/decisions/tune_*.jsonl``) and the tuning part of the public casual
chats (``bench/chitchat.py``); measured on held-out ones (``bench/smalltalk.py``).
"""

from __future__ import annotations

import re

from aimind_memory.memory.compaction.analysis import stance
from aimind_memory.memory.compaction.analysis.cues import Battery, Cues
from aimind_memory.memory.compaction.analysis.wordlists import WordLists
from aimind_memory.memory.compaction.analysis.words import anchors, content_words

_EN = WordLists("smalltalk_en")
_ZH = WordLists("smalltalk_zh")

# --- English -------------------------------------------------------------------------

EN_ABSTRACT = _EN.words("abstract")
"""Nouns and particles that name no concrete thing: what encouragement is made of."""
EN_VAGUE_VERBS = _EN.words("vague_verbs")
"""Verbs that carry a cheer or a plan's shape but no object of their own."""
EN_VAGUE_TIME = _EN.words("vague_time")
"""Times too vague to pin a plan to; a named day, date or hour is an anchor instead."""
_VOCATIVE = re.compile(r"(?:^|,\s*|\s-\s|^\w+\s+)[A-Z][a-z]+(?=\s*[,!.?]|$)")
"""A name the speaker addresses ("Yeah, Jon, …"): it is not the promise's object."""
_RELATIVE_ANCHOR = re.compile(
    r"\b(?:next|this|last)\s+(?:week|month|year|time|spring|summer|fall|autumn|winter)\b|"
    r"\b(?:end|start|beginning|middle) of (?:the|this|next) (?:week|month|year)\b",
    re.IGNORECASE,
)

_EN_ADVICE = re.compile(
    rf"\byou\s+(?:(?:{_EN.either('advice_adverbs')})\s+)*(?:{_EN.either('advice')})\b"
    r"(?P<rest>.*)"
)
"""Advice to the listener; a rule given to the assistant says "must not" / "never"."""
_EN_FOR_THE_ASSISTANT = re.compile(rf"\b(?:{_EN.either('for_the_assistant')})\b")
"""A rule the user gives the assistant ("you have to answer in English from now on"): said
with "you have to" like advice, but about how to answer, or for good."""
_EN_MONEY_OR_TIME = re.compile(
    r"[$€£¥%]|\d+(?::\d\d|\s?(?:am|pm|a\.m\.|p\.m\.|st|nd|rd|th)\b)|"
    rf"\b(?:{_EN.either('money_or_time')})\b"
)
_EN_FIGURE = re.compile(r"\d|[$€£¥]")
_EN_IMPERATIVE = re.compile(
    rf"^(?:please\s+|just\s+|and\s+|so\s+)?(?:{_EN.either('imperative')})\b(?P<rest>.*)"
)
_EN_SELF_CARE = re.compile(rf"\b(?:{_EN.either('self_care')})")
_EN_MUST_GUESS = re.compile(
    rf"\bmust\s+(?:(?:{_EN.either('must_adverbs')})\s+)*(?:have\s+)?"
    rf"(?:(?:be|been)\s+(?:(?:{_EN.either('must_intensifiers')})\s+)*"
    rf"(?P<state>\w+)|{_EN.either('must_guess_verbs')})\b"
)
"""A guess ("must be thrilled"), not an obligation: "we must be at the gate by 6" has an anchor."""
EN_MUST_FEELING = _EN.words("must_feeling")
"""Participles a guess with must is made of ("must be thrilled"); another participle is an
obligation ("passwords must be rotated every 90 days")."""
_EN_GENERIC = re.compile(
    rf"{_EN.either('generic')}|"
    r"^(?:it is|that is|this is|what a|how)\s+(?:really |so |such |truly |very |pretty |just )*"
    rf"(?:{_EN.either('generic_feelings')})\b"
)
"""Not about this conversation: a rule of life ("when we have to…", "only when you…"), a
reflection ("it reminds me we need to…"), a feeling about something ("it's inspiring how…")."""
_EN_GIVE_UP = re.compile(
    rf"\b(?:not|never)\s+(?:going to\s+|gonna\s+|ever\s+)?(?:{_EN.either('give_up')})\b"
    rf"(?:\s+(?:on|of)\s+(?:{_EN.either('give_up_objects')})\b"
    rf"(?:\s+\w+)?)?\s*(?:{_EN.either('give_up_ends')})"
)
"""I won't quit - …; I'm not giving up on my dreams: perseverance with no object (not "I'm
quitting the gym at the end of May")."""
_EN_CHEER = re.compile(_EN.either("cheer"))
"""What a cheer or a vague plan is made of, whatever else the sentence names."""
_EN_FAKE_IMPERATIVE = re.compile(rf"^(?:always|never)\s+(?:{_EN.either('fake_imperative')})\b")
""""Always a joy to…", "Never saw this coming": no imperative, whatever the first word."""
_EN_PROMISE = re.compile(
    rf"\b(?:{_EN.either('promise_subjects')})\s+(?:\w+\s+){{0,2}}?"
    rf"(?:{_EN.either('promise_verbs')})\b|\blet us\b|"
    rf"\b(?:my|our) (?:{_EN.either('promise_nouns')}) is\b"
)
"""A promise, plan or let's: what needs a concrete object to be a decision."""
_EN_FRAME_WORDS = _EN.words("frame_words")


_EN_LIFE_EVENT = re.compile(
    rf"\b(?:i|we)\s+(?:(?:{_EN.either('life_event_adverbs')})\s+)*"
    rf"(?:{_EN.either('life_events')})\b"
)
"""I adopted a pup; we rented a flat near the station: a life event told, summary material."""
_EN_FUTURE_DAY = re.compile(rf"\b(?:{_EN.either('future_day')})\b")

_EN_OPINION = re.compile(rf"\b(?:{_EN.either('opinion_markers')})\b")
_EN_ASIDE = re.compile(r"\bI mean\b[\s,]*(?P<next>(?:\S+\s*){0,2})", re.IGNORECASE)
""""I mean" and the two words after it: a correction names what it corrects to there."""
_EN_THREAT = re.compile(
    rf"\b(?:{_EN.either('threat_conditions')})\b.*\b(?:i|we) (?:will|am going to)\b|"
    rf"(?:,|\s-)\s*(?:{_EN.either('threat_consequences')})\s+(?:i|you) (?:will|are going to)\b|"
    rf"\b(?:{_EN.either('hostile')})\b"
)


def _opinion_en(s: str, raw: str) -> bool:
    """A view announced as one ("I have to say…", "I can't believe…", "not my fault"), or
    a spoken aside ("I mean, that's really bad") with no name, number or day right after
    it ("I mean Thursday" corrects): how people talk, not a decision nor a change of one."""
    if _EN_OPINION_CUES.may_match(s) and _EN_OPINION.search(s):
        return True
    aside = _EN_ASIDE.search(raw) if _EN_ASIDE_CUES.may_match(raw) else None
    return bool(aside and not anchors(aside.group("next")))


def _threat_en(s: str) -> bool:
    """A consequence for a person ("if you touch my car again, I'll…", "…, or else you'll
    regret it") or a hostile act ("I'll teach him a lesson"): a quarrel's threat or bargain
    with a person, not a plan about a thing. With a day, time or number it is a deadline's
    consequence ("until Friday at noon, otherwise you'll redo it"): a rule."""
    found = _EN_THREAT_CUES.may_match(s) and _EN_THREAT.search(s)
    return bool(found) and not _EN_MONEY_OR_TIME.search(s)


def _concrete_en(text: str) -> bool:
    """A thing, place, person, number or named day the sentence is about."""
    bare = _VOCATIVE.sub(" ", text)
    if anchors(_RELATIVE_ANCHOR.sub(" ", bare)):
        return True
    vague = EN_ABSTRACT | EN_VAGUE_VERBS | EN_VAGUE_TIME | _EN_FRAME_WORDS
    words = [w for w in content_words(bare.lower()) if w not in vague]
    return bool(words)


_EN_FORMS = Battery(
    *(_EN_FAKE_IMPERATIVE, _EN_GENERIC, _EN_ADVICE, _EN_IMPERATIVE, _EN_MUST_GUESS),
    *(_EN_GIVE_UP, _EN_LIFE_EVENT, _EN_CHEER, _EN_PROMISE),
)
"""What each English form below needs in ``s`` (``Battery``): most sentences have none of
it, and one let through for a cheer is not searched for a generic statement."""
_EN_THREAT_CUES, _EN_OPINION_CUES, _EN_ASIDE_CUES = (
    Cues(_EN_THREAT),
    Cues(_EN_OPINION),
    Cues(_EN_ASIDE),
)


def english(s: str, raw: str) -> bool:
    """Whether an English sentence (``s`` normalised: lower case, contractions spelled
    out; ``raw`` as written) is small talk, whatever decision frame it has."""
    if stance.english(s, raw):
        return True
    if _opinion_en(s, raw) or _threat_en(s):
        return True
    on = _EN_FORMS.on(s)
    if not on:
        return False
    if on.match(_EN_FAKE_IMPERATIVE) or on.search(_EN_GENERIC) or on.search(_EN_GIVE_UP):
        return True
    if (m := on.search(_EN_ADVICE)) and not (
        _EN_MONEY_OR_TIME.search(s) or _EN_FOR_THE_ASSISTANT.search(m.group("rest"))
    ):
        return True
    imperative = on.match(_EN_IMPERATIVE)
    if imperative and _EN_SELF_CARE.search(imperative.group("rest")):
        return True
    if (m := on.search(_EN_MUST_GUESS)) and not anchors(raw):
        state = m.group("state") or ""
        if not (re.fullmatch(r"\w+(?:ed|en)", state) and state not in EN_MUST_FEELING):
            return True
    if on.search(_EN_LIFE_EVENT) and not _EN_FUTURE_DAY.search(s):
        return True
    if on.search(_EN_CHEER) and not _EN_FIGURE.search(s):
        return True
    if on.search(_EN_PROMISE) or imperative:
        return not _concrete_en(raw)
    return False


# --- Chinese -------------------------------------------------------------------------

_ZH_YOU = rf"(?:{_ZH.either('you')})"
_ZH_ADVICE = re.compile(
    rf"{_ZH_YOU}[^，。！？,!?]{{0,6}}?(?:{_ZH.either('advice')})|"
    rf"{_ZH_YOU}(?:{_ZH.either('reproach')})"
)
"""你得…, 你可不能…, 你就别…, 你就好好干吧: advice or reproach to the listener (a rule
for the assistant says 不要 / 别 / 不能 and stays one)."""
_ZH_FOR_THE_ASSISTANT = re.compile(_ZH.either("for_the_assistant"))
"""你以后必须用中文回复我: a rule for the assistant, said like advice."""
_ZH_TIME = re.compile(_ZH.either("time"))
_ZH_VAGUE_TIME = re.compile(_ZH.either("vague_time"))
_ZH_VAGUE_PLAN = re.compile(_ZH.either("vague_plan"))
_ZH_LIFE_EVENT = re.compile(rf"(?:我|我们|咱们)[^，。！？]{{0,6}}?(?:{_ZH.either('life_events')})")
"""我领养了一只狗, 我们租了一套房: a life event told, summary material."""
_ZH_YEAR = re.compile(_ZH.either("year"))
_ZH_PARTY = re.compile(_ZH.either("parties"))
"""1998年，她也是从此正式进入演艺圈: a year with none of us in it is history, not a plan."""
_ZH_PLEASANTRY = re.compile(rf"^(?:不用|不必|别)(?:了|啦)?[，, ]*(?:{_ZH.either('pleasantry')})")
_ZH_IN_PASSING = re.compile(
    "|".join(
        (
            _ZH.either("feeling"),
            _ZH.either("opinion_markers"),
            _ZH.either("platitude"),
            _ZH.either("emphasis"),
            _ZH.either("assessment"),
            _ZH.either("vow"),
            _ZH.either("give_up"),
            _ZH.either("regret"),
            _ZH.either("self_care"),
            _ZH.either("knowledge"),
            _ZH.either("vague_object"),
        )
    )
)
"""Said in passing, whatever decision words it has (each list's comment in
``smalltalk_zh.toml`` says what it holds): a feeling (我太兴奋了), an opinion announced
(不得不承认), a platitude, emphasis (必须不错), an assessment (演技绝对不是吹出来的), a vow or
a regret in a quarrel (这次绝对不会给你放鸽子), perseverance (我不会放弃的), self-care (别太累了),
knowledge told (获得过金曲奖, 听说…), a cheer or plan with nothing in it (一起加油)."""
_ZH_PERSON = rf"(?:{_ZH.either('persons')})"
_ZH_THREAT = re.compile(
    rf"(?:{_ZH.either('threat_consequences')})(?:的话)?[，, ]*(?:就|可)?{_ZH_PERSON}|"
    rf"(?:{_ZH.either('threat_conditions')})[^。！？!?]*?我(?:们)?(?:就|一定|会|要)|"
    rf"{_ZH.either('hostile')}"
)
_ZH_LISTENER = re.compile(r"[你您]")
_ZH_SPEAKER = re.compile(r"[我咱]")
_ZH_SUGGESTION_END = re.compile(r"吧[。！!～~…\s]*$|[啊呀哦喔][！!]+\s*$")
_ZH_FOR_GOOD = re.compile(_ZH.either("for_good"))


def _threat_zh(text: str) -> bool:
    """否则/不然 + a person (不然你就…, 否则我…), 要是你敢…我就…, or a hostile act (同归于尽,
    教训她): a threat or a bargain in a quarrel; 否则就延期 — a rule's consequence for a
    thing — is not one."""
    return bool(_ZH_THREAT.search(text))


def _suggestion_zh(text: str) -> bool:
    """你…吧 or 你…啊！ with no 我 or 咱 in it (你别灰心，下次再试吧, 你路上要小心啊！): a
    suggestion, an invitation or an exhortation to the listener, not a plan of ours —
    unless it is said for good (以后, 每次: a rule for the assistant)."""
    if not (_ZH_SUGGESTION_END.search(text) and _ZH_LISTENER.search(text)):
        return False
    return not (_ZH_SPEAKER.search(text) or _ZH_FOR_GOOD.search(text))


def chinese(text: str) -> bool:
    """Whether a Chinese sentence is small talk, whatever decision frame it has."""
    if stance.chinese(text):
        return True
    if _ZH_PLEASANTRY.search(text) or _ZH_IN_PASSING.search(text):
        return True
    if _threat_zh(text) or _suggestion_zh(text):
        return True
    if _ZH_LIFE_EVENT.search(text) and not _ZH_TIME.search(text):
        return True
    if _ZH_YEAR.search(text) and not _ZH_PARTY.search(text):
        return True
    if _ZH_ADVICE.search(text) and not (
        _ZH_TIME.search(text) or _ZH_FOR_THE_ASSISTANT.search(text)
    ):
        return True
    return bool(_ZH_VAGUE_TIME.search(text) and _ZH_VAGUE_PLAN.search(text))
