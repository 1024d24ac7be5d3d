"""Which earlier decisions a later sentence replaces: pins say what holds now (contract §5).

A later sentence replaces an earlier decision when it is about the same thing and says
something else of it: what both say is read by ``statements`` (``Said``: their typed
values, subject words and change words).

The rules, in order of the evidence they need, each conservative:

1. **New value** (a decision, no change word needed): the last decision (with the ones
   just before it about the same thing: a request and its confirmation), said in the
   last three messages, when it has the same subject (a subject word shared or the same
   way of travelling, one's subject words within the other's) and exactly one kind of
   value both hold differs
   ("Book a table for 2 at 7 pm" → "All set: the table is now for 3 people at 7 pm").
   Two kinds differing is another booking, not a change; so is a new value for an older
   decision.
2. **Correction**: a corrected sentence replaces the one earlier decision it most likely
   means — a new value of a kind both hold, and the most subject words and values
   shared, the newest among equals ("Actually, make it 6 people" → the last decision with
   a number of people; "不对，改成 MySQL 吧" → the last one naming a tool) — not one whose
   places are all in another role ("No, I want to go to LAX instead" leaves "I want to
   leave from Anaheim"; ``places``), and another place in the same role ties a weak
   correction to the decision ("Actually I need to head to X" after "a cab to Y"). Words that
   also just carry on a conversation ("actually", "instead", "还是…吧", 不X了) count only
   for the last decisions (as in rule 1), in a decision or with a subject word or value
   shared, and a weak correction must bring a new value. A strong correction naming only
   the new thing ("换成大伟") means the last decision.
3. **Reversal**: a reversed sentence that shares a subject word or a value with the
   earlier decision and adds no date, time or number of its own ("We're not using AWS
   after all"; "we won't deploy on Fridays" drops nothing about AWS).
4. **Failed booking**: replaces the newest booking request among the decisions of the
   last two turns ("book a table for 8 at 15:45" → "That time is all booked up"; none:
   the newest decision giving a time, day, party size or stay, "Put it for 10:30", when
   the failure says a booking's word or the decision's subject: "the alarm could not be
   set" answers "Set an alarm for 3:30 pm"); the
   failure's own dates, times and numbers, if any, must be the request's, and it names no
   other thing booked ("no taxi" does not answer "book a room").
5. **Booking made with another value**: a booking made ("I have a reservation for you at
   15:30 for 5") replaces the newest booking request of the last three turns when it is
   tied to it (a subject word or a value shared: "for 5"), names nothing else ("the
   hotel" after "a table"; "reservation" is any booking), and exactly one of its time,
   date, number of people or length of stay is another ("a table for 5 people at
   16:30"): the request failed and was retried, often asked as a question ("How about
   15:30?") that rule 2 leaves alone. Two differing is another booking.

6. **Echoes**: a decision replaced takes with it the decisions said beside it
   (``ECHO_SPAN``) that assert what no longer holds — the request a confirmation
   repeats, a confirmation's other sentences ("Please confirm: a table at Lucca. The
   reservation is at 1:30 pm.") — when they name nothing else: the old value was said
   several times, and one change replaces it everywhere.
7. **Accepted offer** (``accepted_offer``): an offer or a confirmation asked ("Should I
   try 12:30 pm?", "How about 6 pm instead?", "… at 4:45 pm, correct?") and accepted in
   the answer after it ("Sure.", "Yes please", "That works") is the decision: it replaces
   the decision of the last three turns it gives another value of, with its echoes. A
   decision that says only a booking's detail ("Set it for evening 4") is changed like a
   request; a retry offered in a failure's own sentence ("Sorry, I could not book it,
   shall I try 1 pm?") is offered alone (``offered``); and a confirmation pinned as said
   is accepted too when it confirms a change just asked for ("Actually, to Union Station,
   for 2." → "I'll book you a cab to Union Station for 2 people. Is that correct?").
   A trip confirmed and accepted — an offer or a confirmation pinned as said
   (``rerouted``) — also replaces the decisions, said however long ago, that give another
   place where it leaves from or goes to ("I am leaving from Anaheim" → "… a bus leaving
   from San Diego to San Francisco …" "Yes, that is correct."), unless they name another
   thing booked; a return trip ("return") adds a decision.
8. **Search asked again** (``again``): a sentence of the user's message asking for other
   options than those found (``statements.searched_again``: "Do you have anything else
   leaving from Los Angeles?", "Can I get any other bus? I am leaving on March 13th")
   replaces each earlier decision that gives another place in the same role (leaving
   from, going to, in: ``statements.places``) or another day or time than it names ("I
   will leave from San Diego …", "I am leaving on Thursday next week"), asked or said; it
   is pinned in their place. Not a sentence that adds a decision ("also", "the way
   back"), nor one with a change word (rules 2–4 read it: "No, search for other buses to
   SFO") — but a weak one none of them reads ("Is there anything else? I actually need
   it at 3:30 pm", the decision said long ago) still asks the search again, and so does
   a question with one ("What if I fly to NYC instead?").

What is answered: a weak correction ("No, …", "actually") in the message right after a
decision answers it and may change it without restating it ("Please confirm: the kitchen
speaker." → "No, the bedroom speaker."), and a decision said in several sentences of one
message is answered as one, even when the fold came between (the caller says how many
previous pins its message held). A booking said again with another value ("The
reservation should be for March 14th.") changes the last one like a decision (rule 1).
A failed booking's offer ("…, shall I try 7:30 pm?") is not what failed.

Never from a question or a hedge (unless accepted: rule 7), or a sentence that adds a
decision. A correction or reversal that replaces something is a decision itself (the
caller pins it); a failed booking is not. Pure functions, cached per sentence; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from aimind_memory.memory.compaction.analysis import change_words as cw
from aimind_memory.memory.compaction.analysis import timewords as tw
from aimind_memory.memory.compaction.analysis.statements import (
    Said,
    named_old_values,
    places,
    said,
)
from aimind_memory.memory.compaction.analysis.values import RELATIVE_DAYS, RETRIED_KINDS

WEAK_KINDS = frozenset({"number", "code", "tickets"})
"""Values too common, or too incidental (a reference code), to say two decisions are about
one thing without a change word; a count of tickets too ("One ticket please." after
"Seven tickets are booked for TR4256" is most often another train)."""
OFFERED_KINDS = frozenset({"tickets"})
"""Weak kinds an accepted offer still changes: "You want 4 tickets?" "Yes." after "Buy 3
tickets"."""
MIN_SCORE = 1
RECENT_DECISIONS = 1
"""Without a clear change word ("make it", "改成", "cancelled") a sentence replaces only the
last decision held (with the ones just before it about the same thing): further back, a
new value is more likely another booking (replaying MultiWOZ's dialogues one after
another, most such replacements of older decisions crossed from one dialogue into the
next)."""
RECENT_MESSAGES = 3
"""… and only one said in the last three messages (a request, its confirmation, the change
and its confirmation): not one from an earlier exchange."""
FAILURE_MESSAGES = 4
"""A failed booking answers a request of the last two turns (the assistant may first ask
for the day or the number of people)."""
RETRY_MESSAGES = 6
"""A booking made answers a request of the last three turns: the request, its failure, the
retry asked, and maybe one more question between."""
ANSWER_MESSAGES = 1
"""A weak correction ("No, …", "actually") in the message right after a decision answers
it: it may change it without restating it or being a decision itself."""
SWAPPED_WORDS = 2
"""Another thing named in plain words is a word or two ("my bedroom speaker"), not a
sentence of its own."""
ECHO_SPAN = 2
"""A replaced decision's echoes are the decisions held just beside it: a request, its
confirmation, a confirmation said in two sentences."""


