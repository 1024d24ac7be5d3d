"""Words that say a decision changed, and the kinds of value a decision holds (contract §5).

Data only, for ``statements``, ``values`` and ``supersession``: the lists live in
``change_words.toml`` beside this module (what each is for is said there), read once at
import (``wordlists``). Phrase lists keep their order; word sets are frozen sets; tables map
a word to what it stands for.
"""

from __future__ import annotations

from aimind_memory.memory.compaction.analysis.wordlists import WordLists

_W = WordLists("change_words")

EN_CORRECTION = _W.phrases("en_correction")
EN_OLD_VALUE = _W.phrases("en_old_value")
ZH_OLD_VALUE = _W.phrases("zh_old_value")
EN_RETURN = _W.phrases("en_return")
EN_ORIGINAL = _W.phrases("en_original")
ZH_ORIGINAL = _W.phrases("zh_original")
EN_PERSONAL = _W.words("en_personal")
ZH_PERSONAL = _W.phrases("zh_personal")
EN_PAST_VERBS = _W.phrases("en_past_verbs")
ZH_RETURN = _W.phrases("zh_return")
EN_ACKNOWLEDGEMENT = _W.phrases("en_acknowledgement")
ZH_ACKNOWLEDGEMENT = _W.phrases("zh_acknowledgement")
EN_ACKNOWLEDGEMENT_WEAK = _W.phrases("en_acknowledgement_weak")
ZH_ACKNOWLEDGEMENT_WEAK = _W.phrases("zh_acknowledgement_weak")
EN_NEXT_STEP = _W.phrases("en_next_step")
EN_MEASURE_UNITS = _W.words("en_measure_units")
ZH_MEASURE_UNITS = _W.phrases("zh_measure_units")
ZH_NEXT_STEP = _W.phrases("zh_next_step")
EN_PROPOSAL = _W.phrases("en_proposal")
ZH_PROPOSAL = _W.phrases("zh_proposal")
EN_PAST = _W.phrases("en_past")
ZH_PAST = _W.phrases("zh_past")
NAME_KINDS = {
    name: kind for kind, names in _W.table("name_kinds").items() for name in str(names).split()
}
"""A named thing → the kind of thing it is ("mysql" → "database"): a slot a decision fills."""
EN_CORRECTION_WEAK = _W.phrases("en_correction_weak")
EN_CLOSING = _W.phrases("en_closing")
EN_ACCEPTANCE = _W.phrases("en_acceptance")
EN_OFFER = _W.phrases("en_offer")
EN_CONFIRM_REQUEST = _W.phrases("en_confirm_request")
EN_REJECTION = _W.phrases("en_rejection")
EN_REVERSAL = _W.phrases("en_reversal")
EN_REVERSAL_WEAK = _W.phrases("en_reversal_weak")
EN_FAILURE = _W.phrases("en_failure")
EN_BOOKED_PLACES = _W.words("en_booked_places")
EN_BOOKED_KINDS = _W.words("en_booked_kinds") | EN_BOOKED_PLACES
EN_TICKETED_KINDS = _W.words("en_ticketed_kinds")
EN_ADDITIVE = _W.phrases("en_additive")
EN_RETRY_PHRASES = _W.phrases("en_retry_phrases")
EN_TENTATIVE = _W.phrases("en_tentative")
EN_SEARCH_AGAIN = _W.phrases("en_search_again")
EN_PLACE_ROLES = {
    "from": _W.words("en_place_from"),
    "to": _W.words("en_place_to"),
    "at": _W.words("en_place_at"),
}
EN_BOOKING_REQUEST = _W.words("en_booking_request")
EN_BOOKING_DONE = _W.words("en_booking_done")
EN_BOOKING_DONE_PHRASES = _W.phrases("en_booking_done_phrases")
EN_BOOKING_NOUNS = _W.words("en_booking_nouns")
EN_FRAME = _W.words("en_frame")
EN_PEOPLE_UNITS = _W.phrases("en_people_units")
EN_TICKET_UNITS = _W.phrases("en_ticket_units")
EN_TICKET_FOR = _W.words("en_ticket_for")
EN_PEOPLE_AFTER = _W.phrases("en_people_after")
EN_RELATIVE_DAYS = _W.phrases("en_relative_days")
EN_RELATIVE_MONTHS = _W.phrases("en_relative_months")
EN_CHANGE_LABELS = _W.phrases("en_change_labels")
EN_COLOURS = _W.words("en_colours")
EN_ID_NOUNS = _W.words("en_id_nouns")
ZH_CORRECTION = _W.phrases("zh_correction")
ZH_CORRECTION_WEAK = _W.phrases("zh_correction_weak")
ZH_REVERSAL = _W.phrases("zh_reversal")
ZH_REJECTION = _W.phrases("zh_rejection")
ZH_ACCEPTANCE = _W.phrases("zh_acceptance")
ZH_OFFER = _W.phrases("zh_offer")
ZH_CONFIRM_REQUEST = _W.phrases("zh_confirm_request")
ZH_REVERSAL_WEAK: tuple[str, ...] = ()
"""None: 算了 drops a question, not a decision ("算了，帮我把地址发过来吧"); 不X了 ("柯基不养了")
is weak too, unless X is one of ``ZH_NOT_ANYMORE_IDIOMS`` (supersession reads it)."""
ZH_NOT_ANYMORE_IDIOMS = _W.words("zh_not_anymore_idioms")
ZH_DECLINES = _W.words("zh_declines")
ZH_FAILURE = _W.phrases("zh_failure")
ZH_ADDITIVE = _W.phrases("zh_additive")
ZH_TENTATIVE = _W.phrases("zh_tentative")
ZH_BOOKING_REQUEST = _W.phrases("zh_booking_request")
ZH_FRAME = _W.words("zh_frame")
ZH_PEOPLE_UNITS = _W.phrases("zh_people_units")
ZH_WEEKDAY_SUNDAY = _W.phrases("zh_weekday_sunday")
ZH_RELATIVE_DAYS = _W.phrases("zh_relative_days")
ZH_CHANGE_LABELS = _W.phrases("zh_change_labels")
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
