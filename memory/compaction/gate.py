"""The gate every compactor's output passes before it lands (contract §5, "Memory never
trusts a compactor").

A compactor — a model, or anyone's ``Compactor`` — hands back text memory will tell the
model to follow. Models fail in ways peers have stored as memory: an error message as
the summary, a tool call in markup, the prompt or the request handed back, an empty
summary over a good one, a pin with a value nobody said. ``inspect`` reads an output
against its request and gives a ``Verdict``:

- **refused** (the whole output: a failed compaction; the extractive compactor folds the
  turns instead and nothing already in memory is lost), with the first reason found:
  ``empty-summary`` (a blank summary where memory had one, or over folded turns that
  named something), ``error-text`` (an error or exception's text, a stack trace),
  ``echo-instructions`` (the prompt handed back), ``echo-request`` (the request handed
  back: its keys, its printed form), ``markup`` (tags, a model's special tokens, JSON,
  code fences, a function call) — in the summary or in any new pin;
- **dropped** pins (the rest lands): ``pin-unsupported``, a new pin holding a number,
  date, amount or name that the folded messages, the kept messages and the previous
  memory (summary and pins) never say: made up.

What the conversation says never counts against an output: every check looks only for
what the output says that the request does not (a user who pasted a traceback, or
talked about a 429, finds it in the summary). Texts are compared folded (``fold``:
Unicode NFKC, so full-width "４０，０００" is "40,000"; case-folded; spaces collapsed).
Numbers are compared by value: "40,000", "40000", "40 000" and "40000.00" are one; "40k"
and "4万" read 40,000 and also 40 and 4 (a pin that writes a scale the conversation did
not is still backed by its digits: "40k" said, "40,000" pinned, or the other way round);
the conversation's number words count ("table for four" backs "4"), and so do a time's
12- and 24-hour readings ("7 pm" backs "19:00"). A month or a weekday is compared as
one, in any spelling ("Apr", "April", "4月", "四月"). A name is a capitalised word that
does not start a sentence, an acronym, a word with inner capitals or digits ("AWS",
"PostgreSQL", "23c"), an email or a web address, a Latin word in Chinese text, or a
Chinese place or organisation named by its last word (老码头火锅, 青禾科技); it is
backed when the conversation says it, or a word it shortens or extends by at least
``NAME_PREFIX_MIN`` letters ("Postgres" backs "PostgreSQL"). Chinese person names
and lower-case product names are not recognised, so never checked.

The lists are data (``gate.toml``); the LLM compactor's own prompt and payload keys
come from ``memory.compaction.llm``. Nothing here logs: the caller logs the reason,
never the text.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cached_property
from importlib import resources
from typing import Any, Literal, NamedTuple

from aimind_memory.memory.compaction.llm import INSTRUCTIONS, PAYLOAD_KEYS
from aimind_memory.memory.compaction.protocol import CompactionRequest
from aimind_memory.memory.errors import RefusedOutput
from aimind_memory.memory.models import CompactionOutput
from aimind_memory.memory.text import clean_text, storable_text

Reason = Literal[
    "empty-summary",
    "error-text",
    "echo-request",
    "echo-instructions",
    "markup",
    "pin-unsupported",
]
"""Why the gate refused an output, or dropped a pin: what the log line says (never the text)."""

ECHO_CLAUSE_WORDS = 8
"""A clause of the prompt this long, copied into an output, is a copied phrase."""
ECHO_CLAUSES_MIN = 2
"""Copied clauses of the prompt (not said in the conversation) that make an echo: one
alone may be a coincidence, two are the prompt handed back."""
NAME_PREFIX_MIN = 5
"""A name is backed by a word of the conversation that it shortens or extends, when they
share this many letters ("Postgres" → "PostgreSQL", "Mongo" → "MongoDB"; not "Java" →
"JavaScript")."""
NAME_PART_MIN = 3
"""The parts of a dotted or hyphenated name that must be backed ("Vue.js": "vue")."""


# --- the data --------------------------------------------------------------------------------


def _load() -> dict[str, Any]:
    text = resources.files(__package__ or "").joinpath("gate.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


_DATA = _load()


def _ascii_alnum(char: str) -> bool:
    return char.isascii() and char.isalnum()


_REGEX_SPECIAL = frozenset("\\.^$*+?{}[]|()")


def literal_prefix(pattern: str) -> str:
    """The text every match of ``pattern`` starts with ("error code" of
    ``error code:? ?\\d{3}``): a cheap test before the search."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern) and pattern[i + 1] in _REGEX_SPECIAL | {"/", "-"}:
            char, i = pattern[i + 1], i + 1
        elif char in _REGEX_SPECIAL:
            break
        if pattern[i + 1 : i + 2] in ("?", "*", "{"):
            break  # this character may be absent or repeated
        out.append(char)
        i += 1
    return "".join(out)


