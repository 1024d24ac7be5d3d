"""Plain-text helpers shared by the memory rules: normalising and capping text."""

from __future__ import annotations

import re

from memory.limits import TRUNCATION_MARKER

_WS = re.compile(r"\s+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(value: object) -> str | None:
    """The text worth storing, or None when it is not a non-blank string.

    NUL bytes and lone surrogates cannot be stored by every backend (Postgres
    rejects both), so they are dropped rather than failing the write.
    """
    if not isinstance(value, str):
        return None
    text = value.replace("\x00", "")
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    text = text.strip()
    return text or None


def truncate(text: str, cap: int) -> str:
    """Cut ``text`` to at most ``cap`` characters, marking the cut (SPEC §6)."""
    if len(text) <= cap:
        return text
    return text[: cap - len(TRUNCATION_MARKER)].rstrip() + TRUNCATION_MARKER


def clip(text: str, cap: int) -> str:
    """Cut ``text`` to ``cap`` characters at a sentence, else word, else char boundary."""
    text = text.strip()
    if len(text) <= cap:
        return text
    head = text[:cap]
    sentence_end = max(head.rfind(p) for p in (". ", "! ", "? ", "。", "！", "？", "\n"))
    if sentence_end >= cap // 2:
        return head[: sentence_end + 1].rstrip()
    space = head.rfind(" ")
    if space >= cap // 2:
        return head[:space].rstrip()
    return head.rstrip()


def normalize(text: str) -> str:
    """A comparison key: case-folded, whitespace collapsed, trailing punctuation dropped."""
    return _WS.sub(" ", text.casefold()).strip().rstrip(".!?。！？;；").strip()


def word_set(text: str) -> frozenset[str]:
    """A word list written as text, whitespace apart (how the rule modules spell theirs)."""
    return frozenset(text.split())
