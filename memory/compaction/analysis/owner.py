"""Whose decision is it (contract §5, issue 43): a rule or decision pins only when it binds
the conversation — the speaker, alone or jointly ("we never …", "我们不…了"); the listener
told how to do this work beyond the moment ("Never store …", "you must not …", "以后你不许…":
a standing word or a concrete object, not "Don't take too long" nor advice like "you must
keep the room warm"); or a thing of ours ("the API must stay …"). Not a third party ("they
aren't allowed to eat with the players", "他不回来吃了"), a kind ("a player cannot …"), nor a
rule told as past ("it was banned"). Words: ``decisions_en.toml``, ``decisions_zh.toml``.
"""

from __future__ import annotations

import re
from typing import Literal

from aimind_memory.memory.compaction.analysis.wordlists import WordLists
from aimind_memory.memory.compaction.analysis.words import anchors

Owner = Literal["the speaker", "the listener", "a thing"]

_EN = WordLists("decisions_en")
_AUXILIARIES = _EN.words("modal_auxiliaries")
_THIRD_PERSONS = _EN.words("modal_third_persons")
_GENERIC = _EN.words("modal_generic")
_OURS = re.compile(rf"\b(?:{_EN.either('modal_ours')})\b")
_SPEAKER = _EN.words("speaker")
_STANDING = re.compile(rf"\b(?:{_EN.either('standing')})\b")
_NARRATED = re.compile(rf"^(?:{_EN.either('narrated_verbs')})\b")
_VOCATIVE = re.compile(r",\s*[A-Z][a-z]*[.!]*$")
"""A name called at the end ("…, Bill."): the listener, not the instruction's object."""
_NAME_WORD = re.compile(r"\b[A-Z][A-Za-z]*\b")
_DEFINITE = _EN.words("definite")
"""A definite subject is a thing of the conversation, even with a name ("the public API")."""
_OBJECT = re.compile(rf"^\w+\s+(?:{_EN.either('definite')})\s+\w")
"""An instruction's verb with a definite object: "Don't touch the billing code"."""
_FORBIDS = re.compile(r"^\s*(?:\w+\s+){0,2}?(?:not|never)\b")
"""A prohibition: on a definite thing of ours it stands while the thing does; a positive
"you must keep the room warm" is advice unless it says when."""
PASSIVE = re.compile(r"^be\s+(?:\w+\s+)?\w+(?:ed|en)\b")
"""What is done to a thing ("be rotated every 90 days"): no agent is told to act."""

_ZH = WordLists("decisions_zh")
_ZH_THIRD = _ZH.words("third_person")
_ZH_SPEAKER = _ZH.words("joint")
_ZH_STANDING = re.compile(_ZH.either("standing"))


def english(s: str, at: int, rest: str, raw: str, *, instruction: bool) -> Owner | None:
    """Whom the frame found at ``s[at:]`` of the normalised sentence binds (``rest``: what it
    is about; ``raw``: the original casing; ``instruction``: it tells someone what to do).
    None: told as past, a third party's or a kind's, an instruction of the moment, or one
    whose verb is past ("Never done it before": a narration, its "I" dropped)."""
    said = s[at:]
    if said.startswith(("was ", "were ")):
        return None  # told as past: an event, not a rule that holds
    words = s[:at].split()
    while words and words[-1] in _AUXILIARIES:
        words.pop()
    subject = words[-1] if words else ""
    if _SPEAKER & set(words):
        return "the speaker"
    if not subject or subject == "you":
        if not instruction:
            return "the listener"
        forbids = _FORBIDS.match(said) and _OBJECT.match(rest)  # "Don't touch the billing code"
        concrete = forbids or anchors(_VOCATIVE.sub("", raw[-len(rest) :]))
        stands = _STANDING.search(said) or concrete
        return "the listener" if rest and stands and not _NARRATED.match(rest) else None
    if subject in _THIRD_PERSONS:
        return None  # "they will have to", "they aren't allowed to park here"
    if _OURS.search(s):
        return "a thing"  # "our guests must …", "… here"
    before = words[-2] if len(words) > 1 else ""
    named = not _DEFINITE & set(words[-3:-1]) and any(
        w.lower() in (subject, before) for w in _NAME_WORD.findall(raw[1:]) if w != "I"
    )
    if named and not PASSIVE.match(rest):
        return None  # "Canada requires"
    # a kind who is to act ("a player cannot …", "cheerleaders are not allowed to eat"), not
    # what is done to things of a kind ("passwords must be rotated", "all memos are …")
    plural = len(subject) > 3 and subject.endswith("s") and not subject.endswith(("ss", "us", "is"))
    kind = plural or bool(_GENERIC & set(words[-4:-1]))
    agent = (instruction and not PASSIVE.match(rest)) or rest.startswith("to ")
    return None if kind and agent else "a thing"


def chinese(text: str, at: int, *, no_more: bool = False) -> Owner | None:
    """Whom the Chinese rule word found at ``text[at:]`` binds: None when the nearest
    person before it in its clause is a third party (他, 她们, 别人), or when a rule for
    你 — or a "no more" (``no_more``: 不…了) of 我 alone (不送了, 不生气了: of the moment) —
    has no standing word (以后, 每次, 从…起, 一律, 今年)."""
    clause = re.split(r"[，,。；;！!？?\s]", text[:at])[-1]
    person = max(
        ((clause.rfind(p), p) for p in (*_ZH_THIRD, *_ZH_SPEAKER, "你", "您", "我")),
        default=(-1, ""),
    )
    who = person[1] if person[0] >= 0 else ""
    if who in _ZH_THIRD:
        return None
    if who in _ZH_SPEAKER:
        return "the speaker"
    standing = bool(_ZH_STANDING.search(text))
    if who in ("你", "您"):
        return "the listener" if standing else None
    if who == "我":
        return "the speaker" if standing or not no_more else None
    return "a thing"
