"""English decisions: who decided, agreed, ruled out or committed to what.

A sentence is a decision when a decision frame matches — a subject with a
decision verb ("we settled on", "I've decided"), an adopted proposal ("let's go
with"), a plan or rule stated as such ("the plan is", "from now on", "never
store"), a commitment with something concrete ("I'll pick her up at 6"), or a
confirmation ("Agreed: …") — and nothing marks it as a question, a hedge, an
undecided matter, reported speech or a pleasantry that merely uses the same
words ("you must be tired", "I always enjoy our chats", "don't worry").

The frames are here; the words they accept or reject are data, in ``decisions_en.toml``
(``memory.compaction.analysis.wordlists``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from aimind_memory.memory.compaction.analysis import booking, owner, smalltalk
from aimind_memory.memory.compaction.analysis.cues import Cues
from aimind_memory.memory.compaction.analysis.strengths import (
    COMMITMENT,
    CONFIRMED,
    EXPLICIT,
    PLAN,
    RULE,
)
from aimind_memory.memory.compaction.analysis.wordlists import WordLists
from aimind_memory.memory.compaction.analysis.words import anchors, content_words

_W = WordLists("decisions_en")
_B = WordLists("booking_en")
"""The booking profile's words (``booking``): its patterns decide only when it is on."""

_PUNCT = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "—": " - ", "–": " - "})
_CONTRACTIONS = (
    (re.compile(r"\blet's\b"), "let us"),
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bcan't\b"), "cannot"),
    (re.compile(r"\bshan't\b"), "shall not"),
    (re.compile(r"\b(\w+)n't\b"), r"\1 not"),
    (re.compile(r"'ll\b"), " will"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"\bi'm\b"), "i am"),
    (re.compile(r"'d\b"), " would"),
    (re.compile(r"\b(it|that|this|what|there|here|who|everything)'s\b"), r"\1 is"),
)
"""Each needs an apostrophe, and none writes one: a sentence without one is not searched."""
_GONNA = re.compile(r"\bgonna\b")
_LEAD = re.compile(rf"^(?:(?:{_W.either('lead')})\b\s*(?:[,.!:;]|\s-\s)\s*)+")
_LABEL_LEAD = rf"^(?:(?:{_W.either('label_lead')})\b\s*(?:,\s*)?)*(?:to\s+|just to\s+)?"
"""Each lead word once with its spaces and comma: no two ways to split "ok ok ok …" (an
optional comma between two optional space runs made repeated "ok"s take exponential time)."""
_STRONG_LABELS = _W.either("strong_labels")
"""Labels that say a decision was made, whatever punctuation follows ("Done deal, …")."""
_CONFIRM_LABEL = re.compile(
    rf"{_LABEL_LEAD}(?:{_STRONG_LABELS}|{_W.either('labels')})"
    r"(?:\s+(?:from|for)\s+(?:me|us|now))?\s*(?::|\s-\s)\s*(?P<rest>\S.*)"
)
_CONFIRM_STRONG = re.compile(
    rf"{_LABEL_LEAD}(?:{_STRONG_LABELS})(?:\s+(?:from|for)\s+(?:me|us|now))?"
    r"\s*[,!]\s*(?P<rest>\S.*)"
)
_AS_AGREED = re.compile(
    rf"^(?:(?:{_W.either('label_lead')})\b\s*(?:,\s*)?)*"
    rf"(?:{_W.either('as_agreed')})"
    r"\s*[,:-]\s*(?P<rest>\S.*)"
)
"""A lead that says what follows was agreed before: "As agreed, the deadline is May 3"."""
_CONFIRM_WORD = re.compile(rf"^(?:{_W.either('confirm_words')})\s*[,!.]\s*(?P<rest>\S.*)")

_QUESTION_START = re.compile(
    rf"^(?:{_W.either('question_verbs')})\s+(?:{_W.either('question_subjects')})\b|"
    rf"^(?:{_W.either('question_words')})\s+(?:\w+\s+)?(?:{_W.either('question_auxiliaries')})\b|"
    rf"^(?:{_W.either('question_phrases')})\b"
)
_HEDGE = re.compile(rf"\b(?:{_W.either('hedge')})\b")
_POLITE_WANT = re.compile(r"\b(?:would|'d) like to\b")
"""'I'd like to book it for 6': a polite request, not a conditional."""
_EVEN_IF = re.compile(r"\beven if\b")
_PLEASANTRY = re.compile(rf"\b(?:{_W.either('pleasantry')})\b")
_EMOTIVE = re.compile(rf"\b(?:{_W.either('emotive')})\b")
_VAGUE = re.compile(rf"\b(?:{_W.either('vague')})\b")