class Cues:
    """Patterns searched one by one in folded text (``gate.toml``). Each starts with a
    literal: a pattern is searched only where its literal start is in the text (a
    substring test), and ``re`` finds a literal start by a fast scan; one alternation of
    them all, a leading ``\\b`` or case-insensitive matching is ten times slower, and the
    gate runs on every compaction. A match that starts with a letter or a digit counts
    only at a word's start ("error code: 500", not "terror code: 500")."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple((literal_prefix(p), re.compile(p)) for p in patterns)

    def matches(self, text: str) -> Iterator[re.Match[str]]:
        for prefix, pattern in self.patterns:
            if prefix not in text:
                continue
            for m in pattern.finditer(text):
                at = m.start()
                if not (at and _ascii_alnum(text[at]) and _ascii_alnum(text[at - 1])):
                    yield m


ERROR_TEXT = Cues(_DATA["error_text"]["patterns"])
ERROR_SENTENCE = Cues(rf"{re.escape(w)}\s*[:!]" for w in _DATA["error_text"]["sentence_words"])
ERROR_CLASS = re.compile(
    "|".join(rf"{re.escape(e)}\b" for e in _DATA["error_text"]["class_name_ends"])
)
MARKUP = Cues(_DATA["markup"]["patterns"])
CALL_ARGUMENTS = Cues(_DATA["markup"]["call_arguments"])
ECHO_REQUEST = Cues(
    [*_DATA["echo_request"]["patterns"], *(rf"{re.escape(k)}[\"']?\s*[:=]" for k in PAYLOAD_KEYS)]
)
ECHO_PHRASES: tuple[str, ...] = tuple(_DATA["echo_instructions"]["phrases"])

_VALUES = _DATA["values"]
NOT_NAMES = frozenset(_VALUES["not_names"].split())
EN_MONTHS: dict[str, int] = _VALUES["en_months"]
EN_WEEKDAYS: dict[str, int] = _VALUES["en_weekdays"]
EN_NUMBERS: dict[str, int] = _VALUES["en_numbers"]
SCALES: dict[str, int] = _VALUES["en_scales"]
ZH_UNITS: tuple[str, ...] = tuple(sorted(_VALUES["zh_units"].split(), key=len, reverse=True))
ZH_IDIOMS: tuple[str, ...] = tuple(_VALUES["zh_idioms"].split())
ZH_NAME_SUFFIXES: tuple[str, ...] = tuple(
    sorted(_VALUES["zh_name_suffixes"].split(), key=len, reverse=True)
)


# --- folding and reading values --------------------------------------------------------------


def straight(text: str) -> str:
    """``text`` in NFKC (full-width forms become ASCII: "４０，０００" is "40,000"), its curly
    apostrophes straight."""
    return unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")


def fold(text: str) -> str:
    """The comparison form of a text: ``straight``, case-folded, spaces collapsed."""
    return " ".join(straight(text).casefold().split())


_COMPACT = re.compile(r"[\s_.\-/]")


def compact(text: str) -> str:
    """``fold``'s text without spaces and joiners: "GPT 4o" and "gpt-4o" meet."""
    return _COMPACT.sub("", text)


def number_key(digits: str, scale: int = 1) -> str:
    """One number's comparison key: its value, without grouping or trailing zeros
    ("40,000" and "40 000.00" are "40000")."""
    try:
        value = Decimal(re.sub(r"[,' \u00a0\u202f]", "", digits)) * scale
    except InvalidOperation:
        return digits
    return format(value.normalize(), "f")


_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}
_ZH_DIGITS |= {"六": 6, "七": 7, "八": 8, "九": 9}
_ZH_SMALL = {"十": 10, "百": 100, "千": 1000}
_ZH_BIG = {"万": 10_000, "萬": 10_000, "亿": 100_000_000}
ZH_NUMERAL = "[零〇一二两三四五六七八九十百千万萬亿]"


