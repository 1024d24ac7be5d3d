"""Sentences of chat text, English and Chinese, without cutting "Node.js", "v2.1" or "e.g."."""

from __future__ import annotations

import re
from functools import lru_cache

from aimind_memory.memory.text import word_set

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_TERMINATOR = re.compile(r"[.!?。！？…]+[\"'”’」』）)\]]*")
_FULL_STOP = re.compile(r"[。！？]")
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)、])\s+")
_LETTERS_AND_DOTS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz."
_NEXT_TEXT = re.compile(r"\s*(\S)")
_GOES_ON = frozenset(";,:)]}，；：、")
_QUOTE_PAIRS = (('"', '"'), ("“", "”"), ("「", "」"), ("『", "』"))
ABBREVIATIONS = word_set(
    "e.g i.e etc vs mr mrs ms dr prof st jr sr approx cf al a.m p.m u.s u.k inc ltd co fig dept"
)
"""Words whose trailing dot does not end a sentence ("No." is one only before a number)."""


_LATIN_WORD = re.compile(r"[A-Za-z]+")


def has_chinese(text: str) -> bool:
    """Whether ``text`` has any Chinese character at all."""
    return _CJK.search(text) is not None


@lru_cache(maxsize=8_192)
def is_chinese(text: str) -> bool:
    """Whether the Chinese rules apply: more Chinese characters than Latin words.

    "数据库最终用 PostgreSQL" is Chinese; "We meet at 王府井" is English. Cached: every
    rule asks it again of the same sentence (a fold asked it of one sentence dozens of
    times).
    """
    cjk = len(_CJK.findall(text))
    return cjk > 0 and cjk >= len(_LATIN_WORD.findall(text))


def _ends_sentence(line: str, match: re.Match[str]) -> bool:
    punct = match.group()
    after = line[match.end() : match.end() + 1]
    if not after:
        return True
    if after in _GOES_ON:
        return False  # '"…网页版。"; 2 recent turns': the sentence goes on
    if _FULL_STOP.search(punct) or _CJK.match(after):
        return True
    if not after.isspace():
        return False  # Fly.io, v2.1, 3.5, e.g.x, ?!
    if "!" in punct or "?" in punct or "…" in punct or punct.startswith(".."):
        return True
    head = line[: match.start()]
    # the word before the stop: its trailing run of letters and dots, from its first letter
    token = head[len(head.rstrip(_LETTERS_AND_DOTS)) :].lstrip(".")
    if not token:
        return True
    if len(token) == 1 and token.isupper():
        return False  # an initial: J. K. Rowling
    if token.lower() == "no":
        following = _NEXT_TEXT.match(line, match.end())
        return not (following and following.group(1).isdigit())
    return token.lower() not in ABBREVIATIONS


def _inside_quote(line: str, start: int, end: int) -> bool:
    """Whether ``end`` falls inside a quotation that closes later on the line.

    A quoted message ('Your latest message: "Hi! We decided …"') stays one
    sentence; a stray quote mark that never closes does not stop the splitting.
    """
    for opening, closing in _QUOTE_PAIRS:
        opened = line.count(opening, start, end)
        if opening == closing:
            if opened % 2 and line.find(opening, end) >= 0:
                return True
        elif opened > line.count(closing, start, end) and line.find(closing, end) >= 0:
            return True
    return False


def split_sentences(text: str) -> list[str]:
    """The text's sentences in order; line breaks and list bullets end one too.

    A new list each call (the caller may change it) of the cached split: a message is
    split when its decisions are read, again when it answers an offer, and the
    summary's lines at every fold. Keyed by whole messages (up to ``MESSAGE_CHAR_CAP``), so
    the cache is kept small.
    """
    return list(_split(text))


@lru_cache(maxsize=1_024)
def _split(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for raw_line in text.splitlines():
        line = _BULLET.sub("", raw_line).strip()
        start = 0
        for match in _TERMINATOR.finditer(line):
            if _ends_sentence(line, match) and not _inside_quote(line, start, match.end()):
                if piece := line[start : match.end()].strip():
                    out.append(piece)
                start = match.end()
        if rest := line[start:].strip():
            out.append(rest)
    return tuple(out)
