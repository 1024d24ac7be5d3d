"""The decision, small-talk and change rules' word lists are data
(``memory/compaction/analysis/*.toml``): each file parses, and every list in it is one its
module reads — a list no rule reads would be words that silently decide nothing."""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

from aimind_memory.memory.compaction.analysis import change_words
from aimind_memory.memory.compaction.analysis.wordlists import WordLists

ANALYSIS = Path(__file__).resolve().parents[2] / "memory" / "compaction" / "analysis"
LOADED = re.compile(r"""(\w+) = WordLists\(["'](\w+)["']\)""")
READ = re.compile(r"""(\w+)\.(?:either|words|characters|phrases|table)\(["'](\w+)["']\)""")
FILES = [
    "decisions_en",
    "decisions_zh",
    "booking_en",
    "booking_zh",
    "smalltalk_en",
    "smalltalk_zh",
    "stance_en",
    "stance_zh",
    "change_words",
    "why",
]


def lists_read() -> dict[str, set[str]]:
    """Per data file, the lists the rule modules read from it."""
    read: dict[str, set[str]] = defaultdict(set)
    for module in ANALYSIS.glob("*.py"):
        source = module.read_text(encoding="utf-8")
        files = dict(LOADED.findall(source))
        for variable, key in READ.findall(source):
            if variable in files:
                read[files[variable]].add(key)
    read["change_words"] |= {  # read by name: en_/zh_ + the list's name, where there is one
        f"{lang}_{name}"
        for lang, lists in change_words.SENTENCE_PHRASES.items()
        for name, phrases in lists.items()
        if phrases
    }
    return read


def test_every_sentence_list_is_in_a_language() -> None:
    """A name in ``SENTENCE_LISTS`` with a list in neither language is a misspelling."""
    for name in change_words.SENTENCE_LISTS:
        assert any(lists[name] for lists in change_words.SENTENCE_PHRASES.values()), name


def test_the_rules_have_their_word_lists_as_data() -> None:
    names = {f.stem for f in ANALYSIS.glob("*.toml")}
    assert names == set(FILES)
    assert set(lists_read()) == names


@pytest.mark.parametrize("name", FILES)
def test_every_list_is_read_by_its_rules(name: str) -> None:
    lists = tomllib.loads((ANALYSIS / f"{name}.toml").read_text(encoding="utf-8"))
    read = lists_read()[name]
    assert read == set(lists), (set(lists) - read, read - set(lists))
    assert all(lists.values()), "an empty list"


def test_a_missing_list_is_named() -> None:
    with pytest.raises(KeyError, match=r"decisions_en\.toml has no list 'nope'"):
        WordLists("decisions_en").either("nope")
    with pytest.raises(KeyError, match=r"change_words\.toml has no table 'en_failure'"):
        WordLists("change_words").table("en_failure")  # a list, not a table
