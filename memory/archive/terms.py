"""The words of archived text and of queries: one tokenizer for every backend.

Storage indexes the words it is given (``memory.storage.archive``), so what matches
what is decided here, once: SQLite's FTS5, PostgreSQL's ``tsvector`` and the
in-memory archive hold the same words and a query finds the same messages on each.

- Text is NFKC-normalized and case-folded ("Ｐａｒｉｓ", "PARIS" and "paris" are one
  word); a word is a run of letters and digits (``_``, marks and punctuation split).
- Chinese has no spaces: its runs are cut by jieba's search mode from its dictionary
  alone (``segmenter.search_words``), the same at index and at query time, so "海底捞"
  in a question finds "我们去海底捞吃饭" and an unknown name, cut into characters
  the same way everywhere, still matches itself.
- A query drops function words (the compactor's word lists, English and Chinese) and
  single Latin letters ("s" and "t" of "it's", "don't"): they would match nearly every
  message and say nothing about which one is meant. A query of nothing else recalls
  nothing. The index keeps every word (BM25 weighs the common ones down) up to
  ``WORD_MAX_CHARS``: a longer run (a pasted blob, a hash, "xxxx…") is no word anyone asks
  for, and PostgreSQL refuses a lexeme over 2 KB, which would fail the turn's write.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from aimind_memory.memory.compaction.analysis.segmenter import ready_for, search_words
from aimind_memory.memory.compaction.analysis.words import EN_STOPWORDS, ZH_STOPWORDS
from aimind_memory.memory.config.limits import RECALL_QUERY_TERMS

__all__ = ["query_terms", "ready", "words"]

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W_]+")
_LATIN_LETTER = re.compile(r"[a-z]")
_FUNCTION_WORDS = EN_STOPWORDS | ZH_STOPWORDS
WORD_MAX_CHARS = 64
"""The longest word indexed or asked for (a longer run of letters is left out)."""


async def ready(texts: Iterable[str]) -> None:
    """Load jieba off the event loop if any of ``texts`` needs it (a no-op otherwise)."""
    await ready_for(texts)


def words(text: str) -> list[str]:
    """The text's words, in order, as the archive's index holds them."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    at = 0
    for run in _HAN.finditer(folded):
        out += _WORD.findall(folded, at, run.start())
        out += [w for w in search_words(run.group()) if _WORD.fullmatch(w)]
        at = run.end()
    out += _WORD.findall(folded, at)
    return [w for w in out if len(w) <= WORD_MAX_CHARS]


def query_terms(text: str) -> list[str]:
    """The distinct words of a query that say what it is about, first ones first, at
    most ``RECALL_QUERY_TERMS``."""
    kept: dict[str, None] = {}
    for word in words(text):
        if word in _FUNCTION_WORDS or _LATIN_LETTER.fullmatch(word):
            continue
        kept[word] = None
        if len(kept) == RECALL_QUERY_TERMS:
            break
    return list(kept)
