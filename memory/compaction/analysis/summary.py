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

import bisect
import heapq
import math
import re
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain

from aimind_memory.memory.compaction.analysis.condense import condense
from aimind_memory.memory.compaction.analysis.decisions import decision_strength
from aimind_memory.memory.compaction.analysis.mentions import mentions
from aimind_memory.memory.compaction.analysis.salience import (
    information,
    is_filler,
    salience,
    template,
)
from aimind_memory.memory.compaction.analysis.sentences import (
    has_chinese,
    is_chinese,
    split_sentences,
)
from aimind_memory.memory.compaction.analysis.words import anchors, content_words
from aimind_memory.memory.models import ChatThreadMessage
from aimind_memory.memory.text import clip, normalize

ROLE_LABELS = {"user": "User", "assistant": "Assistant"}
SENTENCE_CHARS = 240
"""One kept sentence at most; a longer one is cut at a word boundary."""
RECENCY_WEIGHT = 4.0
"""Salience added to the newest part, 0 to the oldest: newer facts outrank equal older ones."""


@dataclass(frozen=True, slots=True)
class TailStyle:
    """The summary's last line in one language: its label, separators and room."""

    label: str
    sep: str
    """Between the mentions of different sentences."""
    group_sep: str
    """Between the mentions of one sentence (said together: "Golden Curry, 01223329432")."""
    chars: int
    """Characters kept for the list of names and numbers that did not fit."""
    share: float
    """At most this share of a small summary goes to the list."""
    name_chars: int
    """A mention in Chinese characters longer than this is not listed, nor a figure longer
    than ``figure_chars``: a list is for handles, and a long span (an address, a branch in
    brackets, a week's opening hours) costs it three names. Its sentence is in the prose
    or it goes."""
    figure_chars: int

    def room_for(self, mention: str) -> int:
        """The longest such a mention may be and still be listed."""
        return self.name_chars if has_chinese(mention) else self.figure_chars


TAIL = {
    "en": TailStyle("- Also mentioned: ", "; ", ", ", 750, 0.3, SENTENCE_CHARS, SENTENCE_CHARS),
    "zh": TailStyle("- 还提到：", "；", "、", 2_000, 0.8, name_chars=10, figure_chars=13),
}
"""English prose needs room: a list past a third of the summary reads like a keyword dump
and leaves out the phrases casual questions ask for. A Chinese sentence holds far fewer
characters than an English one but its frame (地址是…，电话是…) is as long as its names:
listed, a name costs only itself and one full-width separator."""
CANDIDATES_CACHED = 64
"""Folds whose ranked sentences are kept (``_candidates``): one per session a process
serves at once is what reading the next fold ahead needs."""
ECHO_CHARS = 12
"""A quoted span at least this long that repeats text held elsewhere is an echo, cut."""
ECHO_REMAINS = 3.0
"""What is left of a sentence once its echo is cut must tell at least this much to stay."""
RESTATED_SHARE = 0.8
"""An older sentence whose content words (numbers all included) are this much in a newer
one is said again by it: only the newer stays."""
DENSITY_CHARS = 40
DENSITY_CHARS_ZH = 14
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
_TABLE_ROW = re.compile(r"\|.*\||[|:\-\s]+")
"""A markdown table's row or rule ("| review | pass |", "|---|---|"): layout, not a sentence."""
_MARKUP = re.compile(r"^#{1,6}\s+|\*\*|__|`")
"""Markdown a report is written in (a heading's #, bold, code marks): the words stay."""
_ENDED = re.compile(r"[.!?。！？…]['\"”’」』）)\]]*$")
_QUESTION = re.compile(r"[?？]\W*$")