_SUBJECT = rf"(?:{_W.either('subject')})"
_ADVERBS = rf"(?:\s+(?:{_W.either('subject_adverbs')}))*"
_EXPLICIT = re.compile(rf"\b{_SUBJECT}{_ADVERBS}\s+(?:{_W.either('decision_verbs')})")
_SETTLED = re.compile(
    rf"\b(?:{_W.either('settled_it')})\s+is\s+(?:now\s+|all\s+)?(?:{_W.either('settled')})\b"
)
_FINAL_PREDICATE = re.compile(
    r"\b(?:is|are|has been|have been|was|were)\s+(?:now\s+|officially\s+|all\s+)?"
    rf"(?:{_W.either('final_predicate')})\b(?!\s+(?:in|down)\b)"
)
_DECISION_NOUN = re.compile(
    r"\b(?:the|our|my|final|new)\s+(?:final\s+|new\s+)?"
    rf"(?:{_W.either('decision_nouns')})\s+(?:now\s+)?"
    r"(?:is|was|will be)\s+"
    r"(?P<rest>.*)"
)
_NOUN_REST = re.compile(r"^(?:to\s+\w|that\b|:|-)")
_LIMIT_NOUN = re.compile(rf"\b(?:{_W.either('limit_nouns')})\s+(?:is|of|:)\s+(?P<rest>.*)")
_IT_IS = re.compile(rf"^(?!(?:{_W.either('it_is_not')})\b)[\w$€£¥.:' -]{{2,40}}?\s+it is\s*[.!]*$")
_LET_US = re.compile(
    rf"\blet us\s+(?P<neg>not\s+)?(?:(?:{_W.either('let_us_adverbs')})\s+)?(?P<rest>[a-z].*)"
)
_LET_NEVER = re.compile(rf"^(?:{_W.either('let_never')})\b")
_LET_EXHORT = re.compile(rf"^(?:{_W.either('let_exhort')})")
"""Let's + an exhortation: what people say to each other, not a decision."""
_LET_CONCRETE = re.compile(rf"^(?:{_W.either('let_concrete')})\b")
"""Let's + a verb that commits to something: adopting, booking, choosing, moving, meeting."""
_PERSONAL_DONE = re.compile(
    rf"\b(?:i|we|{_SUBJECT})(?:\s+(?:{_W.either('personal_done_adverbs')}))*"
    rf"\s+(?:{_W.either('personal_done')})\b(?P<rest>.*)"
)
"""Done, by us: the user signed up, booked, enrolled, quit — a choice later turns rely on."""
_PROGRESSIVE_PLAN = re.compile(
    rf"\b(?:i|we|{_SUBJECT}) (?:am|are) (?:(?:{_W.either('progressive_adverbs')})\s+)?"
    rf"(?P<verb>{_W.either('progressive_verbs')})\b(?P<rest>.*)"
)
"""We're moving to Denver next spring; I'm hosting a book club every second Friday: a plan
stated as under way, with a when, where or which (an anchor) to it."""
_CAPITALISED_NAME = re.compile(r"(?<=[\w,;:)] )(?!I\b)[A-Z][A-Za-z0-9]+")
_PROGRESSIVE_NEEDS_NAME = _W.words("progressive_needs_name")
"""Verbs too common to count on a date alone ("we're doing good this week")."""
_BOOK_IT = re.compile(
    rf"^(?:(?:{_B.either('book_it_lead')})\s*[,.!-]*"
    r"\s*)*(?:please\s+)?(?:go ahead and\s+)?(?:please\s+)?"
    rf"(?:{_B.either('book_it_verbs')})\s+(?:{_B.either('book_it_objects')})\b"
    r"(?P<rest>.*)"
)
"""The booking profile: the user telling the assistant to go ahead ("Yes, please book it
for 6 people at 17:15")."""
_WANT_TO_BOOK = re.compile(
    rf"\b(?:i|we) (?:want|need) to (?:{_B.either('want_to_book')})\b(?P<rest>.*)"
)
"""The booking profile: "I want to book a table for 2 at 7 pm"."""
_BOOKING = (_BOOK_IT, _WANT_TO_BOOK)
_WE_FUTURE = re.compile(
    rf"\b(?:{_W.either('we_future_subject')})\s+(?:will|shall|are(?:\s+not|\s+never)?\s+going to|"
    r"plan to|intend to)\s+(?:not\s+|never\s+|no longer\s+)?"
    rf"(?:(?:{_W.either('we_future_adverbs')})\s+)?(?P<rest>[a-z].*)"
)
_I_FUTURE = re.compile(
    r"\bi\s+(?:will|shall|am(?:\s+not|\s+never)?\s+going to|promise to)\s+"
    rf"(?:not\s+|never\s+|no longer\s+)?(?:(?:{_W.either('i_future_adverbs')})\s+)?"
    r"(?P<rest>[a-z].*)"
)
_NEGATION = re.compile(r"\b(?:not|never|no longer)\b")
_FUTURE_VAGUE = re.compile(rf"^(?:{_W.either('future_vague')})\b")
_GOING_TO_PLACE = re.compile(r"\bgoing to [A-Z]")
_WE_RULE = re.compile(rf"\bwe\s+(?:{_W.either('we_rule')})\s+(?P<rest>[a-z].*)")
_IMPERATIVE = re.compile(
    r"^(?:please\s+|and\s+|also\s+|just\s+|so\s+|remember\s*[,:]?\s*)?(?:please\s+)?"
    rf"(?:{_W.either('imperative')})\s+(?P<rest>[a-z].*)"
)
_IMPERATIVE_EMOTIVE = re.compile(rf"^(?:{_W.either('imperative_emotive')})\b")
_MODAL = re.compile(
    rf"\b(?P<subj>[a-z]+)(?:\s+(?:{_W.either('modal_adverbs')}))*"
    rf"\s+(?:{_W.either('modals')})\s+(?P<neg>not\s+|never\s+|always\s+|only\s+)?(?P<rest>[a-z].*)"
)
_MODAL_SUBJECT_NOT = _W.words("modal_subject_not")
_MODAL_VAGUE = re.compile(rf"^(?:{_W.either('modal_vague')})\b")
_ANYMORE = re.compile(rf"\b(?:{_W.either('anymore_subjects')})\b.*\b(?:anymore|any more)\b")
_RULE_MARKER = re.compile(rf"\b(?:{_W.either('rule_markers')})\b")
_NO_LONGER = re.compile(rf"\b(?:{_W.either('no_longer')})\b")
_WE_NOT_DOING = re.compile(r"\bwe\s+are\s+not\s+(?!going to\b)(?P<rest>[a-z]+ing\b.*)")
"""We're not doing the road trip (any more): a plan dropped."""
_WE_CHANGED = re.compile(
    rf"\bwe\s+(?:(?:{_W.either('we_changed_adverbs')})\s+)*(?:{_W.either('we_changed')})\b"
)

