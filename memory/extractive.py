"""The deterministic compactor: no model, used as fallback and when none is configured."""

from __future__ import annotations

import re

from memory.compaction import CompactionRequest
from memory.limits import MemoryLimits
from memory.models import CompactionOutput
from memory.text import clip

DECISION_WORDS_EN = (
    "decided",
    "decision",
    "we will",
    "we won't",
    "must",
    "must not",
    "do not",
    "don't",
    "never",
    "always",
    "agreed",
    "confirmed",
)
DECISION_WORDS_ZH = ("决定", "确认", "不做", "必须", "不要", "约定", "拍板", "不再", "坚持")
_DECISION_EN = re.compile(
    r"\b(?:" + "|".join(re.escape(w).replace("'", "['’]") for w in DECISION_WORDS_EN) + r")\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?。！？；;\n]+[.!?。！？；;]?")
_LINE_TEXT_CHARS = 160


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def is_decision(sentence: str) -> bool:
    """Decision-like: states a choice or a rule, in English or Chinese; questions are not."""
    if sentence.rstrip().endswith(("?", "？")):
        return False
    return bool(_DECISION_EN.search(sentence)) or any(w in sentence for w in DECISION_WORDS_ZH)


class ExtractiveCompactor:
    """Pins the user's decision-like sentences and summarises each folded turn in one line."""

    name = "extractive"
    inline = True
    """Fast and local: it folds within the write that overflows the window (SPEC §5)."""

    def __init__(self, limits: MemoryLimits | None = None) -> None:
        self.limits = limits or MemoryLimits()

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        return self.compact_sync(request)

    def compact_sync(self, request: CompactionRequest) -> CompactionOutput:
        pins = [
            sentence
            for message in request.folded
            if message.role == "user"
            for sentence in sentences(message.text)
            if is_decision(sentence)
        ]
        lines = [line for line in request.summary.splitlines() if line.strip()]
        for message in request.folded:
            first = sentences(message.text)
            gist = clip(first[0] if first else message.text, _LINE_TEXT_CHARS)
            lines.append(f"- {'User' if message.role == 'user' else 'Assistant'}: {gist}")
        while len(lines) > 1 and len("\n".join(lines)) > self.limits.summary_chars:
            lines.pop(0)  # the oldest background goes first
        summary = clip("\n".join(lines), self.limits.summary_chars)
        return CompactionOutput(summary=summary, pinned_decisions=pins)