@dataclass(frozen=True, slots=True)
class Part:
    """One message's worth of text: a line of the previous summary or a folded message."""

    role: str | None
    text: str

    @classmethod
    def of(cls, message: ChatThreadMessage) -> Part:
        return cls(message.role, message.text)


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
    """Cut quoted spans whose text is held elsewhere (the user's question, a pin): a long
    enough span inside another text, or one that is another text whole, however short
    ('Your latest message: "别动 我先看看"' quotes a message of seven characters)."""
    whole = set(others)

    def cut(m: re.Match[str]) -> str:
        quoted = normalize(next(g for g in m.groups() if g is not None))
        inside = len(quoted) >= ECHO_CHARS and any(quoted in text for text in others)
        return "" if inside or (quoted and quoted in whole) else m.group()

    return _QUOTED.sub(cut, sentence).strip()


_key = lru_cache(maxsize=8_192)(normalize)
"""``normalize`` of a pin or a sentence, cached: the same ones are compared at every fold.
(Not of a whole message or the summary: those are new at each fold.)"""


@lru_cache(maxsize=8_192)
def _words(sentence: str) -> frozenset[str]:
    return frozenset(_WORD.findall(template(_QUOTED.sub(" ", sentence))))


def _sharing(sets: list[frozenset[str]], share: float) -> list[set[int]]:
    """For each set, the other sets that may hold ``share`` of its words: those holding one
    of its rarest words, as many as it can miss plus one (a prefix filter: the pairs are
    not all compared, so a fold stays fast however long the summary's lines)."""
    postings: dict[str, list[int]] = {}
    for i, words in enumerate(sets):
        for word in words:
            postings.setdefault(word, []).append(i)
    # rarest first, ties by the word: each word's place in that order
    rank = {w: k for k, (_, w) in enumerate(sorted([(len(v), w) for w, v in postings.items()]))}
    out: list[set[int]] = []
    for i, words in enumerate(sets):
        needed = math.ceil(share * len(words) - 1e-9)
        rarest = sorted(words, key=rank.__getitem__)[: len(words) - needed + 1]
        near = set().union(*(postings[w] for w in rarest))
        near.discard(i)
        out.append(near)
    return out


def _boilerplate(sentences: list[tuple[int, str]], parts: Sequence[Part]) -> set[int]:
    """Indexes of assistant sentences with near-copies in ``BOILERPLATE_REPLIES`` replies."""
    mine = [
        (i, part, w)
        for i, (part, text) in enumerate(sentences)
        if parts[part].role == "assistant" and len(w := _words(text)) >= BOILERPLATE_WORDS
    ]
    sets = [w for _, _, w in mine]
    out: set[int] = set()
    for (i, part, words), near in zip(mine, _sharing(sets, BOILERPLATE_SIMILARITY), strict=True):
        if len(near) < BOILERPLATE_REPLIES - 1:
            continue  # too few near copies to be in that many replies
        size = len(words)
        replies = {  # Jaccard: the words both hold against those either holds
            mine[j][1]
            for j in near
            if (both := len(words & sets[j]))
            >= BOILERPLATE_SIMILARITY * (size + len(sets[j]) - both)
        }
        if len(replies | {part}) >= BOILERPLATE_REPLIES:
            out.add(i)
    return out