@dataclass(frozen=True, slots=True)
class Replacement:
    """The earlier decisions (indexes) a sentence replaces, why, and whether it is pinned."""

    replaced: tuple[int, ...] = ()
    reason: str = ""
    pin: bool = False


NOTHING = Replacement()


def _shared_values(a: Said, b: Said) -> int:
    return sum(len(a.values[k] & b.values[k]) for k in a.values.keys() & b.values.keys())


def _same_value(kind: str, a: str, b: str) -> bool:
    """One value, maybe said more or less fully: a date (``timewords.same_date``), a name
    with more words after it ("Peacock's Koriander" is "Peacock's Koriander Indian
    Cuisine")."""
    if a == b:
        return True
    if kind == "name":
        short, full = sorted((a.split(), b.split()), key=len)
        return full[: len(short)] == short
    return kind == "date" and tw.same_date(a, b)


def _other(kind: str, values: frozenset[str], held: frozenset[str]) -> frozenset[str]:
    """The values that are none of ``held`` (``_same_value``)."""
    return frozenset(v for v in values if not any(_same_value(kind, v, h) for h in held))


def _new_values(new: Said, old: Said, *, weak: bool) -> set[str]:
    """Kinds both hold where the new sentence has a value the old one lacks; a number
    counts as a value (not another item's) when both say it in one unit (``_measured``)."""
    return {
        k
        for k in new.values.keys() & old.values.keys()
        if (weak or k not in WEAK_KINDS or _measured(k, new, old))
        and _other(k, new.values[k], old.values[k])
    }


def _measured(kind: str, new: Said, old: Said) -> bool:
    """Both say their numbers in one measure unit ("The API timeout is 30 seconds." →
    "API timeout: 60 seconds", "接口超时设为30秒" → "接口超时60秒"): two values of one
    setting, where a bare number ("room 1", "item 996") may be another item."""
    return kind == "number" and bool(new.units & old.units)