_WHERE: dict[re.Pattern[str], tuple[str, bool]] = {
    _IMPERATIVE: ("", True),
    _MODAL: ("subj", True),
    _FINAL_PREDICATE: ("", False),
}
"""The frames whose owner is asked (``owner.english``): where the owner's words end (a
group of the match, or its start) and whether the frame tells someone what to do."""


_BARE_LEAD = rf"^(?:(?:{_W.either('bare_confirmation_lead')})[,!.]?\s*)?"
_BARE_CONFIRMATION = re.compile(rf"{_BARE_LEAD}(?:{_W.either('bare_confirmation')})[.!]*$")
_BARE_BOOKED = re.compile(rf"{_BARE_LEAD}(?:{_B.either('bare_confirmation')})[.!]*$")
"""The booking profile's: "Booked!", "Booking was successful."."""


def is_bare_confirmation(sentence: str) -> bool:
    """'Done!', 'Decided.' (and with the booking profile 'Booked!'): a confirmation whose
    object is the next sentence."""
    s = normalised(sentence)
    return bool(_BARE_CONFIRMATION.match(s) or (booking.enabled() and _BARE_BOOKED.match(s)))


@lru_cache(maxsize=4_096)
def normalised(sentence: str) -> str:
    """The sentence as these rules read it (``statements`` reads it so too): lower case,
    plain quotes and dashes, contractions spelled out.

    Cached: a score of a dozen substitutions, asked of one sentence by the decision rules,
    the small-talk rules and ``statements`` alike (and of whole messages by ``statements``,
    so the cache is bounded lower than the sentence-only ones).
    """
    s = sentence.translate(_PUNCT).lower()
    if "like to" in s:
        s = _POLITE_WANT.sub("want to", s)
    if "'" in s:
        for pattern, repl in _CONTRACTIONS:
            s = pattern.sub(repl, s)
    if "gonna" in s:
        s = _GONNA.sub("going to", s)
    return " ".join(s.split())  # str.split's whitespace is \s's: no regex needed


