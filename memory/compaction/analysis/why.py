"""Why a sentence is pinned, why a pin was replaced, and ``explain`` for a maintainer.

Contract §5, "Memory says why": every pin carries one short sentence naming the signal
that pinned it and the words that fired it ("a decision: 'we decided' + 'PostgreSQL'"),
and a replaced decision says what replaced it ("a correction: 'instead of PostgreSQL'").
The signals are the ones the engine already decided on — this module only names them
and finds their words (``decisions.decision_cue``, ``statements.change_cue``); it never
decides anything itself, so a ``why`` cannot disagree with what was pinned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from aimind_memory.memory.compaction.analysis import decisions_en, decisions_zh
from aimind_memory.memory.compaction.analysis.decisions import unquoted
from aimind_memory.memory.compaction.analysis.sentences import is_chinese, split_sentences
from aimind_memory.memory.compaction.analysis.statements import change_cue, old_value_cue, said
from aimind_memory.memory.compaction.analysis.wordlists import WordLists

Language = Literal["en", "zh"]

WHY_CHARS = 160
"""A ``why`` is one short sentence: the signal, its words and its object, cut here."""
TRIGGER_CHARS = 48
"""The trigger words quoted in a ``why``, cut here."""

PINNED = "{signal}: '{trigger}'"
"""A pin's why: the signal and its words ("a decision: 'we decided'")."""
OBJECT = " + '{object}'"
"""…and the concrete thing it is about, when the sentence names one ("+ 'PostgreSQL'")."""
FALLBACK_SIGNAL = "a decision"
"""The signal named when a decided sentence's frame words cannot be quoted."""
REPLACEMENT_SIGNALS = {
    "correction": "a correction",
    "reversal": "a reversal",
    "new value": "a new value for the same thing",
    "own slot": "a change of one of two parallel decisions",
    "named again": "the same thing named with a new value",
    "old value named": "a correction",
    "rival named": "the old thing named beside a new one",
    "old value negated": "the old value said not to beside the choice",
    "new count": "a new count of the same things",
    "accepted offer": "an offer accepted",
    "accepted proposal": "a proposal accepted",
    "return": "a return to an earlier option",
}
"""``supersession.Replacement.reason`` (or the change a sentence's words mark,
``statements.Said.change``) as a ``why`` names it."""
REPLACED_FALLBACK = "a later decision about the same thing"
UNCUED = frozenset({"named again", "rival named"})
"""Reasons said by the thing named, not by change words ("No problem, Python 3.12 it is.":
'no' is no old value there): the why quotes the thing."""

_RECONTRACT = (
    (re.compile(r"\blet us\b", re.IGNORECASE), "let's"),
    (re.compile(r"\bi will\b", re.IGNORECASE), "I'll"),
    (re.compile(r"\bwe will\b", re.IGNORECASE), "we'll"),
    (re.compile(r"\bwill not\b", re.IGNORECASE), "won't"),
    (re.compile(r"\bdo not\b", re.IGNORECASE), "don't"),
    (re.compile(r"\bcannot\b", re.IGNORECASE), "can't"),
    (re.compile(r"\bwe are\b", re.IGNORECASE), "we're"),
)
"""The rules read contractions spelled out; a ``why`` quotes them as people write them."""
_OBJECT = re.compile(
    r"(?<=[\w,;:)] )(?!I\b)[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)*"  # a name, not the first word
    r"|\b\d[\d.,:/-]*(?:\s*(?:am|pm|%|k))?\b"  # a number, a time, a date
    r"|[A-Za-z]*[0-9][A-Za-z0-9]*"  # a code ("v2", "P1")
)
_OBJECT_ZH = re.compile(r"[A-Za-z][\w.+#-]*|\d[\d.,:/-]*")
"""In Chinese a name in Latin letters or a number is the object ("决定用 PostgreSQL")."""


@dataclass(frozen=True, slots=True)
class Signals:
    """What one sentence fires, as ``explain`` reports it."""

    sentence: str
    """The sentence, as the engine split it from the text."""
    language: Language
    """The rules it was read with: ``"en"`` or ``"zh"``."""
    decision: str | None
    """Its ``why`` as a pin ("a decision: 'we decided' + 'PostgreSQL'"); None: no decision."""
    change: str | None
    """The change its words mark ("a correction: 'instead of Java'"); None: none."""
    small_talk: bool
    """Small talk: never a pin, nor a change of one."""


def _quote(raw: str, piece: str) -> str:
    """``piece`` (read lower-cased, contractions spelled out) in ``raw``'s own spelling."""
    at = raw.lower().find(piece.lower())
    if at >= 0:
        piece = raw[at : at + len(piece)]
    for pattern, contracted in _RECONTRACT:
        if raw.lower().find(contracted.lower()) >= 0:
            piece = pattern.sub(contracted, piece)
    piece = " ".join(piece.split())
    return piece if len(piece) <= TRIGGER_CHARS else piece[: TRIGGER_CHARS - 1].rstrip() + "…"


def _object(raw: str, trigger: str) -> str:
    """The first name, number or code the sentence names after its trigger words."""
    at = raw.lower().find(trigger.lower())
    tail = raw[at + len(trigger) :] if at >= 0 else raw
    pattern = _OBJECT_ZH if is_chinese(raw) else _OBJECT
    m = pattern.search(" " + tail if at >= 0 else tail)
    return m.group().strip(" .,") if m else ""