@lru_cache(maxsize=CANDIDATES_CACHED)
def _candidates(
    parts: tuple[Part, ...], known: tuple[str, ...], history: tuple[str, ...] = ()
) -> tuple[_Sentence, ...]:
    """Every sentence worth ranking: echoes cut, filler, boilerplate and repeats dropped, and
    the sentences memory holds elsewhere (a pin; a changed decision, kept as history).

    Cached: what the next fold will rank (the old summary, the turns that will leave the
    window, the pins) is known before the turn that makes it, which the compactor reads
    ahead (``ExtractiveCompactor.read_ahead``); the turns that stay verbatim, the one part
    not known yet, are weighed after this, in ``_select`` and ``_tail``."""
    texts: list[str] = []  # the parts normalised, made when a quote needs them
    pinned = [_key(k) for k in known]
    held = {*pinned, *(_key(h) for h in history)}
    every: list[tuple[int, int, str, str]] = []  # part, order, as written, echoes cut
    for index, part in enumerate(parts):
        for order, said in enumerate(split_sentences(part.text)):
            if (read := _read(said)) is None:
                continue
            raw = cut = read[0]
            if read[1]:
                texts = texts or [normalize(p.text) for p in parts]
                others = [t for j, t in enumerate(texts) if j != index] + pinned
                cut = _without_echoes(raw, others)
            every.append((index, order, raw, cut))
    boilerplate = _boilerplate([(part, cut) for part, _, _, cut in every], parts)
    span = max(len(every) - 1, 1)  # recency by the sentence's place: a line holds many
    found: list[_Sentence] = []
    for i, (index, order, raw, cut) in enumerate(every):
        echoed = cut != raw and (len(cut) * 2 <= len(raw) or information(cut) < ECHO_REMAINS)
        if i in boilerplate or echoed:
            continue
        kept = _kept(cut)
        if kept is None or _key(raw) in held:
            continue  # boilerplate, an echo, nothing to remember, or held as a pin already
        sentence, score = kept
        found.append(_Sentence(index, order, sentence, score + RECENCY_WEIGHT * i / span))
    return tuple(_without_restated(found))


@lru_cache(maxsize=8_192)
def _read(said: str) -> tuple[str, bool] | None:
    """A sentence as ranked: its markup dropped, and whether it quotes anything (None: a
    table's row). Cached, like ``_kept``: the summary's sentences come back at every fold."""
    if _TABLE_ROW.fullmatch(said.strip()):
        return None
    marked = "#" in said or "**" in said or "__" in said or "`" in said  # what _MARKUP needs
    raw = (_MARKUP.sub("", said) if marked else said).strip()
    return raw, _QUOTED.search(raw) is not None


@lru_cache(maxsize=8_192)
def _kept(cut: str) -> tuple[str, float] | None:
    """The sentence as the summary keeps it (condensed, clipped, ended) and its salience;
    None when it holds nothing to remember (``_empty``)."""
    if _empty(cut):
        return None
    sentence = _ended(clip(condense(cut), SENTENCE_CHARS))
    return sentence, salience(sentence)


def _ended(sentence: str) -> str:
    """The sentence with a full stop if it had none: sentences share a line in the summary,
    and one without an end would run into the next when the line is read back."""
    if _ENDED.search(sentence):
        return sentence
    return sentence + ("。" if is_chinese(sentence) else ".")


def _empty(sentence: str) -> bool:
    """Nothing to remember: filler, or a question that names nothing ("What kind of puppy?",
    "Is there anything else I can help with?", "这两个酒店哪个提供残疾人设施？"): its answer,
    if any, is the fact, and a question holds none."""
    if is_filler(sentence):
        return True
    return (
        bool(_QUESTION.search(sentence))
        and not anchors(sentence)
        and not decision_strength(sentence)
    )


def _said_again(
    old: frozenset[str], numbers: frozenset[str], newer: Iterable[frozenset[str]]
) -> bool:
    """One of ``newer`` holds most of ``old``'s words and every one of its numbers."""
    needed = RESTATED_SHARE * len(old)  # a newer one of fewer words cannot hold so many
    return any(len(new) >= needed and len(old & new) >= needed and numbers <= new for new in newer)


def _without_restated(found: list[_Sentence]) -> list[_Sentence]:
    """Each sentence said again later (the same, or its words within a newer one) keeps only
    its newest place. A number of its own makes a sentence a different fact: a newer
    sentence says an older one again when it holds most of its words and every number.

    Read newest first, so only the newer sentences are indexed when an older one is
    weighed: those holding one of its words that the fewest newer ones hold, as many as it
    can miss plus one (a prefix filter), are the only ones that may hold enough of it."""
    kept: list[_Sentence] = []
    newer_keys: set[str] = set()
    newer: dict[str, list[frozenset[str]]] = {}  # a word → the newer sentences' sets holding it
    for c in reversed(found):
        old, key = _word_set(c.text), _key(c.text)
        if key not in newer_keys and not (
            old and _said_again(old, _numbers(c.text), _near(old, newer))
        ):
            kept.append(c)
        newer_keys.add(key)
        for word in old:
            newer.setdefault(word, []).append(old)
    kept.reverse()
    return kept