def _same_subject(new: Said, old: Said) -> bool:
    """One's subject words within the other's (either may have none)."""
    return new.subject <= old.subject or old.subject <= new.subject


def _new_value(new: Said, old: Said) -> bool:
    """Rule 1: the same subject (a word shared — or both say a booking, or the same way of
    travelling: "I am flying to SD" after "I am flying to Las Vegas" — and one's within
    the other's), exactly one kind of value differs — not which one it is: "chairs for
    room 2" after "chairs for room 1" is another room's (a correction may change it); or
    the same values, one thing named in place of another ("I'll play Gold on the bedroom
    speaker" after "… on the kitchen speaker")."""
    if _replugged(new, old):
        return True
    restated = new.booking is not None and old.booking is not None  # "Book it at 19:45."
    travelled = bool(new.values.get("travel", frozenset()) & old.values.get("travel", frozenset()))
    if not ((new.subject & old.subject or restated or travelled) and _same_subject(new, old)):
        return False
    differing = _new_values(new, old, weak=False)
    if old.booking != "done":  # "You want 2 tickets" after "You want 4 tickets"; not a
        # train's "Seven tickets are booked" before the next dialogue's "One ticket please"
        differing |= _new_values(new, old, weak=True) & OFFERED_KINDS
    return len(differing) == 1 and "id" not in differing


def _replugged(new: Said, old: Said) -> bool:
    """The same named things and values, and the same words but one in place of another
    before the word they both name ("the bedroom speaker" for "the kitchen speaker"): the
    sentence said again about another thing, not in other words."""
    if not new.values or new.values != old.values:
        return False
    added, dropped = set(new.words) - set(old.words), set(old.words) - set(new.words)
    if len(added) != 1 or len(dropped) != 1:
        return False
    (swapped_in,), (swapped_out,) = added, dropped

    def next_word(words: tuple[str, ...], word: str) -> str | None:
        at = words.index(word) + 1
        return words[at] if at < len(words) else None

    named = next_word(new.words, swapped_in)
    return named is not None and named == next_word(old.words, swapped_out)


def _correction_score(new: Said, old: Said) -> int:
    """Rule 2: how likely the correction means this decision (0: not at all)."""
    differing = _new_values(new, old, weak=True)
    shared = len(new.subject & old.subject) + _shared_values(new, old)
    if differing:
        return 2 * len(differing) + shared
    new_words = new.subject - old.subject
    return shared if shared and new_words else 0


def _adds_no_detail(new: Said, old: Said) -> bool:
    """Every date, time, number … the reversal names, the earlier decision names too."""
    return all(
        kind in old.values and values <= old.values[kind]
        for kind, values in new.values.items()
        if kind not in ("name", "number", "code")
    )


def _reversal_score(new: Said, old: Said) -> int:
    """Rule 3: shared subject words and values, if the reversal adds no detail."""
    if not _adds_no_detail(new, old):
        return 0
    return len(new.subject & old.subject) + _shared_values(new, old)


def _tied(new: Said, old: Said) -> bool:
    """A subject word or a value (not a mere number or code) both sentences name, or both
    count tickets ("tickets for 4" and "I just want 1 ticket")."""
    shared = {k for k in new.values.keys() & old.values.keys() if new.values[k] & old.values[k]}
    counted = new.values.keys() & old.values.keys() & OFFERED_KINDS
    return bool(new.subject & old.subject or shared - WEAK_KINDS or counted)


def _swapped(new: Said, old: Said) -> bool:
    """One thing named in place of another beside a word both say ("the kitchen speaker" →
    "my bedroom speaker"): a new value said in plain words."""
    both, added, dropped = (
        new.subject & old.subject,
        new.subject - old.subject,
        old.subject - new.subject,
    )
    return bool(both and dropped) and 0 < len(added) <= SWAPPED_WORDS


def _weakly(new: Said, old: Said, decided: bool, answered: bool = False) -> bool:
    """Weak change words count when the sentence is a decision, tied to the earlier one or
    its answer, and a weak correction must bring a new value ("Actually, I need a taxi too"
    does not) — in answer to it, another thing named in plain words will do."""
    if not (decided or answered or _tied(new, old)):
        return False
    if new.change == "reversal" or _new_values(new, old, weak=True):
        return True
    return answered and _swapped(new, old)


def _answers(age: int | None, confirmed: bool = False) -> bool:
    """Said in answer to the decision: in the message just after it ("Please confirm: a
    table for 2 at 7 pm." → "No, for 3 people."), or just after the other side asked to
    confirm it (``confirmed``: "Set the alarm for 4:45 pm." → "Can you affirm … at 4:45
    pm?" → "Nope, sorry! Please set at 3:30 in the afternoon.")."""
    return age is not None and age <= ANSWER_MESSAGES + confirmed