_W = WordLists("why")
_ZH_NAMES = sorted(_W.table("zh").items(), key=lambda kv: -len(kv[0]))
"""Each signal's English name → its Chinese one, longest first (``why.toml``)."""
_QUOTED = re.compile(r"'([^']*)'")


def _short(text: str) -> str:
    return text if len(text) <= WHY_CHARS else text[: WHY_CHARS - 1].rstrip() + "…"


def _in_language(why: str, said: str) -> str:
    """``why`` in the language ``said`` is in: a Chinese sentence's why names its signal in
    Chinese and quotes with 「」 ("决定：「决定」 + 「PostgreSQL」")."""
    if not is_chinese(said):
        return why
    for english, chinese in _ZH_NAMES:
        if why.startswith(english):
            why = str(chinese) + why[len(english) :]
            break
    return _QUOTED.sub(r"「\1」", why).replace(": ", "：", 1)


def _rules(sentence: str, language: Language | None) -> Language:
    if language is not None:
        return language
    return "zh" if is_chinese(sentence) else "en"


def pin_why(sentence: str, language: Language | None = None) -> str:
    """Why a decided sentence is pinned: its signal, its words and what it is about.

    Args:
        sentence: A sentence the engine pinned as a decision.
        language: ``"en"`` or ``"zh"`` to read it with those rules; None: by its script.

    Returns:
        One short sentence, e.g. "a decision: 'we decided' + 'Kubernetes'".
    """
    text = unquoted(sentence)
    rules = decisions_zh if _rules(text, language) == "zh" else decisions_en
    found = rules.decision_cue(text)
    if found is None:
        return _in_language(FALLBACK_SIGNAL, text)
    signal, trigger = found
    trigger = _quote(text, trigger)
    why = PINNED.format(signal=signal, trigger=trigger)
    if thing := _object(text, trigger):
        why += OBJECT.format(object=_quote(text, thing))
    return _short(_in_language(why, text))


AGREED = "a statement the other side took on: '{trigger}'"
"""An acknowledged statement's why ("Tickets live in Jira." answered "Okay.")."""
SAID_BACK = "an agreement said back: '{trigger}'"
"""The why of what an answer to a yes states ("yep, ship that" → "Done: catalog responses
are cached for 15 minutes.")."""


def agreed_why(sentence: str, *, said_back: bool = False) -> str:
    """Why a plain statement is pinned: the answer after it took it on, or (``said_back``)
    it answers a yes by saying what was agreed; its concrete thing quoted ("a statement
    the other side took on: 'Jira'", "an agreement said back: '15 minutes'")."""
    text = unquoted(sentence)
    thing = _object(text, "") or text
    template = SAID_BACK if said_back else AGREED
    return _short(_in_language(template.format(trigger=_quote(text, thing)), text))


def change_why(sentence: str, reason: str = "") -> str:
    """Why a sentence replaced an earlier pin: the replacement's reason and the words
    that marked the change ("a correction: 'instead of Java'").

    Args:
        sentence: The sentence that made the change.
        reason: ``supersession.Replacement.reason`` ("correction", "new value", …).

    Returns:
        One short sentence; the reason alone when no change words are in the sentence.
    """
    text = unquoted(sentence)
    signal = REPLACEMENT_SIGNALS.get(reason, REPLACED_FALLBACK)
    cue, weak = "", False  # a thing named again says it by naming it: no change words
    if reason not in UNCUED:
        cue = old_value_cue(text)  # "instead of PostgreSQL" says it best
    if not cue and reason not in UNCUED:
        cue, weak = change_cue(text)
    if cue:
        cue = _quote(text, cue)
        why = PINNED.format(signal=signal, trigger=cue)
        if weak and (thing := _object(text, cue)):
            why += OBJECT.format(object=_quote(text, thing))
        return _short(_in_language(why, text))
    if thing := _object(text, ""):
        return _short(_in_language(f"{signal}: '{_quote(text, thing)}'", text))
    return _in_language(signal, text)


def explain(text: str, language: Language | None = None) -> list[Signals]:
    """The signals each sentence of ``text`` fires, as the offline engine reads it.

    For a maintainer at a prompt: ``explain("Actually, let's use MySQL instead.")``
    says whether the sentence is a decision (and why it would be pinned), a change of an
    earlier one, or small talk.

    Args:
        text: One message or sentence, English or Chinese.
        language: ``"en"`` or ``"zh"`` to force those rules; None: each sentence by its script.

    Returns:
        One ``Signals`` per sentence, in order.
    """
    out: list[Signals] = []
    for sentence in split_sentences(text):
        lang = _rules(sentence, language)
        rules = decisions_zh if lang == "zh" else decisions_en
        plain = unquoted(sentence)
        small = rules.is_small_talk(plain)
        decided = not small and rules.decision_strength(plain) > 0
        what = said(unquoted(sentence))
        change = None
        if what.change is not None and not small:
            change = change_why(sentence, what.change)
        out.append(
            Signals(
                sentence=sentence,
                language=lang,
                decision=pin_why(sentence, lang) if decided else None,
                change=change,
                small_talk=small,
            )
        )
    return out
