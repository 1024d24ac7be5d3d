"""The extractive summary: the folded turns' informative sentences merged into the old summary.

One line per message, ``- User: …`` / ``- Assistant: …``, holding only that
message's sentences worth keeping. Each compaction reads the previous summary's
lines back as older messages and ranks everything together, so the summary is
merged, not appended to: greetings, thanks and cheers are dropped; a sentence
said again keeps only its newest place; a quote of text held elsewhere (a bot
echoing the question or the pins) is cut; a bot's boilerplate — near-identical
sentences in three or more of its replies — goes altogether; and past the bound
the least salient sentences go first, older before newer among equals.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory.models import ChatThreadMessage
from memory.salience import FILLER_BELOW, information, is_filler, salience, template
from memory.sentences import is_chinese, split_sentences
from memory.text import clip, normalize
from memory.words import content_words

ROLE_LABELS = {"user": "User", "assistant": "Assistant"}
SENTENCE_CHARS = 240
"""One kept sentence at most; a longer one is cut at a word boundary."""
RECENCY_WEIGHT = 4.0
"""Salience added to the newest part, 0 to the oldest: newer facts outrank equal older ones."""
ECHO_CHARS = 12
"""A quoted span at least this long that repeats text held elsewhere is an echo, cut."""
ECHO_REMAINS = 3.0
"""What is left of a sentence once its echo is cut must tell at least this much to stay."""
RESTATED_SHARE = 0.8
"""An older sentence whose content words (numbers all included) are this much in a newer
one is said again by it: only the newer stays."""
DENSITY_CHARS = 40
"""Selection ranks salience per character, a sentence counted at least this long: the
budget is characters, so short dense facts ("13:00 it is.") beat long ones that tell the
same, and a one-word sentence does not outrank everything."""
BOILERPLATE_WORDS = 6
BOILERPLATE_REPLIES = 3
BOILERPLATE_SIMILARITY = 0.8
"""An assistant sentence of at least BOILERPLATE_WORDS words whose near-copies (Jaccard of
words, numbers masked, at least BOILERPLATE_SIMILARITY) are in BOILERPLATE_REPLIES or more
replies is boilerplate: a fact is not restated three times, a bot's preamble is."""

_LABELLED = re.compile(r"^-?\s*(User|Assistant):\s*(.*)$")
_UNLABELLED = re.compile(r"^[-*•]\s*")
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|「([^」]+)」|『([^』]+)』')
_WORD = re.compile(r"\w+")
_CLAUSE = re.compile(r"(?<=[,;，；、])\s*|\s+(?=-\s)|(?<=\S)\s+-\s+")
"""Clause ends inside a sentence: ", ", "；", " - " (not the comma of 4,000)."""
_CLAUSE_JOIN = re.compile(r"[,;，；、]\s*$")
_TERMINATED = re.compile(r"[.!?。！？…]\W*$")


@dataclass(frozen=True, slots=True)
class Part:
    """One message's worth of text: a line of the previous summary or a folded message."""

    role: str | None
    text: str


@dataclass(frozen=True, slots=True)
class _Sentence:
    part: int
    order: int
    text: str
    score: float


def previous_parts(summary: str) -> list[Part]:
    """The old summary's lines as parts; a model's prose lines have no role."""
    parts = []
    for line in summary.splitlines():
        if not line.strip():
            continue
        if m := _LABELLED.match(line.strip()):
            role = "user" if m.group(1) == "User" else "assistant"
            parts.append(Part(role, m.group(2)))
        else:
            parts.append(Part(None, _UNLABELLED.sub("", line.strip())))
    return parts


def _without_echoes(sentence: str, others: list[str]) -> str:
    """Cut quoted spans whose text is held elsewhere (the user's question, a pin)."""

    def cut(m: re.Match[str]) -> str:
        quoted = normalize(next(g for g in m.groups() if g is not None))
        echo = len(quoted) >= ECHO_CHARS and any(quoted in text for text in others)
        return "" if echo else m.group()

    return _QUOTED.sub(cut, sentence).strip()


def _without_empty_clauses(sentence: str) -> str:
    """The sentence less its clauses that tell nothing ("Thanks, …", "…, would you like
    anything else?", "好的，谢谢，…"): more facts fit in the summary's characters."""
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


def _words(sentence: str) -> frozenset[str]:
    return frozenset(_WORD.findall(template(_QUOTED.sub(" ", sentence))))


def _boilerplate(sentences: list[tuple[int, str]], parts: list[Part]) -> set[int]:
    """Indexes of assistant sentences with near-copies in ``BOILERPLATE_REPLIES`` replies."""
    mine = [
        (i, part, w)
        for i, (part, text) in enumerate(sentences)
        if parts[part].role == "assistant" and len(w := _words(text)) >= BOILERPLATE_WORDS
    ]
    out: set[int] = set()
    for i, part, words in mine:
        replies = {
            other_part
            for _, other_part, other in mine
            if len(words & other) >= BOILERPLATE_SIMILARITY * len(words | other)
        }
        if len(replies | {part}) >= BOILERPLATE_REPLIES:
            out.add(i)
    return out