def zh_number(text: str) -> int | None:
    """The value of a run of Chinese numerals ("一百二十" 120, "四万" 40,000, "十二" 12), a
    last digit after a hundred or more counting in the unit below it, as said ("八千八"
    8,800, "两万五" 25,000)."""
    total = section = digit = 0
    unit = 0
    for char in text:
        if char in _ZH_DIGITS:
            digit = _ZH_DIGITS[char]
        elif char in _ZH_SMALL:
            section += (digit or 1) * _ZH_SMALL[char]
            digit, unit = 0, _ZH_SMALL[char]
        elif char in _ZH_BIG:
            total += (section + digit or 1) * _ZH_BIG[char]
            section = digit = 0
            unit = _ZH_BIG[char]
        else:
            return None
    if digit and unit >= 100 and text[-2:-1] not in _ZH_DIGITS:
        digit *= unit // 10
    return total + section + digit


_SCALE_WORDS = "|".join(sorted((re.escape(w) for w in SCALES), key=len, reverse=True))
_NUMBER = re.compile(
    r"(?<![\d.])(\d{1,3}(?:[,' \u00a0\u202f]\d{3}(?!\d))+|\d+)(\.\d+)?"
    rf"(?:\s?({_SCALE_WORDS})(?![a-z]))?",
    re.IGNORECASE,
)
_EN_TIME = re.compile(
    r"(?<![\d:])(\d{1,2})(?::(\d{2}))?\s*(a\.?m\b\.?|p\.?m\b\.?|o'clock|h\b)|(?<![\d:])(\d{1,2}):(\d{2})(?!\d)",
    re.IGNORECASE,
)
_ZH_TIME = re.compile(
    rf"(\d{{1,2}}|{ZH_NUMERAL}{{1,3}})\s*点\s*(半|(\d{{1,2}}|{ZH_NUMERAL}{{1,3}})\s*分?)?"
)
_ZH_MONTH = re.compile(rf"(\d{{1,2}}|{ZH_NUMERAL}{{1,3}})\s*月(?!饼)")
_ZH_WEEKDAY = re.compile(r"(?:周|星期|礼拜)([一二三四五六日天1-7])")
_ZH_WEEKDAY_NUMBERS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7}
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_EN_WORD = re.compile(r"[a-z]+")
_DIGIT = re.compile(r"\d")
_ZH_SCALED = re.compile(r"(?<![\d.])(\d+)(\.\d+)?\s?([百千万萬亿])")
"""Digits scaled by a Chinese multiplier: "25万" is 250,000 (and 25)."""
_GROUPED = re.compile(
    r"(?<![\d.])(\d{1,3}(?:[,' \u00a0\u202f]\d{3}(?!\d))+)(\.\d+)?"
    rf"(?:\s?({_SCALE_WORDS})(?![a-z]))?",
    re.IGNORECASE,
)
_ZH_NUMERALS = re.compile(f"{ZH_NUMERAL}+")


def _int(text: str) -> int | None:
    return int(text) if text.isdigit() else zh_number(text)


def hour_keys(hour: int, afternoon: bool | None = None) -> set[str]:
    """The readings of an hour: 7 is 7 and 19; 19 is 19 and 7 (a clock's two halves)."""
    keys = {str(hour)}
    if afternoon is not False and hour < 12:
        keys.add(str(hour + 12))
    if hour > 12:
        keys.add(str(hour - 12))
    return keys


def _zh_month(match: re.Match[str]) -> int | None:
    month = _int(match.group(1))
    return month if month is not None and 1 <= month <= 12 else None


def number_readings(text: str) -> set[str]:
    """Every number ``text`` (folded) may be read as: digits grouped or not, scaled and
    not, times in both halves of the day, number words, Chinese numerals. Generous on
    purpose: these back a pin's numbers, so a reading too many keeps a pin, never drops one.
    """
    found: set[str] = set()
    for m in _NUMBER.finditer(text):
        digits, decimals, scale = m.group(1), m.group(2) or "", m.group(3)
        found.add(number_key(digits + decimals))
        found.update(number_key(part) for part in re.split(r"[,' \u00a0\u202f]", digits))
        if scale:
            found.add(number_key(digits + decimals, SCALES[scale.lower()]))
    for m in _EN_TIME.finditer(text):
        found |= hour_keys(int(m.group(1) or m.group(4)))
    for m in _ZH_TIME.finditer(text):
        if (hour := _int(m.group(1))) is not None:
            found |= hour_keys(hour)
        if m.group(2) == "半":
            found.add("30")
    found.update(_word_numbers(text))
    for m in _ZH_NUMERALS.finditer(text):
        value = zh_number(m.group())
        if value is not None:
            found.add(str(value))
            found.update(str(v) for c in m.group() if (v := _ZH_DIGITS.get(c)) is not None)
    return found


