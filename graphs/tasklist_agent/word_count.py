"""Counting words in English, Chinese and mixed text.

Chinese and Japanese are written without spaces, so counting whitespace-separated
pieces calls a whole Chinese sentence one word. Here a run of CJK characters
counts one word per ``CJK_CHARS_PER_WORD`` characters (modern Chinese words are
mostly two characters long), and any other run of letters or digits counts one
word (``don't`` and ``well-known`` included); punctuation is no word.
"""

from __future__ import annotations

import math
import re

__all__ = ["CJK_CHARS_PER_WORD", "word_count"]

CJK_CHARS_PER_WORD = 2
_CJK = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf"  # CJK Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\U00020000-\U0003134f"  # CJK Extensions B-G
)
_WORD = re.compile(rf"(?P<cjk>[{_CJK}]+)|[^\W{_CJK}]+(?:['’-][^\W{_CJK}]+)*")


def word_count(text: str) -> int:
    """Roughly how many words ``text`` has, whatever its script."""
    return sum(
        math.ceil(len(m["cjk"]) / CJK_CHARS_PER_WORD) if m["cjk"] else 1
        for m in _WORD.finditer(text)
    )