def _repeated(old: Said, confirming: Sequence[str]) -> bool:
    """A confirmation asked repeats the decision: a value of it said again."""
    return any(_shared_values(said(c), old) for c in confirming)


def _best(scores: Sequence[int]) -> tuple[int, ...]:
    """The highest score's index, the newest among equals; none below ``MIN_SCORE``."""
    top = max(scores, default=0)
    if top < MIN_SCORE:
        return ()
    return (max(i for i, s in enumerate(scores) if s == top),)


def _newest_request(
    earlier: Sequence[Said], ages: Sequence[int | None], window: int, *, details: bool = False
) -> int | None:
    """The newest booking request among the decisions said in the last ``window`` messages
    (``details``: or a decision that gives a booking's time, day, party size or stay:
    "Put it for 10:30.")."""
    for i in range(len(earlier) - 1, -1, -1):
        age = ages[i]
        if age is None or age > window:
            return None
        made = earlier[i].booking == "done" or "code" in earlier[i].values  # "ref ABC123"
        detailed = details and not made and bool(earlier[i].values.keys() & RETRIED_KINDS)
        if earlier[i].booking == "request" or detailed:
            return i
    return None


def _fits(new: Said, request: Said) -> bool:
    """What ``new`` names as booked the request names too ("no taxi" does not answer "book a
    room"); a table or a room may answer a request that names neither, a ticket one that
    names no other thing than a bus, a train, a flight … (``EN_TICKETED_KINDS``: "Sorry,
    that ticket was unavailable" after "3 bus tickets at 3:15 pm", "leaving at 9:45 am")."""
    named, asked = new.subject & cw.EN_BOOKED_KINDS, request.subject & cw.EN_BOOKED_KINDS
    if not asked - cw.EN_TICKETED_KINDS:  # "that ticket was unavailable": a bus's, a train's
        named -= {"ticket"}
    return named <= asked if asked else named <= cw.EN_BOOKED_PLACES


def _failed_request(
    new: Said, earlier: Sequence[Said], ages: Sequence[int | None]
) -> tuple[int, ...]:
    """Rule 4: the newest booking request of the last two turns (none, and the failure says
    a booking's word or a subject word of it: the newest decision giving a time, day,
    party size or stay — "Put it for 10:30.", "Set an alarm for 3:30 pm."), when the
    failure can mean it: no detail of its own and nothing else booked."""
    i = _newest_request(earlier, ages, FAILURE_MESSAGES)
    if i is None:  # "I could not book it", "the alarm could not be set"; not "not available"
        i = _newest_request(earlier, ages, FAILURE_MESSAGES, details=True)
        if i is not None and new.booking is None and not new.subject & earlier[i].subject:
            i = None
    if i is None or not _adds_no_detail(new, earlier[i]) or not _fits(new, earlier[i]):
        return ()
    return (i,)


def _retried_request(
    new: Said, earlier: Sequence[Said], ages: Sequence[int | None]
) -> tuple[int, ...]:
    """Rule 5: the newest booking request of the last three turns, when ``new`` is a booking
    made tied to it, naming nothing else, and exactly one of its ``RETRIED_KINDS`` is another
    value ("today" and "Tuesday" may be one day: not another)."""
    if new.booking != "done":
        return ()
    i = _newest_request(earlier, ages, RETRY_MESSAGES)
    if i is None or not _fits(new, earlier[i]) or not _tied(new, earlier[i]):
        return ()
    old = earlier[i]
    if not new.subject <= old.subject | cw.EN_BOOKING_NOUNS:
        return ()  # "the hotel" is not "a table"
    other = [
        k
        for k in RETRIED_KINDS & new.values.keys() & old.values.keys()
        if _other(k, new.values[k], old.values[k]) == new.values[k]
        and not (new.values[k] | old.values[k]) & RELATIVE_DAYS
    ]
    return (i,) if len(other) == 1 else ()


def _names_nothing_else(echo: Said, held: Sequence[Said]) -> bool:
    """The echo names no place, venue or thing booked that ``held`` do not (``_within``):
    "Book the hotel for Friday" is no echo of "a table for Friday"."""
    names = echo.values.get("name", frozenset())
    known = frozenset().union(*(h.values.get("name", frozenset()) for h in held))
    booked = echo.subject & cw.EN_BOOKED_KINDS
    named = frozenset().union(*(h.subject & cw.EN_BOOKED_KINDS for h in held))
    return all(any(_within(n, k) for k in known) for n in names) and (not named or booked <= named)


def _within(name: str, known: str) -> bool:
    """The name is the known one or some of its words in a row ("Vegas" of "Las Vegas"):
    an echo may say a place shorter than the decision it repeats."""
    words, full = name.split(), known.split()
    return any(full[i : i + len(words)] == words for i in range(len(full) - len(words) + 1))