def is_question(s: str) -> bool:
    """A question, read on the normalised sentence: a question mark or a question's start."""
    return "?" in s or bool(_QUESTION_START.search(s))


def _disqualified(s: str) -> bool:
    """A question, a hedge, an undecided matter or a pleasantry: whatever decision words it has."""
    if is_question(s) or _PLEASANTRY.search(s):
        return True
    if _HEDGE.search(_EVEN_IF.sub(" ", s)):
        return True
    return s.endswith("!") and bool(_EMOTIVE.search(s))


def _enough(text: str, words: int = 2, raw: str = "") -> bool:
    """Something to be about: content words, a number counting twice ("do item 7"), a
    name in ``raw`` (the original casing) too ("let's go with PostgreSQL"). Enough content
    words settle it: the anchors are counted only when they may decide."""
    found = len(content_words(text))
    return found >= words or found + max(anchors(text), anchors(raw)) >= words


def _proposal(s: str, raw: str) -> float:
    """Let's + a concrete object (what, when, which): "let's book the 6:40 train", not
    "let's keep moving forward" or "let's find a time to chat"."""
    if not (m := _LET_US.search(s)):
        return 0.0
    rest = m.group("rest")
    if _LET_NEVER.match(rest) or _LET_EXHORT.match(rest) or _VAGUE.search(rest):
        return 0.0
    if not _enough(rest, raw=_raw_tail(raw, rest)):
        return 0.0
    if _LET_CONCRETE.match(rest) or anchors(_raw_tail(raw, rest)):
        return RULE
    return 0.0


def _future(s: str, raw: str) -> float:
    """We will (not) …: a plan; I will …: a commitment when it is concrete or negated."""
    if _GOING_TO_PLACE.search(raw):
        return 0.0
    if (m := _WE_FUTURE.search(s)) and not _VAGUE.search(m.group("rest")):
        rest = m.group("rest")
        if not _FUTURE_VAGUE.match(rest) and _enough(rest):
            return PLAN
    if (m := _I_FUTURE.search(s)) and not _VAGUE.search(m.group("rest")):
        rest = m.group("rest")
        concrete = bool(_NEGATION.search(s, m.start(), m.start("rest"))) or anchors(raw) > 0
        if concrete and not _FUTURE_VAGUE.match(rest) and _enough(rest):
            return COMMITMENT
    return 0.0


def _rule(s: str, raw: str) -> float:
    """Rules and constraints: imperatives, modal obligations, 'from now on', limits."""
    for pattern in (_IMPERATIVE, _WE_RULE):
        m = pattern.search(s)
        rest = m.group("rest") if m else ""
        if m and not _IMPERATIVE_EMOTIVE.match(rest) and _enough(rest) and _owned(m, raw):
            return RULE
    m = _MODAL.search(s)
    if m and m.group("subj") not in _MODAL_SUBJECT_NOT and _owned(m, raw):
        rest = m.group("rest")
        obligation = not _MODAL_VAGUE.match(rest) and not rest.startswith("be ")
        passive = owner.PASSIVE.match(rest) and m.group("subj") not in ("you", "we")
        if (obligation or passive) and _enough(rest, 1):
            return RULE
    if _RULE_MARKER.search(s) or _ANYMORE.search(s):
        return RULE
    if (m := _NO_LONGER.search(s)) and _of_a_thing(m, raw):
        return RULE
    if (m := _LIMIT_NOUN.search(s)) and anchors(m.group("rest")):
        return RULE
    return 0.0


def _owned(m: re.Match[str], raw: str) -> bool:
    """Whether the rule or decision ``m`` found binds the conversation (``owner``): not a
    third party's, a kind's, one told as past, nor an order of the moment or advice."""
    if (where := _WHERE.get(m.re)) is None:
        return True
    group, instruction = where
    at = m.end(group) if group else m.start()
    rest = m.group("rest") if "rest" in m.re.groupindex else m.string[m.end() :]
    return (
        owner.english(m.string, at, (rest or "").strip(), raw, instruction=instruction) is not None
    )


def _of_a_thing(m: re.Match[str], raw: str) -> bool:
    """A change of state ("no longer") is a rule only of a thing of ours ("PRs no longer
    need two approvals"); of a person ("I no longer have the time", "he is no longer in
    the NFL") it is a life fact (``owner``)."""
    rest = m.string[m.end() :].strip()
    return owner.english(m.string, m.start(), rest, raw, instruction=False) == "a thing"


