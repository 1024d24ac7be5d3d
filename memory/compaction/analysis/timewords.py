"""Times of day and dates as people say them, each as one comparable value (contract §5).

"half past 5 in the evening", "5:30 pm" and "17:30" are one time (``17:30``); "the 9th"
and "March 9th" may be one date; "周二" is ``tue``, "下午三点" ``15:00``. Supersession
(``supersession``) compares two decisions' values by kind (``values``): a time said in words must be
the same value as the time said in digits, or every restatement would look like a change
(and "7 o'clock in the evening" like seven people). The numerals those times and dates
are said with ("eleven", "十五") are read here too. The words are data
(``change_words``); pure functions, no I/O.
"""

from __future__ import annotations

import re

from aimind_memory.memory.compaction.analysis import change_words as cw

_EN_MONTH = r"(" + "|".join(sorted(cw.EN_MONTHS, key=len, reverse=True)) + r")"
_EN_HOUR = r"(?:\d{1,2}|" + "|".join(cw.NUMBER_WORDS) + r")"
_EN_PAST = "|".join(map(re.escape, cw.EN_PAST_HOUR))
_EN_PART = "|".join(map(re.escape, cw.EN_DAY_PARTS))
_EN_BEFORE = "|".join(map(re.escape, cw.EN_DAY_PARTS_BEFORE))
_EN_CLOCK = r"(?:am|pm|a\.m\.|p\.m\.)(?![a-z])|o['\"]clock\b"
"""What makes a number a time of day: am/pm or o'clock ("o\"clock" too: a slipped key)."""
EN_TIME = re.compile(
    rf"\b(?:{_EN_BEFORE})\s+(?:at\s+)?{_EN_HOUR}(?::\d{{2}})?(?:\s*(?:{_EN_CLOCK}))?(?![\w:.,]\d)"
    r"(?!\s*(?:people|persons|guests|adults|tickets?|seats?|nights?|days?|hours?|%|th\b|st\b|"
    r"nd\b|rd\b))(?![\w])|"
    rf"\b(?:(?:{_EN_PAST})\s+)?{_EN_HOUR}(?::\d{{2}})?\s*(?:{_EN_CLOCK})(?:\s+(?:{_EN_PART}))?|"
    rf"\b(?:(?:{_EN_PAST})\s+)?{_EN_HOUR}(?::\d{{2}})?\s+(?:{_EN_PART})\b|"
    rf"\b(?:{_EN_PAST})\s+{_EN_HOUR}\b|"
    r"\b\d{1,2}:\d{2}\b|"
    r"\bat \d{1,2}\b(?![:.,]?\d)(?!\s*(?:people|persons|guests|nights?|days?|hours?|weeks?|"
    rf"%|th\b|st\b|nd\b|rd\b|[a-z]+ street|{_EN_CLOCK}|{_EN_PART}))|"
    r"\b(?:noon|midday|midnight)\b"
)
"""A time of day: "7 pm", "19:15", "at 7", "eleven am", "1:30 in the afternoon", "half past
5 in the evening", "quarter to 8", the part of the day first: "afternoon 3:45", "evening
4". Read before the number of people: "for 7 in the evening" is a time, not seven people."""
_EN_TIME_PARTS = re.compile(
    rf"(?:at\s+)?(?:(?P<past>{_EN_PAST})\s+)?(?P<hour>{_EN_HOUR})(?::(?P<minute>\d{{2}}))?"
)
EN_DATE = re.compile(
    rf"\b{_EN_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b|"
    rf"\b(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_EN_MONTH}\b|"
    rf"\b(?:in|by|until|through|for|of) {_EN_MONTH}\b(?!\s+\d)|"
    r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b"
    r"(?:\s+of\s+(?:" + "|".join(cw.EN_RELATIVE_MONTHS) + r")\b)?|"
    r"\b(" + "|".join(cw.EN_WEEKDAYS) + r")s?\b|"
    r"\b(" + "|".join(cw.EN_RELATIVE_DAYS) + r")\b"
)
"""A day: "March 9th", "(the) 9th of March", "in March", "the 9th" ("of this month"),
"Tuesday(s)", "tomorrow" — "the 11th of March" one date, not the 11th and March."""

ZH_NUM = r"(\d+|[零〇一二两三四五六七八九十百千万]+)"
"""A Chinese or Arabic numeral (``zh_int`` reads it)."""
ZH_DATE = re.compile(
    rf"{ZH_NUM}\s*月\s*{ZH_NUM}\s*[日号]|(?:周|星期|礼拜)([一二三四五六日天末])|"
    r"(" + "|".join(cw.ZH_RELATIVE_DAYS) + r")|"
    rf"(?<![月\d]){ZH_NUM}\s*[日号](?![子本语元楼])"
)
"""A day: "3月9日", "周二", "明天", "9号"."""
ZH_TIME = re.compile(
    r"(" + "|".join(cw.ZH_PERIODS) + r")?\s*"
    rf"(?:{ZH_NUM}\s*点\s*(半|一刻|三刻|{ZH_NUM}\s*分?)?|(\d{{1,2}})[:：](\d{{2}}))"
)
"""A time of day: "下午三点", "十点半", "9:30"."""

