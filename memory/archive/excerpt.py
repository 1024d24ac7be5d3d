"""The part of a long archived message that a recall quotes: around the query's words.

A message longer than its share of the recall budget is cut to the window of that size
holding the most of the query's words (the most different ones first, then the most
occurrences), moved to word boundaries where there are spaces, and marked where it was
cut. Whatever it returns fits ``size``.
"""

from __future__ import annotations

from collections.abc import Sequence

ELLIPSIS = "…"
_SNAP = 24
"""How far a cut moves to reach a space (a Chinese text has none: cut where it falls)."""


def _positions(text: str, terms: Sequence[str]) -> list[tuple[int, str]]:
    lowered = text.casefold()
    if len(lowered) != len(text):  # a fold that changed lengths: find them as written
        lowered = text
    found = []
    for term in terms:
        start = lowered.find(term)
        while start != -1:
            found.append((start, term))
            start = lowered.find(term, start + 1)
    return sorted(found)


def _best_start(found: list[tuple[int, str]], size: int, length: int) -> int:
    """Where the window of ``size`` covering the most (distinct, then all) words starts."""
    best, best_key, right = 0, (0, 0), 0
    for left, (start, _) in enumerate(found):
        right = max(right, left)
        while right + 1 < len(found) and found[right + 1][0] < start + size:
            right += 1
        inside = found[left : right + 1]
        key = (len({t for _, t in inside}), len(inside))
        if key > best_key:
            span = inside[-1][0] + len(inside[-1][1]) - start
            best, best_key = max(0, start - max(0, size - span) // 3), key
    return min(best, max(0, length - size))


def excerpt(text: str, terms: Sequence[str], size: int) -> str:
    """``text`` if it fits ``size`` characters, else its best window of ``size``."""
    if len(text) <= size:
        return text
    if size <= 2 * len(ELLIPSIS):
        return text[:size]
    room = size - 2 * len(ELLIPSIS)
    start = _best_start(_positions(text, terms), room, len(text))
    end = start + room
    if start > 0:
        space = text.find(" ", start, start + _SNAP)
        if space != -1:
            start = space + 1
    if end < len(text):
        space = text.rfind(" ", max(start, end - _SNAP), end)
        if space > start:
            end = space
    body = text[start:end].strip()
    return (ELLIPSIS if start > 0 else "") + body + (ELLIPSIS if end < len(text) else "")
