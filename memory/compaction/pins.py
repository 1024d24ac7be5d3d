"""Pins and where they came from (contract §5, §9a).

A compaction hands back pin *texts*; this module turns them into the thread's pin
records: it merges them onto the pins the thread holds now, gives each new one its
provenance (who pinned it, from which folded messages), and evicts past the cap.
The rules, in the order they apply:

- a previous pin goes only when a newer decision replaces it (the output's
  ``replaced_decisions``, or a new pin that contains it), or past the cap;
- a pin the user made or edited (``origin == "user"``) is never removed by a
  compaction: not replaced, not evicted for a compactor's pin;
- a pin the compactor was shown but that is gone by the time its output lands (the
  user unpinned or edited it meanwhile) is not brought back, nor is any text the user
  unpinned or edited away (``ThreadState.unpinned``: an edit records the old wording
  there, so a pin the compactor was never shown, made and edited while it ran, is
  covered too);
- an equivalent pin keeps the existing record (its id, place and provenance), in the
  compactor's newer words unless the pin is the user's;
- a model's new pin that is small talk in every sentence (encouragement, advice, a
  compliment, a feeling — ``analysis.smalltalk``, the rules the extractive compactor
  pins by) is not pinned: the prompt asks for decisions only, and its answer is checked
  the way our own pins are (contract §5, "Pins are decisions, not small talk").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from aimind_memory.memory.compaction.analysis.decisions import is_small_talk, pin_strength, unquoted
from aimind_memory.memory.compaction.analysis.sentences import split_sentences
from aimind_memory.memory.config.limits import (
    PIN_EXCERPT_CHARS,
    PIN_SOURCES_MAX,
    REPLACED_MAX,
    UNPINNED_MAX,
    MemoryLimits,
)
from aimind_memory.memory.models import (
    ChatThreadMessage,
    CompactionOutput,
    ExplainedOutput,
    Pin,
    PinOrigin,
    PinSource,
    ReplacedPin,
    legacy_pin_id,
    new_pin_id,
    utcnow,
)
from aimind_memory.memory.text import clean_text, clip, normalize

CONTAINED_MIN_CHARS = 12
"""A new pin that contains an earlier one (at least this long) replaces it: it says the
same and more ("Table for 4" → "Table for 4 at 7 pm on Friday")."""
ELLIPSIS = "…"
MODEL_PIN_WHY = "the model's pin, citing {count} message{s}"
"""A model's pin's ``why`` (contract §5, "Memory says why"): the messages it cites are its
sources."""
MODEL_REPLACED_WHY = "the model replaced it"
"""The ``why`` of a pin the model named in ``replaced_decisions``."""


def model_pin_why(sources: Sequence[PinSource]) -> str:
    """Who pinned it and how many messages it cites ("the model's pin, citing 4 messages")."""
    return MODEL_PIN_WHY.format(count=len(sources), s="" if len(sources) == 1 else "s")


def clamp_texts(texts: Iterable[object], limits: MemoryLimits) -> list[str]:
    """Each text cleaned like message text and cut to ``pin_chars``; blanks and repeats go."""
    out: list[str] = []
    seen: set[str] = set()
    for raw in texts:
        cleaned = clean_text(raw)
        if cleaned is None:
            continue
        pin = clip(cleaned, limits.pin_chars)
        key = normalize(pin)
        if key and key not in seen:
            seen.add(key)
            out.append(pin)
    return out


def evict(pins: list[Pin], cap: int) -> list[Pin]:
    """Keep ``cap`` pins: a compactor's least decision-like go first, the oldest first among
    equals. A user's pin is never evicted for a compactor's; a stated decision never for a
    weaker pin."""
    if len(pins) <= cap:
        return pins
    weakest_first = sorted(
        range(len(pins)),
        key=lambda i: (pins[i].origin == "user", pin_strength(pins[i].text), i),
    )
    dropped = set(weakest_first[: len(pins) - cap])
    return [pin for i, pin in enumerate(pins) if i not in dropped]


def _replaces(new_key: str, old_key: str) -> bool:
    return new_key == old_key or (len(old_key) >= CONTAINED_MIN_CHARS and old_key in new_key)


def excerpt(text: str, around: str | None = None) -> str:
    """At most ``PIN_EXCERPT_CHARS`` of a message, centred on where ``around`` is said in it.

    ``around`` said word for word is found as it is; one restated (a model's pin) by the
    message's sentence that shares most of its words. An ellipsis marks only a cut: a pin
    said near a message's end shows that end (starting earlier), not an ellipsis after the
    message's last word; one said near its start shows the start."""
    text = " ".join(text.split())
    if len(text) <= PIN_EXCERPT_CHARS:
        return text
    at, length = _said_at(text, around) if around else (-1, 0)
    start = max(0, at - max(0, PIN_EXCERPT_CHARS - length) // 2)
    if at < 0 or start == 0:
        return text[: PIN_EXCERPT_CHARS - 1].rstrip() + ELLIPSIS
    if start + PIN_EXCERPT_CHARS - 1 >= len(text):  # the message's end: an ellipsis only in front
        return ELLIPSIS + _from_a_word(text, len(text) - PIN_EXCERPT_CHARS + 1).lstrip(_CUT_PUNCT)
    begin = _to_a_word(text, start, at)
    end = begin + PIN_EXCERPT_CHARS - 2
    if all(_WORD_CHAR.match(c) for c in text[end - 1 : end + 1]):  # not inside a word
        end = max(text.rfind(" ", max(at + length, end - WORD_SEARCH_CHARS), end), at + length)
    return ELLIPSIS + text[begin:end].strip().lstrip(_CUT_PUNCT) + ELLIPSIS


_TERM = re.compile(r"[^\W_]+", re.UNICODE)


def _terms(text: str) -> set[str]:
    """Its words, casefolded; each Chinese, Japanese or Korean character a word of its own."""
    out: set[str] = set()
    for word in _TERM.findall(text.casefold()):
        out.update(word if any(ord(c) >= 0x2E80 for c in word) else (word,))
    return out


def _said_at(text: str, around: str) -> tuple[int, int]:
    """``(start, length)`` of ``around`` in ``text``, or of the sentence saying most of the
    words of its first sentence (where the pin starts), else of all of it (at least two
    words); ``(-1, 0)`` when none does."""
    wanted = " ".join(around.split())
    at = text.casefold().find(wanted.casefold())
    if at >= 0:
        return at, len(wanted)
    sentences = split_sentences(text)
    for words in (_terms(next(iter(split_sentences(wanted)), "")), _terms(wanted)):
        score, best = max(((len(_terms(s) & words), s) for s in sentences), default=(0, ""))
        if score >= 2 and text.find(best) >= 0:
            return text.find(best), len(best)
    return -1, 0


_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")
_CUT_PUNCT = ".,;:!?。，；：！？ "
"""What an excerpt cut mid-text never starts with ("…. The" reads as a typo)."""
WORD_SEARCH_CHARS = 24
"""How far an excerpt's start may move to begin at a word instead of inside one."""


def _from_a_word(text: str, start: int) -> str:
    """``text`` from ``start``, moved on to the next word when ``start`` falls inside one
    ("…terministic offline reply" reads as a typo); Chinese has no spaces to move to."""
    inside = 0 < start < len(text) and all(_WORD_CHAR.match(c) for c in text[start - 1 : start + 1])
    space = text.find(" ", start, start + WORD_SEARCH_CHARS) if inside else -1
    return text[space + 1 if space >= 0 else start :].lstrip()


def _to_a_word(text: str, start: int, limit: int) -> int:
    """``start`` moved back to the start of the word it falls inside (never past ``limit``,
    where the pin is said, and at most ``WORD_SEARCH_CHARS``)."""
    inside = 0 < start < len(text) and all(_WORD_CHAR.match(c) for c in text[start - 1 : start + 1])
    space = text.rfind(" ", max(0, start - WORD_SEARCH_CHARS), start) if inside else -1
    return min(space + 1, limit) if space >= 0 else start


def _source(message: ChatThreadMessage, around: str | None) -> PinSource:
    return PinSource(
        message_id=message.id,
        role=message.role,
        excerpt=excerpt(message.text, around),
        created_at=message.created_at,
    )


def sources_for(
    text: str, origin: PinOrigin, folded: Sequence[ChatThreadMessage]
) -> tuple[PinSource, ...]:
    """The folded messages a new pin came from. The extractive compactor pins sentences
    verbatim: the messages that say it. A model's pin is its reading of everything it
    folded: all of those (the newest ``PIN_SOURCES_MAX``)."""
    if origin == "extractive":
        key = normalize(text)
        # who said it, before who quoted it ("Your latest message: "…"" names no source)
        saying = [m for m in folded if key and key in normalize(unquoted(m.text))] or [
            m for m in folded if key and key in normalize(m.text)
        ]
        if saying:
            return tuple(_source(m, text) for m in saying[-PIN_SOURCES_MAX:])
    return tuple(_source(m, text) for m in folded[-PIN_SOURCES_MAX:])


def is_small_talk_pin(text: str) -> bool:
    """Every sentence of the pin is small talk: nothing in it decides anything."""
    sentences = split_sentences(text)
    return bool(sentences) and all(is_small_talk(s) for s in sentences)


def blocked_keys(current: Sequence[Pin], seen: Sequence[Pin], unpinned: Iterable[str]) -> set[str]:
    """Texts a compaction may not pin: what the user unpinned, and what it was shown that
    is gone or was edited since (the user's change wins over the compactor's copy)."""
    now = {p.id: normalize(p.text) for p in current}
    gone = {normalize(p.text) for p in seen if now.get(p.id) != normalize(p.text)}
    return gone | set(unpinned)


def merge(
    current: Sequence[Pin],
    texts: Sequence[str],
    *,
    limits: MemoryLimits,
    origin: PinOrigin,
    folded: Sequence[ChatThreadMessage] = (),
    replaced: Sequence[str] = (),
    seen: Sequence[Pin] | None = None,
    unpinned: Iterable[str] = (),
    now: datetime | None = None,
    why: Mapping[str, str] | None = None,
) -> list[Pin]:
    """``current`` with a compaction's pin ``texts`` merged in (the module's rules).

    ``seen``: the pins the compactor was shown (default ``current``); ``folded``: the
    messages it folded, the new pins' sources; ``replaced``: previous pins it says newer
    decisions replace; ``why``: each new pin's text → why the offline engine pinned it (a
    model's pin says why by the messages it cites).
    """
    reasons = {normalize(c): w for t, w in (why or {}).items() for c in clamp_texts([t], limits)}
    now = now or utcnow()
    blocked = blocked_keys(current, current if seen is None else seen, unpinned)
    gone = {normalize(t) for t in replaced}
    merged = [
        (key, pin)
        for pin in current
        if (key := normalize(pin.text)) not in gone or pin.origin == "user"
    ]
    for text in clamp_texts(texts, limits):
        key = normalize(text)
        if any(_replaces(key, b) or _replaces(b, key) for b in blocked):
            continue
        same = next((i for i, (k, _) in enumerate(merged) if k == key), None)
        if same is None and origin == "model" and is_small_talk_pin(text):
            continue
        if same is not None:  # said before: the record stays, in the compactor's words
            if merged[same][1].origin != "user":
                merged[same] = (key, merged[same][1].model_copy(update={"text": text}))
            continue
        merged = [(k, p) for k, p in merged if p.origin == "user" or not _replaces(key, k)]
        sources = sources_for(text, origin, folded)
        said = model_pin_why(sources) if origin == "model" else reasons.get(key, "")
        pin = Pin(text=text, origin=origin, pinned_at=now, sources=sources, why=said)
        merged.append((key, pin))
    return evict([p for _, p in merged], limits.pinned_max)


def replaced_records(
    before: Sequence[Pin],
    after: Sequence[Pin],
    output: CompactionOutput,
    *,
    limits: MemoryLimits,
    now: datetime | None = None,
) -> list[ReplacedPin]:
    """The pins of ``before`` that ``output`` named replaced and that left (a user's pin
    stays, so it is never recorded), each with the pin that took its place and why
    (contract §5: the ``replaced`` list the panel, the export and the CLI show)."""
    now = now or utcnow()
    kept = {p.id for p in after}
    by_key = {normalize(p.text): p for p in after}
    explained = output if isinstance(output, ExplainedOutput) else None

    def record(pin_id: str, text: str, said: str) -> ReplacedPin:
        said_by = explained.replaced_by.get(said, "") if explained else ""
        by = next((by_key.get(normalize(t)) for t in clamp_texts([said_by], limits)), None)
        why = explained.replaced_why.get(said, "") if explained else MODEL_REPLACED_WHY
        return ReplacedPin(
            id=pin_id, text=text, replaced_by=by.id if by else None, replaced_at=now, why=why
        )

    gone = {normalize(t): t for t in output.replaced_decisions}
    records = [
        record(pin.id, pin.text, gone[key])
        for pin in before
        if (key := normalize(pin.text)) in gone and pin.id not in kept
    ]
    if explained:  # decided and changed within the folded turns: never a pin, still a change
        records += [
            record(new_pin_id(), text, said)
            for said in explained.superseded
            for text in clamp_texts([said], limits)
        ]
    return records


def remember_replaced(
    history: Sequence[ReplacedPin], records: Sequence[ReplacedPin]
) -> list[ReplacedPin]:
    """``history`` with ``records`` added, newest last, at most ``REPLACED_MAX``."""
    return [*history, *records][-REPLACED_MAX:]


def merge_pins(
    old: list[str], new: list[str], limits: MemoryLimits, replaced: list[str] | None = None
) -> list[str]:
    """``merge`` on texts alone: the pins ``new`` and ``replaced`` make of ``old``."""
    pins = [Pin(id=legacy_pin_id(t), text=t, origin="extractive") for t in clamp_texts(old, limits)]
    merged = merge(pins, new, limits=limits, origin="extractive", replaced=replaced or ())
    return [p.text for p in merged]


def remember_unpinned(unpinned: Sequence[str], text: str) -> list[str]:
    """``unpinned`` with ``text``'s key added (newest last, at most ``UNPINNED_MAX``)."""
    key = normalize(text)
    kept = [k for k in unpinned if k != key]
    return [*kept, key][-UNPINNED_MAX:]


def origin_of(compactor_name: str) -> PinOrigin:
    """``extractive`` for the deterministic compactor; every other compactor is a model's."""
    return "extractive" if compactor_name == "extractive" else "model"
