"""Chinese words (jieba), loaded off the event loop the first time Chinese text is compacted.

jieba builds its tokenizer from a bundled dictionary (a file read, about a second)
on first use. Under ``langgraph dev``'s blocking-call checker that read must not
happen inside a run, and a process that never compacts Chinese (most servers and
tools, every English conversation) should not pay for it at all. So the async
entry points of compaction await ``ready_for(texts)``, which loads the tokenizer
in a worker thread once Chinese text shows up; ``segment`` itself is then pure
computation. Called before that (a script, a test), ``segment`` loads it in place.
jieba's start-up chatter ("Building prefix dict ...") stays out of the log, and
nothing is downloaded.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import warnings
from collections.abc import Iterable
from functools import lru_cache

with warnings.catch_warnings():  # an old jieba may import the deprecated pkg_resources
    warnings.simplefilter("ignore")
    import jieba

from aimind_memory.memory.compaction.analysis.sentences import has_chinese

__all__ = ["init_seconds", "is_loaded", "ready_for", "search_words", "segment", "words"]

jieba.setLogLevel(logging.WARNING)
_lock = threading.Lock()
_tokenizer: jieba.Tokenizer | None = None
_init_seconds: float | None = None


def _loaded() -> jieba.Tokenizer:
    global _tokenizer, _init_seconds
    if _tokenizer is None:
        with _lock:
            if _tokenizer is None:
                started = time.perf_counter()
                tokenizer = jieba.Tokenizer()
                tokenizer.initialize()
                _init_seconds = time.perf_counter() - started
                _tokenizer = tokenizer
    return _tokenizer


def is_loaded() -> bool:
    return _tokenizer is not None


def init_seconds() -> float | None:
    """How long building the tokenizer took in this process (None: not built yet)."""
    return _init_seconds


async def ready_for(texts: Iterable[str]) -> None:
    """Load the tokenizer in a worker thread if any of ``texts`` is Chinese and it is not
    loaded yet; a no-op otherwise."""
    if _tokenizer is None and any(has_chinese(text) for text in texts if text):
        await asyncio.to_thread(_loaded)


def segment(text: str) -> list[tuple[str, int]]:
    """The text's words with their offsets, spaces dropped (a new list of the cached cut)."""
    return list(_segmented(text))


@lru_cache(maxsize=8_192)
def _segmented(text: str) -> tuple[tuple[str, int], ...]:
    """jieba's cut, cached: the same sentence is cut by each rule that reads its words, and
    the summary's sentences again at every fold (jieba was a fifth of a fold's time)."""
    out: list[tuple[str, int]] = []
    offset = 0
    for word in _cut(text):
        if word.strip():
            out.append((word, offset))
        offset += len(word)
    return tuple(out)


_HAN = jieba.re_han_default
_SKIP = jieba.re_skip_default


def _cut(text: str) -> list[str]:
    """``jieba.lcut(text)`` (accurate mode, HMM on), each block of it cut once.

    jieba cuts a text block by block — runs of Chinese characters, Latin letters and
    digits between punctuation and spaces — and each block's words depend on that block
    alone; the rest it yields a space run or a character at a time. Here is that same
    loop (``jieba.Tokenizer.cut``), with the blocks' cuts cached: a sentence, its clauses
    and what is left of it once its values are taken out share most of their blocks, and
    cutting them was most of a Chinese fold's time.
    """
    out: list[str] = []
    for block in _HAN.split(text):
        if not block:
            continue
        if _HAN.match(block):
            out.extend(_cut_block(block))
            continue
        for piece in _SKIP.split(block):
            if _SKIP.match(piece):
                out.append(piece)
            else:
                out.extend(piece)  # a character at a time, as jieba does
    return out


@lru_cache(maxsize=16_384)
def _cut_block(block: str) -> tuple[str, ...]:
    """One block's words: jieba's own cut of a text that is just that block."""
    return tuple(_loaded().lcut(block))


def words(text: str) -> list[str]:
    """The text's words, spaces dropped."""
    return [word for word, _ in _segmented(text)]


def search_words(text: str) -> list[str]:
    """The text's words for a search index (the archive's, ``memory.archive.terms``): jieba's
    search mode, a long word and the shorter dictionary words in it, from the dictionary
    alone — no HMM guesses, so an unknown name is cut the same way in every sentence, at
    index time and at query time alike."""
    return [word for word in _loaded().cut_for_search(text, HMM=False) if word.strip()]