def _near(old: frozenset[str], newer: dict[str, list[frozenset[str]]]) -> Iterable[frozenset[str]]:
    """The newer sets that may hold ``RESTATED_SHARE`` of ``old``: those holding one of its
    words the fewest hold, as many as it can miss plus one."""
    missable = len(old) - math.ceil(RESTATED_SHARE * len(old))
    rarest = sorted(old, key=lambda w: len(newer.get(w, ())))[: missable + 1]
    return chain.from_iterable(newer.get(w, ()) for w in rarest)


@lru_cache(maxsize=8_192)
def _word_set(text: str) -> frozenset[str]:
    """The sentence's content words as a set, made once per sentence, not once per fold."""
    return frozenset(content_words(text))


@lru_cache(maxsize=8_192)
def _numbers(text: str) -> frozenset[str]:
    """The sentence's content words that hold a digit (a word of letters alone holds none:
    it is not looked through)."""
    return frozenset(
        w for w in _word_set(text) if not w.isalpha() and any(ch.isdigit() for ch in w)
    )


def _label(role: str | None) -> str:
    return f"- {ROLE_LABELS[role]}: " if role else "- "


class _Layout:
    """The rendered summary's lines as sentences are added: one line per run of parts by
    the same speaker, so a label is paid once per run, not once per message (on chat
    turns' short facts the labels were a fifth of the summary). A line of no speaker (a
    model's prose, a "Since changed:" line) stays a line of its own."""

    def __init__(self, parts: list[Part]) -> None:
        self.roles = [p.role for p in parts]
        self.opened: list[int] = []  # parts holding a chosen sentence, in order

    def _line(self, part: int) -> int:
        return 1 + len(_label(self.roles[part]))  # a newline and the label

    def cost(self, part: int, text: str) -> int:
        """Characters this sentence adds once rendered."""
        at = bisect.bisect_left(self.opened, part)
        if at < len(self.opened) and self.opened[at] == part:
            return 1 + len(text)  # a space on its part's line
        before = self.roles[self.opened[at - 1]] if at else _NO_LINE
        after = self.roles[self.opened[at]] if at < len(self.opened) else _NO_LINE
        role = self.roles[part]
        if role is not None and role in (before, after):
            return 1 + len(text)  # joins the run before or after it
        splits = before is not _NO_LINE and before is not None and before == after
        return self._line(part) + len(text) + (self._line(self.opened[at]) if splits else 0)

    def add(self, part: int) -> None:
        at = bisect.bisect_left(self.opened, part)
        if at == len(self.opened) or self.opened[at] != part:
            self.opened.insert(at, part)


_NO_LINE = object()


class _Ranking:
    """What ``_select`` starts from, made once per fold: the words held elsewhere, each
    candidate's words, the characters it is counted as (``DENSITY_CHARS`` at least), and the
    heap of first scores. A fold may select twice (once more when the list of mentions
    leaves room), from the same start."""

    def __init__(self, candidates: list[_Sentence], held: Sequence[str]) -> None:
        self.candidates = candidates
        self.covered = frozenset(chain.from_iterable(map(content_words, held)))
        self.words = [_word_set(c.text) for c in candidates]
        self.chars = [
            max(len(c.text), DENSITY_CHARS_ZH if is_chinese(c.text) else DENSITY_CHARS)
            for c in candidates
        ]
        self.heap = [
            (-self.worth(i, self.covered), -c.part, -c.order, i) for i, c in enumerate(candidates)
        ]
        heapq.heapify(self.heap)

    def worth(self, i: int, covered: Set[str]) -> float:
        """Salience per character, in proportion to the words not yet ``covered``."""
        words = self.words[i]
        novel = len(words - covered) / len(words) if words else 1.0
        return self.candidates[i].score * novel / self.chars[i]