def _word_numbers(text: str) -> set[str]:
    """Number words, alone and composed ("twenty five" 25, "forty thousand" 40,000)."""
    found: set[str] = set()
    total = current = 0
    in_run = False
    for word in [*_EN_WORD.findall(text), ""]:
        if word in EN_NUMBERS:
            value = EN_NUMBERS[word]
            found.add(str(value))
            current, in_run = current + value, True
        elif word in SCALES and in_run:
            if SCALES[word] >= 1000:
                total, current = total + (current or 1) * SCALES[word], 0
            else:
                current = (current or 1) * SCALES[word]
        elif word == "and" and in_run:
            continue
        else:
            if in_run:
                found.add(str(total + current))
            total = current = 0
            in_run = False
    return found


# --- what a pin holds --------------------------------------------------------------------------


class Anchor(NamedTuple):
    """A value a pin holds that the conversation must say too."""

    kind: Literal["number", "month", "weekday", "name", "code", "literal", "zh-name"]
    keys: frozenset[str]
    """Its readings: any one the conversation holds backs it."""
    written: str = ""
    """A number or a name as the pin writes it ("40,000", "二十", "PostgreSQL"): found so in
    the conversation, it is backed without reading every number there or folding it."""


_LIST_MARKER = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*•])\s+")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
_URL_PREFIX = re.compile(r"^(?:https?://)?(?:www\.)?")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'.&+#-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_NUMERIC_TOKEN = re.compile(
    rf"^\d+(?:[.,]\d+)*(?:st|nd|rd|th|%|{_SCALE_WORDS}|kg|km|g|cm|m|min|mins|h|hrs?|s|x)?$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?。！？\n]")
_INNER_CAPS = re.compile(r"^(?:[A-Z]{2,}s?|[A-Za-z]*[a-z][A-Z]\w*)$")
_CJK = re.compile(r"[\u3400-\u9fff]")
_ZH_NOT_IN_NAME = re.escape(_VALUES["zh_not_in_name"])
_ZH_NAME = re.compile(rf"[^\W\d_A-Za-z{_ZH_NOT_IN_NAME}]{{1,10}}?(?:{'|'.join(ZH_NAME_SUFFIXES)})")
_ZH_UNIT_NUMERAL = re.compile(
    rf"({ZH_NUMERAL}++)(?:(?=\s*(?:{'|'.join(map(re.escape, ZH_UNITS))}))|(?<=.[十百千万萬亿]))"
)
"""A Chinese numeral run that is a value: before a unit (二十号, 两个人), or composed, its
last character a multiplier (总预算二十五万)."""


def anchors(pin: str) -> list[Anchor]:
    """The numbers, dates, times, amounts and names ``pin`` holds (the module's rules)."""
    out: list[Anchor] = []
    text = straight(_LIST_MARKER.sub("", pin))

    def take(pattern: re.Pattern[str], make: Callable[[re.Match[str]], Iterable[Anchor]]) -> None:
        nonlocal text
        found = list(pattern.finditer(text))
        for m in found:
            out.extend(make(m))
        if found:
            text = pattern.sub(" ", text)

    chinese = _CJK.search(text) is not None
    if "@" in text:
        take(_EMAIL, lambda m: [Anchor("literal", frozenset({fold(m.group())}))])
    if "http" in text or "www." in text:
        take(_URL, lambda m: [Anchor("literal", frozenset({_url_key(m.group())}))])
    if _DIGIT.search(text):
        take(_ISO_DATE, _iso_date)
        take(_GROUPED, lambda m: [_number_anchor(m)])
        take(_EN_TIME, _en_time)
    if chinese:
        take(_ZH_SCALED, lambda m: [_number_anchor(m)])
        take(_ZH_TIME, _zh_time)
        take(
            _ZH_MONTH,
            lambda m: [Anchor("month", frozenset({str(n)}))] if (n := _zh_month(m)) else [],
        )
        take(
            _ZH_WEEKDAY,
            lambda m: (
                [Anchor("weekday", frozenset({str(_ZH_WEEKDAY_NUMBERS.get(m.group(1), 0))}))]
                if not m.group(1).isdigit()
                else [Anchor("weekday", frozenset({m.group(1)}))]
            ),
        )
        out.extend(_zh_anchors(text))
    out.extend(_token_anchors(text))
    return out