def _asserts_replaced(echo: Said, old: Said, new: Said, failed: bool) -> bool:
    """The echo says a value the replaced decision held and that no longer holds: of a
    kind the new sentence gives another value of, or — for a failed booking — its time,
    day, party size or stay."""
    kinds = RETRIED_KINDS if failed else new.values.keys() - WEAK_KINDS
    for kind in kinds & echo.values.keys() & old.values.keys():
        now = frozenset() if failed else new.values.get(kind, frozenset())
        gone = _other(kind, echo.values[kind], now)  # what the echo says that holds no more
        if any(_same_value(kind, v, o) for v in gone for o in old.values[kind]):
            return True
    return False


def _echoes(
    new: Said, gone: Iterable[int], olds: Sequence[Said], ages: Sequence[int | None], failed: bool
) -> set[int]:
    """Rule 6: the decisions said with a replaced one (within ``ECHO_SPAN`` of it) that
    assert what no longer holds (``_asserts_replaced``) — a request and its confirmation,
    a confirmation said in several sentences — naming nothing else and adding nothing
    beside it."""
    gone = set(gone)
    out: set[int] = set()
    for i in gone:
        for j in range(max(i - ECHO_SPAN, 0), min(i + ECHO_SPAN + 1, len(olds))):
            echo, at, said_at = olds[j], ages[i], ages[j]
            if j in gone or echo.additive or echo.change == "failure":
                continue
            if at is not None and said_at is not None and abs(at - said_at) > RETRY_MESSAGES:
                continue
            if _asserts_replaced(echo, olds[i], new, failed) and _names_nothing_else(
                echo, [olds[i], new]
            ):
                out.add(j)
    return out


def _about(new: Said, old: Said) -> bool:
    """About the same thing: a subject word or a value (not a mere number) shared, and
    neither's subject words go beyond the other's."""
    return _same_subject(new, old) and _tied(new, old)


def _recent(new: Said, olds: Sequence[Said], ages: Sequence[int | None]) -> list[int]:
    """The last decision (every one said in its message: "Booking a table at Sakoon. The
    reservation is at 6:30 pm."), and the ones just before it about the same thing as
    ``new`` (a request and its confirmation), said in the last ``RECENT_MESSAGES``
    messages: what a sentence without a clear change word may change."""
    start = len(olds) - RECENT_DECISIONS
    while start > 0 and ages[start] is not None and ages[start - 1] == ages[start]:
        start -= 1
    while start > 0 and _about(new, olds[start - 1]) and _about(new, olds[start]):
        start -= 1
    return [
        i
        for i in range(max(start, 0), len(olds))
        if (age := ages[i]) is not None and age <= RECENT_MESSAGES
    ]


def _anaphoric(new: Said) -> bool:
    """A correction that names only the new thing ("换成小李", "make it the grey one"): it
    means the last decision."""
    return len(new.subject) <= 1 and not (new.values.keys() - WEAK_KINDS)


def _offer_changes(new: Said, old: Said) -> bool:
    """What an accepted offer changes: a decision it is tied to (``_tied``: a subject word or
    a value shared) or a booking request (not one made: a new search may follow it) it
    gives another time, day, party size or stay, where it
    says another value of a kind both hold; or the same sentence with one thing named in
    place of another (``_replugged``). "Have you been to Paris?" "Yes!" changes no trip to
    London."""
    if _replugged(new, old):
        return True
    # a number of the thing the decision is about: "Is staging actually on 14?" after
    # "Staging runs on Postgres 13." (not a booking's: another number is another item)
    own = bool(new.subject) and new.subject <= old.subject and old.booking is None
    differing = {
        k
        for k in _new_values(new, old, weak=True)
        - ({"code"} if own else WEAK_KINDS - OFFERED_KINDS)
        if not (new.values[k] | old.values[k]) & RELATIVE_DAYS  # "today" may be "Wednesday"
    }
    if not differing:
        return False
    asked = old.booking == "request" or _bare_detail(old)
    return _tied(new, old) or (asked and bool(differing & RETRIED_KINDS))


def _bare_detail(old: Said) -> bool:
    """A decision that says only a booking's detail, no thing of its own ("Set it for
    evening 4", "Book it at 12:30 pm"): what it sets is the request it answers, so an
    accepted offer of another time, day, party size or stay changes it like a request."""
    return not old.subject and "name" not in old.values and bool(old.values.keys() & RETRIED_KINDS)


