"""``analysis.cues``: a prefilter never rules out a sentence one of its patterns matches."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aimind_memory.memory.compaction.analysis import (
    condense,
    cues,
    decisions_en,
    smalltalk,
    stance,
    words,
)
from aimind_memory.memory.compaction.analysis.cues import Cues
from aimind_memory.memory.compaction.analysis.sentences import split_sentences

DATA = Path(__file__).parent / "data"


def _written() -> set[str]:
    """Every sentence of the labelled data (held-out change sets left out), as written."""
    texts: set[str] = set()
    for path in sorted(DATA.rglob("*.json*")):
        if "heldout5" in path.name:
            continue
        for found in re.findall(r'"((?:[^"\\]|\\.){3,400})"', path.read_text(encoding="utf-8")):
            try:
                texts.update(split_sentences(json.loads(f'"{found}"')))
            except json.JSONDecodeError:  # a string's tail read as a new one
                continue
    return texts


def _sentences() -> list[str]:
    """The sentences as written and as the English rules read them."""
    texts = _written()
    return sorted(texts | {decisions_en.normalised(t) for t in texts})


def test_never_rules_out_a_match() -> None:
    patterns = [
        v
        for m in (decisions_en, smalltalk, stance)
        for v in vars(m).values()
        if isinstance(v, re.Pattern)
    ]
    texts = _sentences()
    gated = 0
    for pattern in patterns:
        cues = Cues(pattern)
        for text in texts:
            if pattern.search(text):
                assert cues.may_match(text), (pattern.pattern, text)
            gated += not cues.may_match(text)
    assert gated > len(texts) * len(patterns) / 2  # and it does rule most out


def test_words_are_whole_words() -> None:
    cues = Cues(re.compile(r"\bwe\s+(?:will|shall)\b"))
    assert cues.may_match("so we will go")
    assert not cues.may_match("we went, as weather willing")  # "will" only inside a word
    assert not cues.may_match("they will go")
    assert Cues(re.compile(r"options?\b")).may_match("vegetarian options")  # no bound: a string
    assert Cues(re.compile(r"\d+")).may_match("anything")  # nothing to look for: all pass


def _clear_caches() -> None:
    """Forget every answer the analysis cached: the same sentences are asked again."""
    for module in (condense, cues, decisions_en, smalltalk, stance, words):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()


def _answers(texts: list[str]) -> list[tuple[object, ...]]:
    """What each guarded battery answers of each text (the English rules read the
    normalised form, as ``decisions_en`` hands it to them)."""
    _clear_caches()
    out = []
    for raw in texts:
        s = decisions_en.normalised(raw)
        out.append(
            (
                decisions_en.decision_strength(raw),
                smalltalk.english(s, raw),
                stance.english(s, raw),
                condense.condense(raw),
                words.content_words(raw),
                words.anchors(raw),
            )
        )
    _clear_caches()
    return out


def test_a_guard_only_saves_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern added to a guarded function but not to its ``Cues(...)`` would be skipped
    on every text the cues rule out: with every cue let through, each battery (decision
    frames, small talk, stance, condensing, greetings, anchors) answers the same."""
    texts = sorted(_written())
    guarded = _answers(texts)
    monkeypatch.setattr(Cues, "may_match", lambda self, text: True)
    for text, before, after in zip(texts, guarded, _answers(texts), strict=True):
        assert before == after, text