def _select(ranking: _Ranking, parts: list[Part], limit: int) -> list[_Sentence]:
    """The sentences that tell the most per character and fit in ``limit`` once rendered.

    Greedy on what is still new: a sentence's salience counts in proportion to its
    content words not yet in the summary, the pins or the kept turns (held, ``ranking``),
    so the summary holds many facts once rather than one fact many times. Lazy: a
    sentence's worth only falls as the summary grows, so it is re-scored only when it
    comes up.
    """
    candidates, words, worth = ranking.candidates, ranking.words, ranking.worth
    covered = set(ranking.covered)
    heap = list(ranking.heap)  # a copy of a heap is a heap
    chosen: list[_Sentence] = []
    layout = _Layout(parts)
    used = -1  # no newline before the first line
    while heap:
        stale, part, order, i = heapq.heappop(heap)
        fresh = worth(i, covered)
        if heap and fresh < -heap[0][0] and fresh < -stale:
            heapq.heappush(heap, (-fresh, part, order, i))
            continue
        c = candidates[i]
        cost = layout.cost(c.part, c.text)
        if used + cost > limit or (words[i] and not words[i] - covered):
            continue
        used += cost
        layout.add(c.part)
        covered.update(words[i])
        chosen.append(c)
    return chosen


def _render(chosen: list[_Sentence], parts: list[Part]) -> str:
    """One line per run of the same speaker, its sentences in the order they were said; a
    part of no speaker is a line of its own."""
    lines: list[tuple[str | None, int, list[str]]] = []
    for c in sorted(chosen, key=lambda c: (c.part, c.order)):
        role = parts[c.part].role
        if lines and (lines[-1][1] == c.part or (role is not None and lines[-1][0] == role)):
            lines[-1][2].append(c.text)
        else:
            lines.append((role, c.part, [c.text]))
    return "\n".join(_label(role) + " ".join(texts) for role, _, texts in lines)


def _tail_of(summary: str) -> tuple[list[tuple[str, ...]], str]:
    """The old summary's listed mentions (grouped as they were) and its other lines."""
    lines = summary.splitlines()
    for style in TAIL.values():
        if lines and lines[-1].startswith(style.label):
            listed = lines[-1][len(style.label) :].split(style.sep)
            groups = [tuple(m for m in g.split(style.group_sep) if m.strip()) for g in listed]
            return [g for g in groups if g], "\n".join(lines[:-1])
    return [], summary


def _tail(
    candidates: list[_Sentence],
    chosen: list[_Sentence],
    old: list[tuple[str, ...]],
    held: Sequence[str],
    room: int,
    style: TailStyle,
) -> str:
    """The names and numbers of sentences that did not fit, newest first, then the old
    list's, each once and none already held, in at most ``room`` characters."""
    taken = {(c.part, c.order) for c in chosen}
    left = sorted(
        (c for c in candidates if (c.part, c.order) not in taken),
        key=lambda c: (c.part, c.order),
        reverse=True,
    )
    text = normalize(" ".join(held))
    groups: list[list[str]] = []  # one per sentence: what it names, said together
    seen: set[str] = set()
    used = len(style.label) - len(style.sep)
    for mentioned in [mentions(c.text) for c in left] + old:
        group: list[str] = []
        for mention in mentioned:
            key = mention.casefold()  # a name or a number: no spaces or stops to fold
            cost = len(mention) + len(style.group_sep if group else style.sep)
            if (
                key
                and used + cost <= room
                and key not in seen
                and len(mention) <= style.room_for(mention)
                and key not in text  # the dearest test last
            ):
                seen.add(key)
                group.append(mention)
                used += cost
        if group:
            groups.append(group)
    return style.label + style.sep.join(style.group_sep.join(g) for g in groups) if groups else ""