def accepted_offer(
    offer: str,
    earlier: Sequence[str],
    *,
    ages: Sequence[int | None] | None = None,
    retry: bool = False,
) -> Replacement:
    """Rule 7: an offer accepted in the answer after it (``is_offer``, ``is_acceptance``:
    "Should I try 12:30 pm?" → "Sure.") is the decision, whatever question form it was
    said in: it replaces the decision of the last three turns (before the offer's message)
    that it changes (``_offer_changes``: another time, date, name … of a decision it is
    tied to or a booking's; "the bedroom speaker" for "the kitchen speaker"; the newest,
    the most shared among equals), with that decision's echoes, when it names
    nothing else booked. Pinned only when it replaces something: an offer accepted with
    nothing before it stays as the conversation said it — unless it is a ``retry``, said
    after a failure in its message ("Sorry, 12 pm is full. Should I try 12:30 pm?"), whose
    time, day, party size or stay is the booking now (the failure dropped the request).
    ``ages`` as for ``replacement``, counted from the offer."""
    new = said(offer)
    if new.additive or new.change in ("failure", "reversal"):
        return NOTHING
    olds = [said(e) for e in earlier]
    ages = [0] * len(olds) if ages is None else ages
    scores = [
        _correction_score(new, old)
        if age is not None
        and 0 < age <= RETRY_MESSAGES  # not the offer's own message: its other sentences
        and _offer_changes(new, old)
        and _fits(new, old)
        else 0
        for old, age in zip(olds, ages, strict=True)
    ]
    picked = set(_best(scores)) | _rerouted(offer, new, earlier, olds)
    gone = picked | _echoes(new, picked, olds, ages, failed=False)
    gone -= {i for i, e in enumerate(earlier) if e.strip() == offer.strip()}
    if gone:
        return Replacement(tuple(sorted(gone)), "accepted offer", True)
    if retry and new.values.keys() & RETRIED_KINDS:
        return Replacement(reason="accepted retry", pin=True)
    return NOTHING


TRAVEL_ROLES = frozenset({"from", "to"})
"""The place roles of a trip: where one leaves from and goes to (``statements.places``)."""


def _rerouted(offer: str, new: Said, earlier: Sequence[str], olds: Sequence[Said]) -> set[int]:
    """The decisions, said however long ago, that an accepted offer gives another place of
    in a trip's role ("… 4 tickets on a bus leaving from San Francisco … to San Diego",
    accepted, after "I am going to Long Beach"): the trip confirmed is where it goes now.
    The offer names a trip (a bus, a cab, tickets …); not a decision naming another thing
    booked (a taxi is not the train), nor one made."""
    trip = {r: v for r, v in places(offer).items() if r in TRAVEL_ROLES}
    travelled = new.subject & (cw.EN_BOOKED_KINDS - cw.EN_BOOKED_PLACES)
    if not (trip and (travelled or new.values.keys() & {"travel", "tickets"})):
        return set()  # "… like to play Radioactive on the TV" is no trip
    booked = new.subject & cw.EN_BOOKED_KINDS | {"ticket"}
    return {
        i
        for i, (text, old) in enumerate(zip(earlier, olds, strict=True))
        if old.booking != "done"
        and old.subject & cw.EN_BOOKED_KINDS <= booked
        and _other_places(trip, places(text))
    }


def rerouted(confirmation: str, earlier: Sequence[str]) -> Replacement:
    """Rule 7 for a confirmation pinned as said ("Please confirm: 3 tickets for a bus leaving
    from San Diego to San Francisco …", a decision itself) and accepted: it stays where it
    is, and the decisions it gives another place of in a trip's role (``_rerouted``: "I am
    leaving from Anaheim") no longer hold. Nothing is pinned."""
    new = said(confirmation)
    if new.additive or new.change is not None:
        return NOTHING
    gone = _rerouted(confirmation, new, earlier, [said(e) for e in earlier])
    return Replacement(tuple(sorted(gone)), "accepted trip") if gone else NOTHING


def _other_places(new: Mapping[str, frozenset[str]], old: Mapping[str, frozenset[str]]) -> bool:
    """A role (from, to, at) both name a place in, with a place each the other lacks
    ("Anaheim, CA" and "Long Beach, CA" differ; "San Diego" and "San Diego, CA" do not)."""

    def lacks(names: frozenset[str], others: frozenset[str]) -> bool:
        return any(not any(_same_value("name", n, o) for o in others) for n in names)

    return any(
        lacks(names, old[role]) and lacks(old[role], names)
        for role, names in new.items()
        if role in old
    )


def _elsewhere(
    new: Said, old: Said, where: Mapping[str, frozenset[str]], there: Mapping[str, frozenset[str]]
) -> bool:
    """Both name places, in no role in common, and the place is all the correction changes:
    "No, I want to go to LAX instead." is about where to, not the "leave from Anaheim"
    decided before it."""
    return (
        bool(where and there)
        and not where.keys() & there.keys()
        and _new_values(new, old, weak=True) <= {"name"}
    )


