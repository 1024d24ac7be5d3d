"""A cheap test that rules out a battery of patterns: the words none of them can match without.

Most sentences carry no decision, small-talk or change cue, yet each rule function ran its
dozens of searches on every one (most of a fold's time). ``Cues(*patterns)`` reads each
pattern's parse once and keeps the whole words every match of it holds (a word of
letters the pattern bounds on both sides: "we" in ``\\bwe\\s+``; of an alternation, one
word of each branch), as sets one word of which must be there. A sentence whose words
meet none of the patterns' sets is matched by none of them, so the rule function returns
what it returns when nothing matched: the same answer for a set lookup per pattern.
"""

from __future__ import annotations

import re
from functools import lru_cache
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as p  # type: ignore[attr-defined]
from typing import Any

_WORD = re.compile(r"\w+")
_NOT_WORD = {c.CATEGORY_SPACE, c.CATEGORY_NOT_WORD}
_REPEATS = {c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT}
_EDGES = {c.AT_BOUNDARY, c.AT_BEGINNING, c.AT_BEGINNING_STRING, c.AT_END, c.AT_END_STRING}
Clause = tuple[frozenset[str], tuple[str, ...]]
"""Whole words and plain strings, one of which every match holds: a word bounded as a word,
a string anywhere."""


def _is_word(ch: str) -> bool:
    return _WORD.match(ch) is not None


def _edge(node: Any) -> bool:
    """Whether the node puts a non-word character (or a boundary) where it stands."""
    op, av = node
    if op is c.AT:
        return av in _EDGES
    if op is c.LITERAL:
        return not _is_word(chr(av))
    if op is c.IN:
        return all(
            (iop is c.LITERAL and not _is_word(chr(iav)))
            or (iop is c.CATEGORY and iav in _NOT_WORD)
            for iop, iav in av
        )
    inner = list(av[2] if op in _REPEATS else av[3] if op is c.SUBPATTERN else [])
    if op in _REPEATS and av[0] < 1:
        return False
    if inner:
        return _bounded(inner) and _bounded(inner, end=False)
    return False


def _bounded(nodes: list[Any], outside: bool = False, end: bool = True) -> bool:
    """Whether a match of the sequence always ends (``end``; else starts) with a non-word
    character or a boundary (``outside``: whether what stands beyond it does, when it may
    match nothing)."""
    for op, av in reversed(nodes) if end else nodes:
        if _edge((op, av)):
            return True
        if op in _REPEATS and av[0] >= 1:
            return _bounded(list(av[2]), end=end)
        if op in _REPEATS and _bounded(list(av[2]), end=end):
            continue  # absent or bounded so: what stands beyond it decides
        if op is c.SUBPATTERN and not av[1] and not av[2]:
            return _bounded(list(av[3]), end=end)
        if op is c.BRANCH:
            return all(_bounded(list(b), end=end) for b in av[1])
        return False
    return outside


def _clauses(nodes: Any, before: bool, after: bool) -> list[Clause]:
    """What every match of the node sequence holds; ``before``/``after``: whether a
    non-word character or a boundary is known to stand right before/after it."""
    nodes = list(nodes)
    out: list[Clause] = []
    i = 0
    while i < len(nodes):
        op, av = nodes[i]
        edge_before = _bounded(nodes[:i], before)
        if op is c.LITERAL:
            j = i
            while j < len(nodes) and nodes[j][0] is c.LITERAL:
                j += 1
            edge_after = _bounded(nodes[j:], after, end=False)
            text = "".join(chr(n[1]) for n in nodes[i:j])
            words = [
                m.group()
                for m in _WORD.finditer(text)
                if (m.start() > 0 or edge_before) and (m.end() < len(text) or edge_after)
            ]
            out.append((frozenset(words[:1]), ()) if words else (frozenset(), (text,)))
            i = j
            continue
        edge_after = _bounded(nodes[i + 1 :], after, end=False)
        if op is c.SUBPATTERN and not av[1] and not av[2]:
            out += _clauses(av[3], edge_before, edge_after)
        elif op is c.BRANCH:
            branches = [_clauses(b, edge_before, edge_after) for b in av[1]]
            if all(branches):  # one clause of each branch: any branch meets their union
                picked = [min(b, key=_weakness) for b in branches]
                either = frozenset().union(*(w for w, _ in picked))
                out.append((either, tuple(s for _, found in picked for s in found)))
        elif op in _REPEATS and av[0] >= 1:
            out += _clauses(av[2], edge_before and av[1] == 1, edge_after and av[1] == 1)
        i += 1
    return out


def _weakness(clause: Clause) -> tuple[int, int]:
    """Plain strings are weaker than whole words; more alternatives, weaker still."""
    return len(clause[1]), len(clause[0])


def _read(pattern: re.Pattern[str]) -> list[Clause]:
    """The pattern's clauses, or none (every text possible) when its parse cannot be read:
    ``re._parser`` is the standard library's own, private parser, so a Python that changes
    it leaves the batteries slower, never wrong."""
    try:
        return _clauses(p.parse(pattern.pattern, pattern.flags), False, False)
    except (AttributeError, IndexError, TypeError, ValueError):
        return []