def _ranked(
    previous: str,
    folded: Sequence[ChatThreadMessage],
    known: Sequence[str],
    history: Sequence[str],
) -> tuple[list[tuple[str, ...]], list[Part], list[_Sentence]]:
    """The old summary's listed mentions, its lines then the folded messages as parts, and
    the sentences worth ranking (``_candidates``, cached)."""
    old_tail, lines = _tail_of(previous)
    parts = previous_parts(lines) + [Part.of(m) for m in folded]
    return old_tail, parts, list(_candidates(tuple(parts), tuple(known), tuple(history)))


def rank_ahead(
    previous: str,
    folded: Sequence[ChatThreadMessage],
    known: Sequence[str],
    history: Sequence[str] = (),
) -> None:
    """Rank the sentences of a fold not made yet, as ``merge_summary`` will with the same
    arguments: it then only weighs them against the turns that stay verbatim, the part of
    a fold the next turn brings."""
    _ranked(previous, folded, known, history)


def merge_summary(
    previous: str,
    folded: Sequence[ChatThreadMessage],
    known: Sequence[str],
    limit: int,
    kept: Sequence[str] = (),
    history: Sequence[str] = (),
) -> str:
    """The new summary: old lines and folded messages ranked together, at most ``limit`` chars.

    ``known`` is text memory holds elsewhere (the pins): quoting it is an echo, and a
    sentence that is a pin is not repeated here. ``kept`` are the turns that stay
    verbatim: what they say is not new. ``history``: folded decisions that no longer hold,
    which ``previous`` already lists as history; they are not repeated as said.
    """
    old_tail, parts, candidates = _ranked(previous, folded, known, history)
    held = [*known, *kept]
    said = " ".join(m.text for m in folded) or " ".join(m for group in old_tail for m in group)
    style = TAIL["zh" if is_chinese(said) else "en"]  # the conversation's language
    reserve = min(style.chars, int(limit * style.share))
    ranking = _Ranking(candidates, held)
    chosen = _select(ranking, parts, limit - reserve)
    if chosen:
        prose = _render(chosen, parts)
        room = limit - len(prose) - 1
        tail = _tail(candidates, chosen, old_tail, [prose, *held], room, style)
        if len(tail) + 1 < reserve:  # fewer names than room for them: the prose takes the rest
            chosen = _select(ranking, parts, limit - len(tail) - 1)
            prose = _render(chosen, parts)
            room = limit - len(prose) - 1
            tail = _tail(candidates, chosen, old_tail, [prose, *held], room, style)
        return f"{prose}\n{tail}" if tail else prose
    if previous.strip():
        return clip(previous, limit)
    last = _trace(folded, known)  # only chatter (or pins) was folded: never an empty summary
    return clip(_label(last.role) + clip(last.text, SENTENCE_CHARS), limit)


def _trace(folded: Sequence[ChatThreadMessage], known: Sequence[str]) -> ChatThreadMessage:
    """A trace of what was said: the newest folded message that is not boilerplate (a reply
    said the same way every turn, as the offline model's is) nor a pin (``known``) — the
    user's first, so not the offline model's account of its context."""
    parts = [Part.of(m) for m in folded]
    said = [(i, s) for i, m in enumerate(folded) for s in split_sentences(m.text)]
    boilerplate = _boilerplate(said, parts)
    plain = {said[k][0] for k in range(len(said)) if k not in boilerplate}
    pins = {normalize(k) for k in known}
    newest = [m for i, m in reversed(list(enumerate(folded))) if i in plain]
    fresh = [m for m in newest if normalize(m.text) not in pins]
    return next((m for m in fresh if m.role == "user"), (fresh or newest or [folded[-1]])[0])
