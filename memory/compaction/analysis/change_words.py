"""Words that say a decision changed, and the kinds of value a decision holds (contract §5).

Data only, for ``statements``, ``values`` and ``supersession``: the lists live in
``change_words.toml`` beside this module (what each is for is said there), read once at
import (``wordlists``). Phrase lists keep their order; word sets are frozen sets; tables map
a word to what it stands for.
"""

from __future__ import annotations

from aimind_memory.memory.compaction.analysis.wordlists import WordLists

_W = WordLists("change_words")

SENTENCE_LISTS = (
    "correction", "return", "original", "acknowledgement", "acknowledgement_weak", "proposal",
    "next_step", "past", "reversal", "correction_weak", "reversal_weak", "change_labels",
    "additive", "tentative", "closing", "rejection", "acceptance", "acceptance_strong", "offer",
    "offer_to_act", "confirm_request", "kept", "declined",
)  # fmt: skip
"""The phrase lists ``statements`` reads a sentence by: in each language, the file's list
``en_``/``zh_`` + the name. A language without one has none: Chinese has no closing words,
and no weak reversal — 算了 drops a question, not a decision ("算了，帮我把地址发过来吧"); 不X了
("柯基不养了") is weak too, unless X is one of ``ZH_NOT_ANYMORE_IDIOMS`` (statements reads
it)."""
SENTENCE_PHRASES = {
    lang: {
        name: _W.phrases(f"{lang}_{name}") if f"{lang}_{name}" in _W else ()
        for name in SENTENCE_LISTS
    }
    for lang in ("en", "zh")
}

EN_OLD_VALUE = _W.phrases("en_old_value")
ZH_OLD_VALUE = _W.phrases("zh_old_value")
EN_OLD_VALUE_STRONG = _W.phrases("en_old_value_strong")
ZH_OLD_VALUE_STRONG = _W.phrases("zh_old_value_strong")
EN_PERSONAL = _W.words("en_personal")
ZH_PERSONAL = _W.phrases("zh_personal")
ZH_FAMILIAR_SURNAMES = _W.words("zh_familiar_surnames")
EN_PAST_VERBS = _W.phrases("en_past_verbs")
EN_MEASURE_UNITS = _W.words("en_measure_units")
EN_ZONES = _W.words("en_zones")
ZH_MEASURE_UNITS = _W.phrases("zh_measure_units")
MEASURE_DIMENSIONS = {
    unit: dimension
    for dimension, units in _W.table("measure_dimensions").items()
    for unit in str(units).split()
}
"""A measure unit → what it measures ("ms" → "time"): "2秒" and "500毫秒" are one setting's."""
NAME_KINDS = {
    name.replace("_", " "): kind
    for kind, names in _W.table("name_kinds").items()
    for name in str(names).split()
}
"""A named thing → the kind of thing it is ("mysql" → "database"): a slot a decision fills."""
EN_FRAME = _W.words("en_frame")
EN_PEOPLE_UNITS = _W.phrases("en_people_units")
EN_PEOPLE_AFTER = _W.phrases("en_people_after")
EN_RELATIVE_DAYS = _W.phrases("en_relative_days")
EN_RELATIVE_MONTHS = _W.phrases("en_relative_months")
EN_COLOURS = _W.words("en_colours")
EN_ID_NOUNS = _W.words("en_id_nouns")
ZH_NOT_ANYMORE_IDIOMS = _W.words("zh_not_anymore_idioms")
ZH_NOT_JOINING = _W.words("zh_not_joining")
ZH_DECLINES = _W.words("zh_declines")
EN_NEGATORS = _W.words("en_negators")
ZH_NEGATORS = _W.phrases("zh_negators")
ZH_NEGATION_IDIOMS = _W.phrases("zh_negation_idioms")
ZH_FRAME = _W.words("zh_frame")
ZH_PEOPLE_UNITS = _W.phrases("zh_people_units")
ZH_WEEKDAY_SUNDAY = _W.phrases("zh_weekday_sunday")
ZH_RELATIVE_DAYS = _W.phrases("zh_relative_days")
ZH_COLOURS = _W.phrases("zh_colours")
NUMBER_WORDS: dict[str, int] = _W.table("number_words")
EN_DURATION_UNITS: dict[str, str] = _W.table("en_duration_units")
EN_WEEKDAYS: dict[str, str] = _W.table("en_weekdays")
EN_MONTHS: dict[str, int] = _W.table("en_months")
EN_TRAVEL_MODES: dict[str, str] = _W.table("en_travel_modes")
EN_DAY_PARTS: dict[str, int] = _W.table("en_day_parts")
EN_DAY_PARTS_BEFORE: dict[str, int] = _W.table("en_day_parts_before")
EN_PAST_HOUR: dict[str, int] = _W.table("en_past_hour")
ZH_DIGITS: dict[str, int] = _W.table("zh_digits")
ZH_UNITS: dict[str, int] = _W.table("zh_units")
ZH_DURATION_UNITS: dict[str, str] = _W.table("zh_duration_units")
ZH_PERIODS: dict[str, int] = _W.table("zh_periods")
ZH_WEEKDAYS: dict[str, str] = _W.table("zh_weekdays")
ZH_TRAVEL_MODES: dict[str, str] = _W.table("zh_travel_modes")
