"""``analysis.cues``: a prefilter never rules out a sentence one of its patterns matches."""

from __future__ import annotations

import json
import re
from pathlib import Path

from aimind_memory.memory.compaction.analysis import decisions_en, smalltalk, stance
from aimind_memory.memory.compaction.analysis.cues import Cues
from aimind_memory.memory.compaction.analysis.sentences import split_sentences

DATA = Path(__file__).parent / "data"


def _sentences() -> list[str]:
    """Every sentence of the labelled data (held-out change sets left out), as written and
    as the English rules read it."""
    texts: set[str] = set()
    for path in sorted(DATA.rglob("*.json*")):
        if "heldout4" in path.name:
            continue
        for found in re.findall(r'"((?:[^"\\]|\\.){3,400})"', path.read_text(encoding="utf-8")):
            try:
                texts.update(split_sentences(json.loads(f'"{found}"')))
            except json.JSONDecodeError:  # a string's tail read as a new one
                continue
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