def _url_key(url: str) -> str:
    return _URL_PREFIX.sub("", fold(url).rstrip(".,;:!?)/"))


def _iso_date(m: re.Match[str]) -> list[Anchor]:
    year, month, day = (int(g) for g in m.groups())
    return [
        Anchor("number", frozenset({str(year)}), m.group(1)),
        Anchor("month", frozenset({str(month)})),
        Anchor("number", frozenset({str(day)}), m.group(3)),
    ]


def _en_time(m: re.Match[str]) -> list[Anchor]:
    hour = int(m.group(1) or m.group(4))
    minute = m.group(2) or m.group(5)
    suffix = (m.group(3) or "").lower()
    afternoon = True if suffix.startswith("p") else False if suffix.startswith("a") else None
    found = [Anchor("number", frozenset(hour_keys(hour, afternoon)), str(hour))]
    if minute and int(minute):
        found.append(Anchor("number", frozenset({str(int(minute))}), minute))
    return found


def _zh_time(m: re.Match[str]) -> list[Anchor]:
    hour = _int(m.group(1))
    if hour is None:
        return []
    found = [Anchor("number", frozenset(hour_keys(hour)), m.group(1))]
    minute = "30" if m.group(2) == "半" else str(_int(m.group(3) or "") or "")
    if minute and minute != "0":
        found.append(Anchor("number", frozenset({minute}), m.group(3) or ""))
    return found


def _zh_anchors(text: str) -> list[Anchor]:
    """A Chinese pin's numerals before a unit (not 1, not an idiom's), its place and
    organisation names, and its Latin words (names, in Chinese text; not a unit written
    right after a number: "100MB")."""
    found: list[Anchor] = []
    for m in _ZH_UNIT_NUMERAL.finditer(text):
        value = zh_number(m.group(1))
        idiom = any(text.startswith(i, m.start()) for i in ZH_IDIOMS)
        if value is None or value == 1 or idiom:
            continue
        found.append(Anchor("number", frozenset({str(value)}), m.group(1)))
    for m in _ZH_NAME.finditer(text):
        found.append(Anchor("zh-name", frozenset({m.group()})))
    # a Latin word glued to a number is its unit ("10MB", "5G"), not a name
    for m in re.finditer(r"(?<![A-Za-z0-9.])[A-Za-z][A-Za-z0-9.+#-]*[A-Za-z0-9+#]", text):
        word = m.group()
        if word.lower() not in NOT_NAMES and not _NUMERIC_TOKEN.match(word):
            found.append(Anchor("name", frozenset({fold(word)}), word))
    return found


def _token_anchors(text: str) -> list[Anchor]:
    """The numbers, codes, months, weekdays and names among a pin's Latin tokens."""
    found: list[Anchor] = []
    chinese = _CJK.search(text) is not None
    after = 0  # where the token before ended
    for m in _TOKEN.finditer(text):
        word = m.group().rstrip(".'")
        lower = word.lower()
        first = after == 0 or _SENTENCE_END.search(text, after, m.start()) is not None
        after = m.end()
        if any(c.isdigit() for c in word):
            found.append(_numeric_anchor(word))
            continue
        capitalised = word[0].isupper()
        if capitalised and lower in EN_MONTHS and not (first and lower == "may"):
            found.append(Anchor("month", frozenset({str(EN_MONTHS[lower])})))
        elif capitalised and lower in EN_WEEKDAYS:
            found.append(Anchor("weekday", frozenset({str(EN_WEEKDAYS[lower])})))
        elif chinese:
            continue  # a Chinese pin's Latin words are read by ``_zh_anchors``
        elif _INNER_CAPS.match(word) or (capitalised and not first):
            key = re.sub(r"'s$", "", fold(word))
            if key not in NOT_NAMES and key not in EN_NUMBERS:
                found.append(Anchor("name", frozenset({key}), word))
    return found


def _numeric_anchor(word: str) -> Anchor:
    """A token with digits: a number (with its unit, scale or ordinal), else a code."""
    m = _NUMBER.match(word) if _NUMERIC_TOKEN.match(word) else None
    if m is None:
        return Anchor("code", frozenset({compact(fold(word))}))
    return _number_anchor(m)