def _candidates(parts: list[Part], known: Sequence[str]) -> list[_Sentence]:
    """Every sentence worth ranking: echoes cut, filler, boilerplate and repeats dropped."""
    texts = [normalize(p.text) for p in parts]
    pinned = [normalize(k) for k in known]
    held = set(pinned)
    every: list[tuple[int, int, str, str]] = []  # part, order, as written, echoes cut
    for index, part in enumerate(parts):
        others = [t for j, t in enumerate(texts) if j != index] + pinned
        for order, raw in enumerate(split_sentences(part.text)):
            cut = _without_echoes(raw, others) if _QUOTED.search(raw) else raw
            every.append((index, order, raw, cut))
    boilerplate = _boilerplate([(part, cut) for part, _, _, cut in every], parts)
    span = max(len(parts) - 1, 1)
    found: list[_Sentence] = []
    for i, (index, order, raw, cut) in enumerate(every):
        echoed = cut != raw and (len(cut) * 2 <= len(raw) or information(cut) < ECHO_REMAINS)
        if i in boilerplate or echoed or is_filler(cut) or normalize(raw) in held:
            continue  # boilerplate, an echo, nothing to remember, or held as a pin already
        sentence = clip(_without_empty_clauses(cut), SENTENCE_CHARS)
        found.append(
            _Sentence(index, order, sentence, salience(sentence) + RECENCY_WEIGHT * index / span)
        )
    return _without_restated(found)


def _said_again(old: frozenset[str], numbers: frozenset[str], new: frozenset[str]) -> bool:
    """``new`` holds most of ``old``'s words and every one of its numbers."""
    return bool(old) and len(old & new) >= RESTATED_SHARE * len(old) and numbers <= new


def _without_restated(found: list[_Sentence]) -> list[_Sentence]:
    """Each sentence said again later (the same, or its words within a newer one) keeps only
    its newest place. A number of its own makes a sentence a different fact."""
    words = [frozenset(content_words(c.text)) for c in found]
    numbers = [frozenset(w for w in ws if any(ch.isdigit() for ch in w)) for ws in words]
    keys = [normalize(c.text) for c in found]
    return [
        c
        for i, c in enumerate(found)
        if not any(
            keys[i] == keys[j] or _said_again(words[i], numbers[i], words[j])
            for j in range(i + 1, len(found))
        )
    ]


def _label(role: str | None) -> str:
    return f"- {ROLE_LABELS[role]}: " if role else "- "


def _select(
    candidates: list[_Sentence], parts: list[Part], limit: int, held: Sequence[str]
) -> list[_Sentence]:
    """The sentences that tell the most per character and fit in ``limit`` once rendered.

    Greedy on what is still new: a sentence's salience counts in proportion to its
    content words not yet in the summary, the pins or the kept turns (``held``), so the
    summary holds many facts once rather than one fact many times. Lazy: a sentence's
    worth only falls as the summary grows, so it is re-scored only when it comes up.
    """
    covered: set[str] = {w for text in held for w in content_words(text)}
    words = [frozenset(content_words(c.text)) for c in candidates]

    def worth(i: int) -> float:
        c = candidates[i]
        novel = len(words[i] - covered) / len(words[i]) if words[i] else 1.0
        return c.score * novel / max(len(c.text), DENSITY_CHARS)

    heap = [(-worth(i), -c.part, -c.order, i) for i, c in enumerate(candidates)]
    heapq.heapify(heap)
    chosen: list[_Sentence] = []
    opened: set[int] = set()
    used = -1  # no newline before the first line
    while heap:
        stale, part, order, i = heapq.heappop(heap)
        fresh = worth(i)
        if heap and fresh < -heap[0][0] and fresh < -stale:
            heapq.heappush(heap, (-fresh, part, order, i))
            continue
        c = candidates[i]
        line = "" if c.part in opened else _label(parts[c.part].role)
        cost = 1 + len(line) + len(c.text)  # a space, or a newline and the label
        if used + cost > limit or (words[i] and not words[i] - covered):
            continue
        used += cost
        opened.add(c.part)
        covered.update(words[i])
        chosen.append(c)
    return chosen


def _render(chosen: list[_Sentence], parts: list[Part]) -> str:
    lines: dict[int, list[_Sentence]] = {}
    for c in sorted(chosen, key=lambda c: (c.part, c.order)):
        lines.setdefault(c.part, []).append(c)
    return "\n".join(
        _label(parts[p].role) + " ".join(c.text for c in group) for p, group in lines.items()
    )


def merge_summary(
    previous: str,
    folded: Sequence[ChatThreadMessage],
    known: Sequence[str],
    limit: int,
    kept: Sequence[str] = (),
) -> str:
    """The new summary: old lines and folded messages ranked together, at most ``limit`` chars.

    ``known`` is text memory holds elsewhere (the pins): quoting it is an echo, and a
    sentence that is a pin is not repeated here. ``kept`` are the turns that stay
    verbatim: what they say is not new.
    """
    parts = previous_parts(previous) + [Part(m.role, m.text) for m in folded]
    chosen = _select(_candidates(parts, known), parts, limit, [*known, *kept])
    if chosen:
        return _render(chosen, parts)
    if previous.strip():
        return clip(previous, limit)
    last = folded[-1]  # only chatter was folded: keep a trace of it, never an empty summary
    return clip(_label(last.role) + clip(last.text, SENTENCE_CHARS), limit)