_DAY_OF_MONTH = re.compile(r"^(?:(?P<month>\d+)-|d)(?P<day>\d+)$|^m(?P<only>\d+)$")


def zh_int(text: str) -> int | None:
    """A Chinese or Arabic numeral as a number: 十五 15, 两 2, 二十 20, 三千 3000."""
    if text.isdigit():
        return int(text)
    total = section = digit = 0
    for ch in text:
        if ch in cw.ZH_DIGITS:
            digit = cw.ZH_DIGITS[ch]
        elif ch == "万":
            total += (section + digit) * 10_000
            section = digit = 0
        elif ch in cw.ZH_UNITS:
            section += (digit or 1) * cw.ZH_UNITS[ch]
            digit = 0
        else:
            return None
    return total + section + digit


def en_int(text: str) -> int | None:
    """A number said in digits or in a word: "7", "seven"."""
    return int(text) if text.isdigit() else cw.NUMBER_WORDS.get(text)


def _clock(hour: int, minute: int, shift: int = 0) -> str:
    if shift and hour < 12:
        hour += shift
    return f"{hour}:{minute:02d}"


def en_time(said: str) -> str | None:
    """A time of day (``EN_TIME``'s match) as ``H:MM`` on a 24-hour clock: "pm" or an
    afternoon, evening or night adds 12 hours to an hour before noon, "am" or "midnight"
    takes 12 from 12."""
    special = {"noon": "12:00", "midday": "12:00", "midnight": "0:00"}
    if said in special:
        return special[said]
    before = re.match(rf"({_EN_BEFORE})\s+", said)  # "afternoon 3:45"
    if before:
        said = said[before.end() :]
    m = _EN_TIME_PARTS.match(said)
    hour = en_int(m["hour"]) if m else None
    if m is None or hour is None or hour > 24:
        return None
    minute = int(m["minute"] or 0)
    if m["past"]:
        offset = cw.EN_PAST_HOUR[m["past"]]
        hour, minute = (hour, offset) if offset >= 0 else (hour - 1, 60 + offset)
    rest = said[m.end() :].replace(".", "")
    later = any(rest.strip().endswith(part) for part, hours in cw.EN_DAY_PARTS.items() if hours)
    later = later or bool(before and cw.EN_DAY_PARTS_BEFORE[before[1]])
    if later or re.match(r"\s*pm", rest):
        hour = hour % 12 + 12
    elif re.match(r"\s*am", rest):
        hour %= 12
    return _clock(hour, minute)


def en_date(m: re.Match[str]) -> str | None:
    """A day (``EN_DATE``'s match): ``3-9`` (March 9th), ``m3`` (a month), ``d9`` (the 9th),
    a weekday (``tue``) or a relative day ("tomorrow")."""
    g = m.groups()
    if g[0]:
        return f"{cw.EN_MONTHS[g[0]]}-{int(g[1])}"
    if g[2]:
        return f"{cw.EN_MONTHS[g[3]]}-{int(g[2])}"
    if g[4]:
        return f"m{cw.EN_MONTHS[g[4]]}"
    if g[5]:
        return f"d{int(g[5])}"
    if g[6]:
        return cw.EN_WEEKDAYS[g[6]]
    return g[7]


def zh_date(m: re.Match[str]) -> str | None:
    """A day (``ZH_DATE``'s match), in ``en_date``'s forms."""
    g = m.groups()
    if g[0]:
        month, day = zh_int(g[0]), zh_int(g[1])
        return f"{month}-{day}" if month and day else None
    if g[2]:
        name = g[2]
        return "sun" if name in cw.ZH_WEEKDAY_SUNDAY else cw.ZH_WEEKDAYS.get(name, "weekend")
    if g[3]:
        return g[3]
    day = zh_int(g[4])
    return f"d{day}" if day else None


def zh_time(m: re.Match[str]) -> str | None:
    """A time of day (``ZH_TIME``'s match) as ``H:MM``; 一点 alone is "a bit" (快一点)."""
    g = m.groups()
    shift = cw.ZH_PERIODS.get(g[0] or "", 0)
    if g[4]:
        return _clock(int(g[4]), int(g[5]), shift)
    if m.group().strip() == "一点":
        return None  # 快一点: "a bit", not one o'clock
    hour = zh_int(g[1])
    if hour is None or hour > 24:
        return None
    extra = g[2] or ""
    minute = {"半": 30, "一刻": 15, "三刻": 45}.get(extra)
    if minute is None:
        minute = zh_int(g[3]) if g[3] else 0
    return _clock(hour, minute or 0, shift)


def same_date(a: str, b: str) -> bool:
    """One date said more or less fully: "the 9th" is "March 9th", "in March" is "March
    9th" (the day or the month said without the other)."""
    if a == b:
        return True
    ma, mb = _DAY_OF_MONTH.match(a), _DAY_OF_MONTH.match(b)
    if not (ma and mb):
        return False
    months = (ma["month"] or ma["only"], mb["month"] or mb["only"])
    days = (ma["day"], mb["day"])
    said_both = [pair for pair in (months, days) if None not in pair]
    return bool(said_both) and all(x == y for x, y in said_both)
