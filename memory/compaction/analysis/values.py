"""Typed values in a sentence: what two decisions are compared by (``statements``).

A value is typed by its kind: a number of people, a date, a time of day, a
duration, an amount of money, a way of travelling (fly, drive, 坐高铁), a colour, which one
of a kind ("kiosk 1", "gate 12", "option 2"), a name or tool (capitalised or Latin words:
"PostgreSQL", "Lotus Garden"), other numbers and codes. "Table for 4" and "make it 6
people" hold people 4 and 6; "周二上午十点" and "周四下午三点" dates and times; "half past 5
in the evening" is 17:30. A date said more or less fully is one date ("the 9th", "March
9th", "9号", "3月9日"). Times and dates said in words are read by ``timewords``; the words
of each kind are data (``change_words``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from aimind_memory.memory.compaction.analysis import change_words as cw
from aimind_memory.memory.compaction.analysis import timewords as tw
from aimind_memory.memory.compaction.analysis.words import EN_STOPWORDS

DETAIL_KINDS = frozenset({"time", "date", "people", "duration"})
"""The details of an arrangement: when, for how many, for how long. A decision that gives
only these sets the thing it answers; an answer that gives one is not a bare yes."""
_CODE = re.compile(r"^(?=[A-Za-z-]*\d)(?=\d*[A-Za-z])[A-Za-z0-9-]{4,}$|^[A-Z]{6,}$")
"""A reference or booking code ("RVESWV8I", "TR8912"): not a name to tell things apart by."""
RELATIVE_DAYS = frozenset(cw.EN_RELATIVE_DAYS) | frozenset(cw.ZH_RELATIVE_DAYS)
"""Days said relative to now ("today", "明天"): the same day as a weekday or date may be."""


def _values(
    patterns: Sequence[tuple[str, re.Pattern[str]]],
    value: Callable[[str, re.Match[str]], str | None],
    text: str,
    blank: str,
) -> tuple[list[tuple[str, str]], str]:
    """Every typed value the patterns find, in their order, and the text without them.

    A pattern that found nothing leaves the text as it is: it is not run again to blank
    what is not there (most sentences hold one kind of value or none).
    """
    found: list[tuple[str, str]] = []
    for kind, pattern in patterns:
        matched = False
        for m in pattern.finditer(text):
            matched = True
            if (v := value(kind, m)) is not None:
                found.append((kind, v))
        if matched:
            text = pattern.sub(blank, text)
    return found, text


_EN_NUM = r"(\d+|" + "|".join(cw.NUMBER_WORDS) + r")"
_EN_VALUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("time", tw.EN_TIME),
    (
        "money",
        re.compile(
            r"([$€£¥])\s?(\d[\d,]*(?:\.\d+)?)\s*(k|m)?\b|"
            r"\b(\d[\d,]*(?:\.\d+)?)\s*(k)?\s*(?:dollars|euros|pounds|bucks|usd|eur|gbp)\b"
        ),
    ),
    (
        "people",
        re.compile(
            rf"\b{_EN_NUM}\s+(?:" + "|".join(cw.EN_PEOPLE_UNITS) + r")\b|"
            rf"\bparty of {_EN_NUM}\b|"
            rf"\bfor {_EN_NUM}(?=\s*(?:at|on|tonight|tomorrow|this|next|from|starting|"
            r"beginning|please|instead|[,.;!]|$))(?!\s*\.\d)|"
            + "(?:"
            + "|".join(f"(?<={w} )" for w in cw.EN_PEOPLE_AFTER)
            + rf")for\s+{_EN_NUM}\b(?!\s*(?:nights?|days?|hours?|weeks?|months?|am\b|pm\b|o'clock|"
            r"th\b|st\b|nd\b|rd\b|:\d|\.\d|[$%]))"
        ),
    ),
    (
        "duration",
        re.compile(rf"\b{_EN_NUM}\s+(" + "|".join(cw.EN_DURATION_UNITS) + r")\b"),
    ),
    ("date", tw.EN_DATE),
    (
        "travel",
        re.compile(
            r"\b("
            + "|".join(sorted(map(re.escape, cw.EN_TRAVEL_MODES), key=len, reverse=True))
            + r")\b"
        ),
    ),
    ("colour", re.compile(r"\b(" + "|".join(sorted(cw.EN_COLOURS)) + r")\b")),
    (
        "id",
        re.compile(
            r"\b(" + "|".join(sorted(cw.EN_ID_NOUNS)) + r")\s+(?:no\.?\s*|number\s+|#\s*)?"
            r"(\d+[a-z]?)\b(?![:.,]\d)"
        ),
    ),
    ("number", re.compile(r"(?<![\w:.$€£¥])(\d+(?:[.,]\d+)*)(?![\w:])")),
)
_COUNTED_KINDS = frozenset({"money", "people", "duration", "id", "number"})
"""Kinds every pattern of which needs a digit or a number word (``_EN_NUM``)."""
_EN_UNCOUNTED = tuple((k, p) for k, p in _EN_VALUES if k not in _COUNTED_KINDS)
"""The value patterns that may match a text with neither; the others find nothing there
(and blanking what is found writes a space, never a digit), so they are not run."""
_COUNTED = re.compile(r"\d|" + "|".join(cw.NUMBER_WORDS))
_EN_TOKEN = re.compile(r"[A-Za-z][\w.&'+#-]*[\w+#]|[A-Za-z]")
_INNER_CAPS = re.compile(r"^(?:[A-Z]{2,}s?|[A-Za-z]*[a-z][A-Z][\w.+#-]*|[A-Za-z]+\.[a-z]{2,})$")
_NAME_JOINERS = frozenset({"of", "de", "la", "&"})
_CLITIC = re.compile(r"'(?:m|s|re|ll|ve|d)$")

_ZH_NUM = tw.ZH_NUM
_ZH_VALUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "money",
        re.compile(
            rf"{_ZH_NUM}(?:\.(\d+))?\s*(万|千)?\s*(?:元|块|美元|欧元)|{_ZH_NUM}\s*万(?![人个])"
        ),
    ),
    ("date", tw.ZH_DATE),
    ("time", tw.ZH_TIME),
    (
        "people",
        re.compile(rf"{_ZH_NUM}\s*(?:" + "|".join(cw.ZH_PEOPLE_UNITS) + r")(?![民员生家士物们次])"),
    ),
    (
        "duration",
        re.compile(
            rf"{_ZH_NUM}\s*(" + "|".join(sorted(cw.ZH_DURATION_UNITS, key=len, reverse=True)) + r")"
        ),
    ),
    ("travel", re.compile("(" + "|".join(cw.ZH_TRAVEL_MODES) + ")")),
    ("colour", re.compile("(" + "|".join(cw.ZH_COLOURS) + ")")),
    ("name", re.compile(r"[A-Za-z][A-Za-z0-9.+#-]*(?:\s+[A-Z][A-Za-z0-9.+#-]*)*")),
    ("number", re.compile(r"(\d+(?:\.\d+)?)")),
)


def _en_value(kind: str, m: re.Match[str]) -> str | None:
    g = [x for x in m.groups()]
    if kind == "money":
        amount = (g[1] or g[3] or "").replace(",", "")
        scale = {"k": 1_000, "m": 1_000_000}.get(g[2] or g[4] or "", 1)
        return f"{float(amount) * scale:g}" if amount else None
    if kind in ("people", "duration"):
        number = next((tw.en_int(x) for x in g if x and tw.en_int(x) is not None), None)
        if number is None:
            return None
        return f"{number} {cw.EN_DURATION_UNITS[g[1]]}" if kind == "duration" else str(number)
    if kind == "time":
        return tw.en_time(m.group())
    if kind == "travel":
        return cw.EN_TRAVEL_MODES[g[0]]
    if kind == "date":
        return tw.en_date(m)
    if kind == "id":
        return f"{g[0]} {g[1]}"
    return g[0]


def _zh_value(kind: str, m: re.Match[str]) -> str | None:
    g = m.groups()
    if kind == "money":
        number = tw.zh_int(g[0] or g[3] or "")
        if number is None:
            return None
        scale = {"万": 10_000, "千": 1_000}.get(g[2] or "", 1) if g[0] else 10_000
        return f"{(number + float('0.' + g[1]) if g[1] else number) * scale:g}"
    if kind == "date":
        return tw.zh_date(m)
    if kind == "time":
        return tw.zh_time(m)
    if kind in ("people", "duration"):
        number = tw.zh_int(g[0])
        if number is None:
            return None
        return str(number) if kind == "people" else f"{number} {cw.ZH_DURATION_UNITS[g[1]]}"
    if kind == "name":
        return None if _CODE.match(m.group().strip()) else m.group().strip().lower()
    if kind == "travel":
        return cw.ZH_TRAVEL_MODES[g[0]]
    return g[0] if g else m.group()


_SENTENCE_END = re.compile(r"[.!?]\s*$")


def _en_names(text: str) -> set[str]:
    """Capitalised runs after a sentence's first word, and acronyms or inner capitals
    anywhere: "Lotus Garden", "GitHub Actions", "AWS", "Fly.io" — not weekdays, months, "I"
    or the first word of a sentence said after another ("No. Thanks.")."""
    out: set[str] = set()
    run: list[str] = []
    end = -1
    for i, m in enumerate(_EN_TOKEN.finditer(text)):
        word = m.group()
        plain = word.lower()
        if "'" in plain:  # "I'm", "We'll": a pronoun, not a name
            plain = _CLITIC.sub("", plain)
        capitalised = word[0].isupper() and plain not in EN_STOPWORDS
        first = i == 0 or _SENTENCE_END.search(text, 0, m.start()) is not None
        named = (_INNER_CAPS.match(word) or (not first and capitalised)) and not _unit(text, m)
        joined = run and m.start() == end + 1
        if named and (joined or not run):
            run.append(word)
        elif named:
            out.add(" ".join(run))
            run = [word]
        elif run and joined and word in _NAME_JOINERS:
            run.append(word)
        elif run:
            out.add(" ".join(run))
            run = []
        end = m.end()
    if run:
        out.add(" ".join(run))
    names = set()
    for raw in out:
        if _CODE.match(raw):
            continue
        name = raw.lower().removesuffix("'s").removeprefix("the ").strip(" .'")
        for joiner in _NAME_JOINERS:
            name = name.removesuffix(f" {joiner}")
        plain = name.rstrip("s")
        if name and not {name, plain} & (cw.EN_WEEKDAYS.keys() | cw.EN_MONTHS.keys()):
            names.add(name)
    return names


UNIT_LETTERS = 4
"""A unit or a time zone said after a number is a short upper-case word ("10 MB", "UTC")."""
_AFTER_NUMBER = re.compile(r"\d\s?$")


def _unit(text: str, m: re.Match[str]) -> bool:
    """The word is its number's unit or zone, no name: written right after the number
    ("4B", "10MB") or, short and upper-case, after it and a space ("10 MB", "02:00 UTC")."""
    if m.start() and text[m.start() - 1].isdigit():
        return True
    word = m.group()
    short = word.isupper() and len(word) <= UNIT_LETTERS
    return short and _AFTER_NUMBER.search(text, 0, m.start()) is not None


class Found(NamedTuple):
    """A sentence's typed values, in the patterns' order, and what is left of it."""

    values: list[tuple[str, str]]
    """(kind, value) pairs."""
    rest: str
    """The text without the values: where its subject words are."""
    names: frozenset[str]
    """Its names (English), lower case: "lotus garden", "aws"."""


def english_values(sentence: str, normalised: str) -> Found:
    """The values of an English sentence: typed values read from its ``normalised`` text
    (``decisions_en.normalised``), names and codes from the sentence as written."""
    patterns = _EN_VALUES if _COUNTED.search(normalised) else _EN_UNCOUNTED
    found, rest = _values(patterns, _en_value, normalised, " ")
    names = _en_names(sentence)
    found += [(name_kind(n), n) for n in names]
    found += [("code", t.lower()) for t in _EN_TOKEN.findall(sentence) if _CODE.match(t)]
    return Found(found, rest, frozenset(names))


def chinese_values(sentence: str) -> Found:
    """The values of a Chinese sentence (Latin words in it are names)."""
    found, rest = _values(_ZH_VALUES, _zh_value, sentence, "，")
    found = [(name_kind(v) if kind == "name" else kind, v) for kind, v in found]
    return Found(found, rest, frozenset())


THING_KINDS = frozenset(cw.NAME_KINDS.values())
"""Kinds of named thing (a database, a payments provider: ``change_words``' name_kinds)."""


def name_kind(name: str) -> str:
    """The kind of a named thing (``change_words.NAME_KINDS``: "mysql" → "database"), or
    "name": two names of one kind are two values of the same slot."""
    return cw.NAME_KINDS.get(name.lower(), "name")