def _settled(s: str, raw: str) -> float:
    """A subject with a decision verb, or the matter itself declared decided."""
    if _EXPLICIT.search(s) or _SETTLED.search(s) or _IT_IS.search(s):
        return EXPLICIT
    if (m := _FINAL_PREDICATE.search(s)) and _owned(m, raw):
        return RULE
    if m := _DECISION_NOUN.search(s):
        rest = m.group("rest")
        if _NOUN_REST.match(rest) or anchors(_raw_tail(raw, rest)):
            return RULE
    if _WE_CHANGED.search(s):
        return PLAN
    if (m := _PERSONAL_DONE.search(s)) and _enough(m.group("rest"), 1):
        return PLAN
    if m := _PROGRESSIVE_PLAN.search(s):
        rest_raw = _raw_tail(raw, m.group("rest"))
        if m.group("verb") in _PROGRESSIVE_NEEDS_NAME:
            concrete = bool(_CAPITALISED_NAME.search(rest_raw))
        else:
            concrete = anchors(rest_raw) > 0
        if concrete and _enough(m.group("rest"), 1):
            return PLAN
    if booking.enabled() and (_BOOK_IT.match(s) or _WANT_TO_BOOK.search(s)) and anchors(raw):
        return CONFIRMED
    if (m := _WE_NOT_DOING.search(s)) and _enough(m.group("rest")):
        return PLAN
    return 0.0


def _raw_tail(raw: str, rest: str) -> str:
    """The original casing of a normalised tail, for the anchors (names are capitalised)."""
    return raw[-len(rest) :] if rest and len(rest) <= len(raw) else raw


# --- Arrangements (issue 30): a scheduled event or a booking stated as a plain fact --------
# "The weekly sync is on Tuesdays at 10.", "The deadline for the report is Friday.",
# "Set the alarm for 6:30.": decided, though no decision word says so. Only with a day,
# date or time, and only of events that are arranged (not "my birthday is on Tuesday").

_EVENTS = _W.words("events")
"""Events that are arranged: the subject of an arrangement."""
_ARRANGED = re.compile(
    r"^(?:(?:the|our|my|your|this|next|every|each)\s+)?(?:[\w'-]+\s+){0,3}?(?P<event>[\w:-]+)"
    r"(?:\s+(?:for|with|of)\s+(?:the\s+|our\s+|my\s+)?[\w' -]{1,30}?)?"
    r"\s+(?:is|are|will be)\s+(?:now\s+|always\s+|still\s+)?"
    rf"(?:{_W.either('arranged_preps')})?\s*(?P<rest>.+)$"
)
_SET_FOR = re.compile(
    r"^(?:please\s+)?(?:set|schedule|put)\s+(?:it|the|a|an|my|our|this)\b(?P<rest>.*)"
    r"\b(?:for|to|at|on)\s+(?P<when>.+)$"
)
_WHEN = re.compile(
    r"^(?:the\s+|every\s+|next\s+|this\s+)?(?:\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\d{1,2}:\d{2}\b|"
    rf"\d{{1,2}}(?:st|nd|rd|th)\b|(?:{_W.either('when_days')})s?\b|tomorrow\b|tonight\b|today\b|"
    rf"noon\b|midnight\b|(?:{_W.either('when_months')})\b)"
)
"""A day, date or time opening what follows: what makes a statement about an event an
arrangement ("… is on Tuesdays at 10", not "… is 4 stars" or "… is 105 minutes long")."""


def _arranged(s: str, raw: str) -> float:
    """An event with a when ("the sprint review is on Thursdays at 3 pm"), or an
    instruction to set one ("set the meeting with the landlord for 5 pm tomorrow"); not
    an event word in a name ("Alexander Bed and Breakfast is …")."""
    m = _ARRANGED.match(s)
    if m and m.group("event") in _EVENTS and _WHEN.match(m.group("rest")):
        named = re.search(rf"\b{re.escape(m.group('event'))}\b", raw, re.IGNORECASE)
        if (named and not named.group()[0].isupper()) or m.start("event") == 0:
            return PLAN
    if (m := _SET_FOR.match(s)) and _WHEN.match(m.group("when")):
        return PLAN
    return 0.0


