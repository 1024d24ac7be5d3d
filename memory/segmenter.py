"""Chinese words (jieba), ready at import so no compaction ever reads a file on the event loop.

jieba loads its bundled dictionary lazily on first use (a file read, plus a cache
written to the temp dir): under ``langgraph dev``'s blocking-call checker that
would fail inside a run. Importing this module builds a private tokenizer at
once — server start imports it off the loop — and keeps jieba's start-up chatter
("Building prefix dict ...") out of the log. Nothing is downloaded.
"""

from __future__ import annotations

import logging
import time
import warnings

with warnings.catch_warnings():  # an old jieba may import the deprecated pkg_resources
    warnings.simplefilter("ignore")
    import jieba

jieba.setLogLevel(logging.WARNING)
_started = time.perf_counter()
_TOKENIZER = jieba.Tokenizer()
_TOKENIZER.initialize()
INIT_SECONDS = time.perf_counter() - _started
"""How long building the tokenizer took in this process (reported by the recall bench)."""


def segment(text: str) -> list[tuple[str, int]]:
    """The text's words with their offsets, spaces dropped; pure computation once imported."""
    out: list[tuple[str, int]] = []
    offset = 0
    for word in _TOKENIZER.lcut(text):
        if word.strip():
            out.append((word, offset))
        offset += len(word)
    return out


def words(text: str) -> list[str]:
    """The text's words, spaces dropped."""
    return [word for word, _ in segment(text)]
