"""The deterministic compactor: no model, used as fallback and when none is configured.

It pins every sentence of the folded turns — the user's or the assistant's —
that states a decision (``memory.compaction.analysis.decisions``), unless it only restates one
already pinned, and merges the rest into the summary by salience
(``analysis.summary``). Offline and deterministic; no file or network I/O, so it runs
inside the event loop (jieba is loaded off it first, ``analysis.segmenter.ready_for``).
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.compaction import CompactionRequest
from memory.compaction.analysis.decisions import decision_strength, is_bare_confirmation
from memory.compaction.analysis.segmenter import ready_for
from memory.compaction.analysis.sentences import is_chinese, split_sentences
from memory.compaction.analysis.summary import merge_summary
from memory.compaction.analysis.words import content_words
from memory.compaction.pins import merge_pins
from memory.limits import MemoryLimits
from memory.models import ChatThreadMessage, CompactionOutput
from memory.text import normalize

RESTATED_SHARE = 0.7
"""A decision whose content words are this much covered by an earlier pin restates it
("Understood: PostgreSQL in production." after "We decided to use PostgreSQL in production.")."""


def _restates(key: str, words: set[str], earlier: list[tuple[str, set[str]]]) -> bool:
    """Said before: contained in an earlier pin, or mostly its words and no new number."""

    def covered(old_words: set[str]) -> bool:
        new = words - old_words
        if any(ch.isdigit() for word in new for ch in word):
            return False  # "item 7" after "item 6" is a new decision
        return bool(words) and len(words & old_words) >= RESTATED_SHARE * len(words)

    return any(key in old_key or covered(old_words) for old_key, old_words in earlier)


def decision_sentences(text: str) -> list[str]:
    """The message's sentences that state a decision, in order.

    A bare confirmation ("Booked!", "预订成功。") takes the sentence after it as its
    object: "Booked! Your reference number is 7GAWK763." is one decision.
    """
    sentences = split_sentences(text)
    out: list[str] = []
    i = 0
    while i < len(sentences):
        sentence = sentences[i]
        if is_bare_confirmation(sentence) and i + 1 < len(sentences):
            after = sentences[i + 1]
            joined = sentence + ("" if is_chinese(sentence) else " ") + after
            if decision_strength(joined) > 0:
                out.append(joined)
                i += 2
                continue
        if decision_strength(sentence) > 0:
            out.append(sentence)
        i += 1
    return out


def new_pins(folded: Sequence[ChatThreadMessage], pinned: Sequence[str]) -> list[str]:
    """The folded turns' decisions, in order, that no earlier pin already states."""
    earlier = [(normalize(p), set(content_words(p))) for p in pinned]
    out: list[str] = []
    for message in folded:
        for sentence in decision_sentences(message.text):
            key, words = normalize(sentence), set(content_words(sentence))
            if not _restates(key, words, earlier):
                earlier.append((key, words))
                out.append(sentence)
    return out


class ExtractiveCompactor:
    """Pins stated decisions from either side and keeps the folded turns' facts in the summary."""

    name = "extractive"
    inline = True
    """Fast and local: it folds within the write that overflows the window (SPEC §5)."""

    def __init__(self, limits: MemoryLimits | None = None) -> None:
        self.limits = limits or MemoryLimits()

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        await ready_for(request.texts())  # jieba, off the loop, for Chinese text
        return self.compact_sync(request)

    def compact_sync(self, request: CompactionRequest) -> CompactionOutput:
        pins = new_pins(request.folded, request.pinned_decisions)
        summary = merge_summary(
            request.summary,
            request.folded,
            known=merge_pins(request.pinned_decisions, pins, self.limits),  # the pins to be
            limit=self.limits.summary_chars,
            kept=[m.text for m in request.kept],
        )
        return CompactionOutput(summary=summary, pinned_decisions=pins)