def _searched_again(sentence: str, new: Said, earlier: Sequence[str]) -> tuple[int, ...]:
    """Rule 8: the earlier decisions naming another place in a role, or another day or
    time, than a sentence of a search asked again ("There is anything else? I actually
    need it at 3:30 pm" after "At 3 in the afternoon from Concord")."""
    where = places(sentence)
    if new.additive or not (where or new.values.keys() & _SEARCHED_KINDS):
        return ()
    out = []
    for i, text in enumerate(earlier):
        old = said(text)
        if any(_other_value(k, new, old) for k in _SEARCHED_KINDS) or _other_places(
            where, places(text)
        ):
            out.append(i)
    return tuple(out)


_SEARCHED_KINDS = frozenset({"date", "time"})
"""What a search asked again gives another value of besides places: a day, a time."""


def _other_value(kind: str, new: Said, old: Said) -> bool:
    """Both name a value of the kind, and none of the new one's is the old one's."""
    mine, theirs = new.values.get(kind, frozenset()), old.values.get(kind, frozenset())
    return bool(mine and theirs) and _other(kind, mine, theirs) == mine


IDENTIFYING_KINDS = frozenset({"id", "code"})
"""Values that say which thing a decision is about ("room 4", "P4"): another one is
another thing, never a new value of the same slot."""


def _beyond(one: Said, other: Said) -> bool:
    """``one`` names something ``other`` does not: a subject word, or a name where the
    other names none ("iOS ships on May 5" beside "Android ships on May 12")."""
    return bool(one.subject - other.subject) or (
        "name" in one.values and "name" not in other.values
    )


def _same_slot(new: Said, old: Said) -> bool:
    """The same slot: the same subject words (some, and neither's beyond the other's) and
    exactly one kind of value — not a mere number — given another value ("deploy on
    Monday" after "deploy on Friday"). With a change word it means that decision, however
    long ago it was said."""
    if not new.subject & old.subject:
        return False
    if _beyond(new, old) and _beyond(old, new):
        return False  # each names something the other does not: two parallel decisions
    # a number or a code alone is another item ("item 996" after "item 995") unless a
    # change word says it is a new value of the same one ("raise the cap to 40")
    differing = _new_values(new, old, weak=new.change is not None) or _unknown_for_known(new, old)
    return len(differing) == 1 and not differing & IDENTIFYING_KINDS


def _unknown_for_known(new: Said, old: Said) -> set[str]:
    """A thing of no known kind named where the decision named one of a known kind
    ("Use Memcached for the cache" after "Use Redis for the cache": a database): the same
    place, another thing in it — the kind the list does not know is not another slot."""
    known = old.values.keys() & THING_KINDS
    if "name" in old.values or "name" not in new.values or len(known) != 1:
        return set()
    return set() if known & new.values.keys() else {"name"}


DROPPED_WORDS = 2
"""A reversal names what it drops by all its subject words, and at least this many."""


def _dropped(new: Said, old: Said) -> bool:
    """A reversal naming everything a decision is about ("小程序版本不做了" after
    "下个月要做小程序版本"; "we're not sponsoring PyCon after all"), adding no detail of
    its own: it drops that decision however long ago it was said, in weak words too."""
    return (
        new.change == "reversal"
        and len(old.subject) >= DROPPED_WORDS
        and old.subject <= new.subject
        and _adds_no_detail(new, old)
    )


THING_KINDS = frozenset(cw.NAME_KINDS.values())
"""Kinds of named thing (a database, a payments provider: ``change_words``' name_kinds)."""


def _named_again(new: Said, old: Said) -> bool:
    """The same thing named with another value of one kind, by a decision naming nothing
    else ("Python 3.12 it is." after "The lambda runs on Python 3.11."): with no subject
    words of its own it can only be about a slot held before, however long ago — its
    number is that thing's (a version, a size), not another item's. Or only another
    thing of one kind the decision holds ("Adyen it is." after "Payments go through
    Stripe.")."""
    if new.subject or new.additive:
        return False
    named = new.values.keys() & old.values.keys() - WEAK_KINDS - IDENTIFYING_KINDS
    if new.values.keys() == named and len(named) == 1 and named <= THING_KINDS:
        return True  # only a thing of a kind the decision holds: "Adyen it is." → Stripe
    if not any(new.values[k] & old.values[k] for k in named):
        return False
    differing = _new_values(new, old, weak=True)
    return len(differing) == 1 and not differing & IDENTIFYING_KINDS


def _holding(named: frozenset[str], olds: Sequence[Said]) -> tuple[int, ...]:
    """The earlier decisions holding a value the new sentence names as the one it
    replaces ("… instead of PostgreSQL"): the old value named is the clearest sign of
    which decision changes, however long ago it was said. A Chinese thing is no typed
    value: named in the decision's words it is held too ("不用腾讯云了" after
    "短信服务用腾讯云的")."""
    if not named:
        return ()
    return tuple(
        i
        for i, old in enumerate(olds)
        if any(v in named or v.split()[0] in named for vs in old.values.values() for v in vs)
        or any(len(n) > 1 and not n.isascii() and n in old.source for n in named)
    )