@lru_cache(maxsize=4_096)
def _words_of(text: str) -> frozenset[str]:
    """The text's words, made once: several batteries ask of one sentence."""
    return frozenset(_WORD.findall(text))


@lru_cache(maxsize=4_096)
def _lowered(text: str) -> tuple[str, frozenset[str]]:
    """The text lower-cased and its words, made once for the case-blind batteries."""
    low = text.lower()
    return low, _words_of(low)


def _may_fold_to_ascii(text: str) -> bool:
    """Whether a case-blind pattern's ``text`` may match a character of plain ASCII text
    that it does not lower-case to ("K", the Kelvin sign, matches "k")."""
    return any(
        not ch.isascii() and any(x.isascii() for x in ch.lower() + ch.upper() + ch.casefold())
        for ch in text
    )


class Cues:
    """Whether a text may match any of some patterns (searched or matched from its start,
    with no ``pos``): ``False`` means none does. A pattern this cannot read (with no word or
    string it needs) leaves every text possible. When a pattern is case-blind, only plain
    ASCII text is ruled out, read lower-cased (so are the words: it can only let more
    texts through)."""

    __slots__ = (
        "_all",
        "_always",
        "_any",
        "_ascii_strings",
        "_blind",
        "_each",
        "_first",
        "_strings",
    )

    def __init__(self, *patterns: re.Pattern[str]) -> None:
        self._blind = any(pattern.flags & re.IGNORECASE for pattern in patterns)
        each = []
        for pattern in patterns:
            found = [] if pattern.flags & re.ASCII else _read(pattern)
            if self._blind:
                found = [
                    (frozenset(w.lower() for w in words), tuple(t.lower() for t in texts))
                    for words, texts in found
                    if not (
                        pattern.flags & re.IGNORECASE
                        and _may_fold_to_ascii("".join(words | set(texts)))
                    )
                ]
            each.append(found)
        self._all = frozenset(range(len(patterns)))
        self._always = frozenset(k for k, clauses in enumerate(each) if not clauses)
        """The patterns this cannot read: every text may match them."""
        # a clause's words and strings as one set, the fewest first: a string found in the
        # text counts as a word of it (it can only let more texts through)
        self._each: tuple[tuple[frozenset[str], ...], ...] = tuple(
            tuple(sorted((w | set(f) for w, f in cl), key=len)) for cl in each
        )
        self._strings = tuple(sorted({s for cl in each for _, found in cl for s in found}))
        self._ascii_strings = tuple(s for s in self._strings if s.isascii())  # ASCII text's
        # a match of a pattern meets its first (fewest) clause: the patterns a word may let in
        self._first: dict[str, tuple[int, ...]] = {}
        for k, clauses in enumerate(self._each):
            for word in clauses[0] if clauses else ():
                self._first[word] = (*self._first.get(word, ()), k)
        self._any = frozenset(self._first)

    def may_match(self, text: str) -> bool:
        """False when no pattern can match ``text``: a set of its words is missing."""
        if self._always or (self._blind and not text.isascii()):
            return True
        found = self._found(text)
        each = self._each
        for k in {k for word in found & self._any for k in self._first[word]}:
            if all(not found.isdisjoint(clause) for clause in each[k][1:]):
                return True
        return False

    def possible(self, text: str) -> frozenset[int]:
        """The indexes of the patterns that may match ``text`` (``may_match``, pattern by
        pattern): a battery of patterns asked of one text looks its words up once."""
        if self._blind and not text.isascii():
            return self._all
        found = self._found(text)
        each = self._each
        ks = {k for word in found & self._any for k in self._first[word]}
        return self._always.union(
            k for k in ks if all(not found.isdisjoint(clause) for clause in each[k][1:])
        )

    def _found(self, text: str) -> frozenset[str]:
        """The text's words (lower-cased when a pattern is case-blind) and the strings of
        the patterns' clauses it holds."""
        plain = text.isascii()
        text, found = _lowered(text) if self._blind else (text, _words_of(text))
        if strings := self._ascii_strings if plain else self._strings:
            found = found.union([s for s in strings if s in text])
        return found


class Battery:
    """Patterns asked of one text in turn: ``on(text)`` looks the text's words up once
    (``Cues.possible``), and each pattern is then searched only if it may match."""

    __slots__ = ("_cues", "_index")

    def __init__(self, *patterns: re.Pattern[str]) -> None:
        self._cues = Cues(*patterns)
        self._index = {id(pattern): k for k, pattern in enumerate(patterns)}

    def on(self, text: str) -> Possible:
        """The battery's patterns as they may match ``text``."""
        return Possible(text, self._cues.possible(text), self._index)


class Possible:
    """One text and the patterns of a ``Battery`` that may match it: false when none may."""

    __slots__ = ("_index", "_may", "text")

    def __init__(self, text: str, may: frozenset[int], index: dict[int, int]) -> None:
        self.text, self._may, self._index = text, may, index

    def __bool__(self) -> bool:
        return bool(self._may)

    def search(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """``pattern.search(text)``, None without searching when it cannot match."""
        return pattern.search(self.text) if self._index[id(pattern)] in self._may else None

    def match(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """``pattern.match(text)``, None without matching when it cannot match."""
        return pattern.match(self.text) if self._index[id(pattern)] in self._may else None