_FRAME_CUES = Cues(
    *(_EXPLICIT, _SETTLED, _IT_IS, _FINAL_PREDICATE, _DECISION_NOUN, _WE_CHANGED),
    *(_PERSONAL_DONE, _PROGRESSIVE_PLAN, _BOOK_IT, _WANT_TO_BOOK, _WE_NOT_DOING, _IMPERATIVE),
    *(_WE_RULE, _MODAL, _RULE_MARKER, _ANYMORE, _NO_LONGER, _LIMIT_NOUN, _LET_US, _WE_FUTURE),
    *(_I_FUTURE, _ARRANGED, _SET_FOR),
)
"""What every frame below needs in ``s`` (``Cues``): most sentences have none of it."""


def _frames(s: str, raw: str) -> float:
    if not _FRAME_CUES.may_match(s) or _disqualified(s) or not _enough(s, raw=raw):
        return 0.0
    return max(
        _settled(s, raw), _rule(s, raw), _proposal(s, raw), _future(s, raw), _arranged(s, raw)
    )


@lru_cache(maxsize=8_192)
def is_small_talk(sentence: str) -> bool:
    """Small talk (``smalltalk.english``), whatever decision or change frame it has.

    Cached: ``decision_strength`` asks it first, and ``decisions.is_small_talk`` asks it
    again of the same sentence.
    """
    return smalltalk.english(_LEAD.sub("", normalised(sentence)), sentence)


def decision_strength(sentence: str) -> float:
    """How decision-like one English sentence is: 0 for none, up to ``EXPLICIT``."""
    s = normalised(sentence)
    if is_small_talk(sentence):
        return 0.0
    label = _CONFIRM_LABEL.match(s) or _CONFIRM_STRONG.match(s) or _AS_AGREED.match(s)
    if label:
        rest = _LEAD.sub("", label.group("rest"))
        if not _disqualified(rest) and _enough(rest):
            return max(CONFIRMED, _frames(rest, sentence))
    if label := _CONFIRM_WORD.match(s):  # "Agreed, …" is also said of opinions: need a fact
        rest = label.group("rest")
        if (found := _frames(rest, sentence)) or (
            anchors(rest) and _enough(rest) and not _disqualified(rest)
        ):
            return max(CONFIRMED, found)
    return _frames(_LEAD.sub("", s), sentence)


# --- Why (contract §5, "Memory says why"): the frame that fired and its words ---------------
# Asked only of a sentence ``decision_strength`` already found decided: the first frame of
# this table that matches names the signal, and its words (up to what it is about) are the
# trigger. The order follows the strengths: a stated decision before a rule, a rule before
# a plan.
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a confirmation", _CONFIRM_LABEL),
    ("a confirmation", _CONFIRM_STRONG),
    ("a confirmation", _AS_AGREED),
    ("a decision", _EXPLICIT),
    ("a decision", _SETTLED),
    ("a decision", _FINAL_PREDICATE),
    ("a decision", _DECISION_NOUN),
    ("a decision", _IT_IS),
    ("a change of plan", _WE_CHANGED),
    ("a joint choice", _LET_US),
    ("a rule", _RULE_MARKER),
    ("a rule", _WE_RULE),
    ("a rule", _IMPERATIVE),
    ("a rule", _MODAL),
    ("a rule", _ANYMORE),
    ("a rule", _LIMIT_NOUN),
    ("a plan", _WE_FUTURE),
    ("a commitment", _I_FUTURE),
    ("a plan", _WE_NOT_DOING),
    ("a plan", _PERSONAL_DONE),
    ("a plan", _PROGRESSIVE_PLAN),
    ("a booking", _BOOK_IT),
    ("a booking", _WANT_TO_BOOK),
    ("an arrangement", _ARRANGED),
    ("an arrangement", _SET_FOR),
    ("a confirmation", _CONFIRM_WORD),
    ("a rule", _NO_LONGER),
)


def decision_cue(sentence: str) -> tuple[str, str] | None:
    """The signal a decided sentence fired and the words that fired it ("a decision",
    "we decided to"), or None when no frame's words are in it."""
    s = _LEAD.sub("", normalised(sentence))
    for signal, pattern in _CUES:
        if pattern in _BOOKING and not booking.enabled():
            continue
        if (m := pattern.search(s)) and _owned(m, sentence):
            return signal, _trigger(m)
    return None


def _trigger(m: re.Match[str]) -> str:
    """A frame's match up to what it is about (its ``rest`` group), or all of it."""
    end = m.start("rest") if "rest" in m.re.groupindex and m.start("rest") >= 0 else m.end()
    return m.string[m.start() : end].strip(" ,.:;!-")