def replacement(
    sentence: str,
    earlier: Sequence[str],
    *,
    decided: bool,
    ages: Sequence[int | None] | None = None,
    again: bool = False,
    confirming: Sequence[str] = (),
) -> Replacement:
    """The earlier decisions (oldest first) that ``sentence`` replaces, and whether it is
    to be pinned: ``decided`` (it states a decision, or opens as a change of plan), or a
    correction or reversal that replaces something. ``ages``: how many messages ago each
    earlier decision was said (None: long ago; default: all just now); ``again``: it is
    said in the user's message asking for other options (rule 8); ``confirming``: what the
    message before asked to confirm (a rejection answers the decision it repeats)."""
    new = said(sentence)
    decided = decided or new.labelled
    searched = again and new.weak and new.change == "correction"  # "… I actually need …"
    asked = new.change is None or (searched and new.tentative)  # "What if I fly to X instead?"
    if again and asked and (found := _searched_again(sentence, new, earlier)):
        return Replacement(found, "search asked again", True)
    if new.tentative or new.additive or not earlier:
        return Replacement(pin=decided)
    if not (decided or again or new.change or new.booking):
        return NOTHING  # no decision, no change, no booking: nothing it could replace
    olds = [said(e) for e in earlier]
    named = _holding(named_old_values(sentence), olds)
    if named and (new.change is not None or decided):
        return Replacement(named, "old value named", True)
    ages = [0] * len(olds) if ages is None else ages
    recent = _recent(new, olds, ages)
    gone: set[int] = set()
    reason = ""
    if new.change in ("correction", "reversal"):
        score = _correction_score if new.change == "correction" else _reversal_score
        where, roles = places(sentence), [places(e) for e in earlier]
        scores = [
            0 if _elsewhere(new, o, where, r) else score(new, o)
            for o, r in zip(olds, roles, strict=True)
        ]
        # the same slot with another thing in it, sharing nothing else ("Use Memcached for
        # the cache instead." after "… Redis for the cache"): the slot is the tie
        scores = [s or int(_same_slot(new, o)) for s, o in zip(scores, olds, strict=True)]
        if new.weak:  # a recent decision only, with a decision, a tie or an answer to it
            scores = [
                s
                if _same_slot(new, o)
                or _dropped(new, o)
                or (
                    i in recent
                    and _weakly(
                        new,
                        o,
                        decided or _other_places(where, roles[i]),  # "head to X" after "to Y"
                        new.rejects and _answers(ages[i], _repeated(o, confirming)),
                    )
                )
                else 0
                for i, (s, o) in enumerate(zip(scores, olds, strict=True))
            ]
        picked = _best(scores)
        if not picked and new.change == "correction" and not new.weak and _anaphoric(new):
            picked = (len(olds) - 1,)
        if picked and picked[0] in recent:  # the request and its confirmation change together
            picked += tuple(i for i in recent if _new_values(new, olds[i], weak=False))
        gone.update(picked)
        reason = new.change
    elif new.change == "failure":
        found = _failed_request(new, olds, ages)
        if not found:
            return Replacement(pin=decided)
        found += tuple(sorted(_echoes(new, found, olds, ages, failed=True)))
        return Replacement(tuple(sorted(found)), "failed booking", decided)
    if retried := set(_retried_request(new, olds, ages)) - gone:
        gone |= retried
        reason = reason or "booking made with another value"
    if decided or new.booking == "request":  # a booking said again with another value
        same = {i for i in recent if _new_value(new, olds[i])}
        # the same slot: just said, or however long ago with a change word ("moved to 3 am
        # UTC") or when neither is a booking ("We deploy on Tuesdays." after "We deploy on
        # Fridays.") — a later booking of the same kind is most often another booking ("a
        # table for 3" weeks after "a table for 7 at Ugly Duckling")
        near = set(recent) | {
            i
            for i, o in enumerate(olds)
            if new.change is not None or not (new.booking or o.booking)
        }
        same |= {i for i in near if _same_slot(new, olds[i])}
        if same - gone:
            reason = reason or "new value"
        gone |= same
        if not gone and (again_named := [i for i, o in enumerate(olds) if _named_again(new, o)]):
            gone.add(again_named[-1])  # the newest: "Python 3.12 it is" means one decision
            reason = "named again"
    gone -= {i for i, e in enumerate(earlier) if e.strip() == sentence.strip()}
    gone |= _echoes(new, gone, olds, ages, failed=False)
    if not gone and searched and (found := _searched_again(sentence, new, earlier)):
        return Replacement(found, "search asked again", True)  # a weak word, nothing else read
    if not gone:
        return Replacement(pin=decided)
    return Replacement(tuple(sorted(gone)), reason, True)
