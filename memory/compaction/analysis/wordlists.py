"""The rule modules' word lists, kept as data: one TOML file per module and language.

A rule module (``decisions_en``, ``decisions_zh``) is small frame functions and
patterns; the words its patterns accept or reject live in ``<module>.toml`` beside
it, read once when the module is imported (never inside a graph node: ``langgraph
dev`` checks nodes for blocking calls). Each list is either a set of words
(``words``) or the alternatives of one pattern, tried in the file's order
(``either``; an alternative is a regular expression, mostly a plain word or phrase),
written as an array or as a text of words whitespace apart; ``change_words`` also reads
phrase lists kept in order (``phrases``) and tables of a word and what it stands for
(``table``).
"""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

_PACKAGE = "aimind_memory.memory.compaction.analysis"
"""Where the data files are: beside the rule modules."""


class WordLists:
    """The named lists of one data file."""

    def __init__(self, name: str) -> None:
        text = resources.files(_PACKAGE).joinpath(f"{name}.toml").read_text(encoding="utf-8")
        self._lists: dict[str, Any] = tomllib.loads(text)
        self.name = name

    def __contains__(self, key: str) -> bool:
        """The file has a list ``key``."""
        return key in self._lists

    def _list(self, key: str) -> list[str]:
        """A list: an array of alternatives, or a text of words whitespace apart."""
        try:
            found = self._lists[key]
        except KeyError:
            raise KeyError(f"{self.name}.toml has no list {key!r}") from None
        return found.split() if isinstance(found, str) else found

    def either(self, key: str) -> str:
        """The list as one regular-expression alternation, in its order."""
        return "|".join(self._list(key))

    def characters(self, key: str) -> str:
        """The list's one-character words as the body of a character class."""
        return "".join(self._list(key))

    def words(self, key: str) -> frozenset[str]:
        """The list as a set of words."""
        return frozenset(self._list(key))

    def phrases(self, key: str) -> tuple[str, ...]:
        """The list as it is written, in its order."""
        return tuple(self._list(key))

    def table(self, key: str) -> dict[str, Any]:
        """A table (``[key]``): each word and what it stands for, in the file's order."""
        found = self._lists.get(key)
        if not isinstance(found, dict):
            raise KeyError(f"{self.name}.toml has no table {key!r}")
        return dict(found)
