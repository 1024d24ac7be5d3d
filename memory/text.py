"""Plain-text helpers shared by the memory rules: normalising and capping text."""

from __future__ import annotations

import hashlib
import re

from aimind_memory.memory.config.limits import TRUNCATION_MARKER

_UNSTORABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
"""Control characters but tab and line breaks, and surrogates (in a ``str`` always lone)."""


def clean_text(value: object) -> str | None:
    """The text worth storing, or None when it is not a non-blank string.

    For message text and model output alike (contract §5): NUL and lone surrogates
    cannot be stored by every backend (Postgres rejects both, and its error
    quotes the text), and other control characters are noise in plain text, so
    all are dropped rather than failing the write.
    """
    if not isinstance(value, str):
        return None
    text = storable_text(value).strip()
    return text or None


def storable_text(value: str) -> str:
    """``value`` without the characters no backend stores (see ``clean_text``)."""
    return _UNSTORABLE.sub("", value)


_ID_UNSTORABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
"""In an id, any control character (and a surrogate, in a ``str`` always lone)."""
STAND_IN_ID_PREFIX = "id-"


def storable_id(value: str) -> str:
    """``value`` if it can be stored as an id everywhere, else a stable stand-in for it.

    NUL and lone surrogates cannot be stored by every backend (PostgreSQL's ``jsonb``
    and ``text`` reject both, and the id of a message ends up in checkpoint metadata),
    and other control characters are noise in an id. Stripping them could turn two ids
    into one (and a turn into a "duplicate"); the stand-in, a digest of the whole id,
    is the same each time, so a retried turn is still known by its ids.
    """
    if not _ID_UNSTORABLE.search(value):
        return value
    digest = hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=16)
    return STAND_IN_ID_PREFIX + digest.hexdigest()


def truncate(text: str, cap: int) -> str:
    """Cut ``text`` to at most ``cap`` characters, marking the cut (contract §6)."""
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
    # str.split's whitespace is \s's: runs collapsed and the ends stripped, without a regex
    return " ".join(text.casefold().split()).rstrip(".!?。！？;；").strip()


def word_set(text: str) -> frozenset[str]:
    """A word list written as text, whitespace apart (how the rule modules spell theirs)."""
    return frozenset(text.split())