def _number_anchor(m: re.Match[str]) -> Anchor:
    """A number ``_NUMBER`` or ``_GROUPED`` matched: its value, and scaled if a scale follows
    ("40k": 40 and 40,000)."""
    digits = m.group(1) + (m.group(2) or "")
    keys = {number_key(digits)}
    if m.group(3):
        keys.add(number_key(digits, SCALES[m.group(3).lower()]))
    return Anchor("number", frozenset(keys), fold(digits))


# --- the conversation: what backs a value ----------------------------------------------------


class Source:
    """What a compaction was given — the folded and kept messages, the previous summary
    and pins — as the gate compares outputs with it. Each reading is made once, when a
    check first asks for it."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.raw = "\n".join(texts)
        """Everything it says, as said: where a value is looked up first, as the pin
        writes it (a model mostly copies "PostgreSQL" or "40,000" as it was written)."""

    @cached_property
    def text(self) -> str:
        """Everything it says, folded (made when a check first needs it: most outputs give
        no check a match to look up, and most values are found ``raw``)."""
        return fold(self.raw)

    def holds(self, span: str) -> bool:
        """The conversation says ``span`` (folded; its edges' punctuation aside)."""
        key = fold(span).strip(" \n\t.,;:!?-—\"'()[]{}")
        return bool(key) and key in self.text

    @cached_property
    def compact(self) -> str:
        return compact(self.text)

    @cached_property
    def numbers(self) -> frozenset[str]:
        return frozenset(number_readings(self.text))

    @cached_property
    def _all_words(self) -> frozenset[str]:
        return frozenset(_EN_WORD.findall(self.text))

    @cached_property
    def months(self) -> frozenset[str]:
        found = {str(EN_MONTHS[w]) for w in self._all_words if w in EN_MONTHS}
        found |= {str(n) for m in _ZH_MONTH.finditer(self.text) if (n := _zh_month(m))}
        found |= {str(int(m.group(2))) for m in _ISO_DATE.finditer(self.text)}
        slashed = re.finditer(r"(?<!\d)(\d{1,2})/(\d{1,2})(?!\d)", self.text)
        found |= {g for m in slashed for g in m.groups() if 1 <= int(g) <= 12}
        return frozenset(found)

    @cached_property
    def weekdays(self) -> frozenset[str]:
        found = {str(EN_WEEKDAYS[w]) for w in self._all_words if w in EN_WEEKDAYS}
        found |= {
            m.group(1) if m.group(1).isdigit() else str(_ZH_WEEKDAY_NUMBERS[m.group(1)])
            for m in _ZH_WEEKDAY.finditer(self.text)
        }
        return frozenset(found)

    @cached_property
    def words(self) -> frozenset[str]:
        """Its Latin words, for a name it shortens or extends."""
        return frozenset(
            w for w in re.findall(r"[a-z][a-z0-9]*", self.text) if len(w) >= NAME_PREFIX_MIN
        )

    def _finds(self, word: str, *, digits: bool = False, raw: bool = False) -> bool:
        """``word`` (folded; with ``raw``, as written) is said at a word's start; with
        ``digits``, as a whole number ("4" is not in "40,000" or "3.4"; "二十" not in
        "一百二十")."""
        text = self.raw if raw else self.text
        at = text.find(word)
        joined = _ZH_NUMERALS if _ZH_NUMERALS.match(word) else _DIGIT
        while at >= 0:
            before = text[at - 1] if at else ""
            after = text[at + len(word) : at + len(word) + 2]
            if not digits:
                if not (_ascii_alnum(word[0]) and _ascii_alnum(before)):
                    return True
            elif not (
                (before and (joined.match(before) or before in ".,"))
                or joined.match(after)
                or (after[:1] in (".", ",") and _DIGIT.match(after[1:]))
            ):
                return True
            at = text.find(word, at + 1)
        return False

    def says_number(self, written: str) -> bool:
        """A number said as the pin writes it: the common case, found without reading every
        number of the conversation (``numbers``)."""
        return bool(written) and (
            self._finds(written, digits=True, raw=True) or self._finds(written, digits=True)
        )

    def says_name(self, name: str) -> bool:
        """``name`` (folded) is said, whole or part by part ("vue.js": "vue"), each part as a
        word start or through a word it shortens or extends (``NAME_PREFIX_MIN``)."""
        if self._finds(name):
            return True
        parts = [p for p in re.split(r"[.\-_/+&']", name) if len(p) >= NAME_PART_MIN]
        return bool(parts) and all(self._says_part(p) for p in parts)

    def _says_part(self, part: str) -> bool:
        if self._finds(part):
            return True
        return any(
            min(len(part), len(word)) >= NAME_PREFIX_MIN
            and (part.startswith(word) or word.startswith(part))
            for word in self.words
        )

    def says_zh_name(self, name: str) -> bool:
        """A Chinese name, or enough of it before its last word (北京景山公园 → 景山公园)."""
        suffix = next(s for s in ZH_NAME_SUFFIXES if name.endswith(s))
        head = name[: -len(suffix)]
        least = max(2, math.ceil(len(head) / 2))
        return any(name[i:] in self.text for i in range(0, max(1, len(head) - least + 1)))

    def backs(self, anchor: Anchor) -> bool:
        """The conversation says this value, in any of its readings."""
        kind, keys, written = anchor
        if kind == "number":
            return self.says_number(written) or bool(keys & self.numbers)
        if kind == "month":
            return bool(keys & self.months)
        if kind == "weekday":
            return bool(keys & self.weekdays)
        if kind == "name":
            said = bool(written) and self._finds(written, raw=True)
            return said or all(self.says_name(k) for k in keys)
        if kind == "zh-name":
            return all(self.says_zh_name(k) for k in keys)
        if kind == "code":
            return all(k in self.compact for k in keys)
        return all(k in self.text for k in keys)


# --- the checks ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Said:
    """A text of the output, as the checks read it: as it will be stored (``raw``: without
    the control characters the landing drops) and ``folded``, made once for every check."""

    raw: str
    folded: str

    @classmethod
    def of(cls, text: str) -> Said:
        raw = storable_text(text)
        return cls(raw, fold(raw))


def _unsaid(cues: Cues, said: Said, source: Source) -> bool:
    """``cues`` find something in ``said`` that the conversation does not say."""
    return any(not source.holds(m.group()) for m in cues.matches(said.folded))


def empty_summary(request: CompactionRequest, output: CompactionOutput) -> bool:
    """``empty-summary``: blank where memory had a summary, or over folded turns that named
    something (a number, a date, a name): what they said would be nowhere."""
    if clean_text(output.summary):
        return False
    if request.summary.strip():
        return True
    return any(anchors(m.text) for m in request.folded)


_SENTENCE_START = re.compile(r"(?:^|[\n.;!?。！？])\W*$")


def error_text(said: Said, source: Source) -> bool:
    """``error-text``: an error or an exception's text, a stack trace, a provider's error
    ("Error generating summary: RateLimitError: Error code: 429 - Too Many Requests"), an
    exception class's name, a sentence that opens with "Error:"."""
    if _unsaid(ERROR_TEXT, said, source):
        return True
    text = said.folded
    opening = (
        m
        for m in ERROR_SENTENCE.matches(text)
        if _SENTENCE_START.search(text, max(0, m.start() - 8), m.start())
    )
    if any(not source.holds(m.group()) for m in opening):
        return True
    return any(not source.holds(name) for name in _class_names(said.raw))


def _class_names(text: str) -> Iterator[str]:
    """Exception class names in ``text``: a capitalised word ending in "Error" or
    "Exception", with something before the ending ("RateLimitError", not "Error")."""
    for m in ERROR_CLASS.finditer(text):
        start = m.start()
        while start and text[start - 1].isascii() and text[start - 1].isalpha():
            start -= 1
        if start < m.start() and text[start].isupper():
            yield text[start : m.end()]


def echo_request(said: Said, source: Source) -> bool:
    """``echo-request``: the request handed back — the LLM compactor's payload keys
    (``previous_summary:``, ``"fold":``, …), a message's ``"role": "user"``, a printed
    ``CompactionRequest``."""
    return _unsaid(ECHO_REQUEST, said, source)


def _clauses(text: str) -> Iterator[str]:
    """The prompt's clauses of ``ECHO_CLAUSE_WORDS`` words or more, folded: its own words,
    without its quoted examples ("moved from March 3 to April 10" is how a good summary may
    well put it) and its limits' placeholders."""
    for piece in re.split(r'"[^"\n]*"|\{\w+\}', text):
        for clause in re.split(r"[.,;:()\n]", fold(piece)):
            if len(clause.split()) >= ECHO_CLAUSE_WORDS:
                yield clause.strip()


PROMPT_CLAUSES: tuple[str, ...] = tuple(dict.fromkeys(_clauses(INSTRUCTIONS)))
"""The LLM compactor's prompt as the clauses an echo of it copies."""


def echo_instructions(said: Said, source: Source) -> bool:
    """``echo-instructions``: the prompt handed back — ``ECHO_CLAUSES_MIN`` clauses of the
    LLM compactor's prompt, or a phrase of a system prompt (``gate.toml``), that the
    conversation does not say."""
    text = said.folded
    if any(p in text and not source.holds(p) for p in ECHO_PHRASES):
        return True
    copied = [c for c in PROMPT_CLAUSES if c in text]
    return len(copied) >= ECHO_CLAUSES_MIN and (
        sum(not source.holds(c) for c in copied) >= ECHO_CLAUSES_MIN
    )


def markup(said: Said, source: Source) -> bool:
    """``markup``: tool-call or other markup where plain sentences belong — tags
    (``<tool_call>``), a model's special tokens, JSON (an object, or the whole text), code
    fences, a function call with arguments ("shell(command=…")."""
    if _unsaid(MARKUP, said, source):
        return True
    if any(not source.holds(call) for call in _calls(said.folded)):
        return True
    stripped = said.raw.strip()
    if stripped[:1] in ("{", "[") and not source.holds(stripped):
        try:
            json.loads(stripped)
        except ValueError:
            return False
        return True
    return False


def _calls(text: str) -> Iterator[str]:
    """Function calls with arguments: a name, then ``CALL_ARGUMENTS`` ("shell(command=")."""
    for m in CALL_ARGUMENTS.matches(text):
        start = m.start()
        while start and (text[start - 1].isalnum() or text[start - 1] in "_."):
            start -= 1
        if start < m.start():
            yield text[start : m.end()]


TextCheck = Callable[[Said, Source], bool]
TEXT_CHECKS: tuple[tuple[Reason, TextCheck], ...] = (
    ("error-text", error_text),
    ("echo-instructions", echo_instructions),
    ("echo-request", echo_request),
    ("markup", markup),
)
"""The checks of a summary's or a new pin's text, the most telling first: a provider's
error often carries JSON, the prompt names the request's keys, and a request handed back
is JSON too."""


def pin_unsupported(pin: str, source: Source) -> bool:
    """``pin-unsupported``: the pin holds a number, date, amount or name that the
    conversation and the previous memory never say (``Source.backs``)."""
    return not all(source.backs(a) for a in anchors(storable_text(pin)))


# --- the verdict ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the gate makes of one output."""

    output: CompactionOutput
    """What may land: the output without its dropped pins."""
    refused: Reason | None = None
    """Why the whole output is refused (None: it lands)."""
    dropped: int = 0
    """New pins dropped as ``pin-unsupported``."""


def inspect(request: CompactionRequest, output: CompactionOutput) -> Verdict:
    """The gate's verdict on ``output``, a compactor's answer to ``request``.

    The summary and every new pin (one not among the previous pins as it was; one a model
    rewrote is checked, and the previous pins back it) are read by the
    text checks, as they will be stored (``storable_text``: without the control characters
    the landing drops); the first that fires refuses the whole output. Then each new pin
    holding a value the conversation never says is dropped."""
    if empty_summary(request, output):
        return Verdict(output, "empty-summary")
    source = Source(request.texts())
    previous = set(request.pinned_decisions)
    new_pins = [p for p in output.pinned_decisions if p not in previous]
    for text in (output.summary, *new_pins):
        said = Said.of(text)
        for reason, check in TEXT_CHECKS:
            if check(said, source):
                return Verdict(output, reason)
    unsupported = {p for p in new_pins if pin_unsupported(p, source)}
    if not unsupported:
        return Verdict(output)
    kept = [p for p in output.pinned_decisions if p not in unsupported]
    return Verdict(output.model_copy(update={"pinned_decisions": kept}), None, len(unsupported))


def admit(request: CompactionRequest, output: CompactionOutput) -> tuple[CompactionOutput, int]:
    """What of ``output`` may land, and how many pins were dropped; raises
    ``RefusedOutput`` for an output the gate refuses."""
    verdict = inspect(request, output)
    if verdict.refused is not None:
        raise RefusedOutput(verdict.refused)
    return verdict.output, verdict.dropped
