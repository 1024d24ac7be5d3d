"""Which earlier decisions a later sentence replaces: pins say what holds now (contract §5).

A later sentence replaces an earlier decision when it is about the same thing and says
something else of it: what both say is read by ``statements`` (``Said``: their typed
values, subject words and change words). Each rule below names a signal a reader would
point to, and the reason it gives is the replaced pin's ``why`` (``why.change_why``):

1. **The old value named** ("instead of PostgreSQL", "no more PayPal", "不用 MySQL"): the
   decisions holding it go, however long ago they were said (``_holding``).
2. **Correction** ("actually", "make it", "switch to", "不对", "改成"): the one earlier
   decision it most likely means — a new value of a kind both hold, the most subject
   words and values shared, the newest among equals. Words that also just carry on a
   conversation ("actually", "instead", "还是…吧", 不X了) count only for the last
   decisions, in a decision, tied to it or answering it, and must bring a new value. A
   strong correction naming only the new thing ("换成大伟") means the last decision.
3. **Reversal** ("not … after all", "cancelled", "取消", "不再"): a decision sharing a
   subject word or a value with it, when it adds no detail of its own ("we won't deploy
   on Fridays" drops nothing about AWS).
4. **Same slot** (a decision, no change word needed): the same subject words and exactly
   one kind of value given another ("deploy on Monday" after "deploy on Friday"), however
   long ago it was said: a setting said anew is its new value. A changed id or code is
   another item (``IDENTIFYING_KINDS``). **Parallel decisions** ("staging" and "prod",
   iOS and Android) are told apart by their qualifiers: a change replaces its own slot
   only (``_other_slot``), and a kept clause ("prod stays") is not what it changes.
5. **Echoes**: a replaced decision takes with it the decisions said beside it
   (``ECHO_SPAN``) that assert the value that no longer holds and name nothing else: one
   change replaces the old value everywhere it was said.
6. **Accepted offer** (``accepted_offer``): an offer, a proposal or a confirmation asked
   ("How about 6 pm instead?", "I suggest SonarQube.") and accepted with a bare yes is
   the decision; it replaces the recent decision it gives another value of, or another
   thing of the kind it holds ("I suggest GitLab CI" after Jenkins).
7. **The old thing named beside its rival** (``_rivalled``): a decision naming a thing a
   decision about the same thing lacks, in a message naming that decision's thing outside
   the new clause ("HAProxy loses this one, ingress tier goes on Envoy"), whatever words
   say the drop — on top of what the rules above replace.
8. **The newest word on the same thing** (``_topic_slot``): the one decision a decision
   shares the most subject words with, each giving a value the other lacks, when no rule
   above replaced anything ("the auth service hashes passwords with argon2id" after
   "password hashing in the auth service: bcrypt"); a word after a word only one says
   ("read timeout" / "connect timeout") names another setting (``_qualified_apart``).

Never from a question or a hedge (unless accepted), or a sentence that adds a decision
("also", "另外"). A correction or reversal that replaces something is a decision itself
(the caller pins it). Pure functions, cached per sentence; no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import TypedDict, Unpack

from aimind_memory.memory.compaction.analysis import timewords as tw
from aimind_memory.memory.compaction.analysis.decisions import unquoted
from aimind_memory.memory.compaction.analysis.sentences import is_chinese, split_sentences
from aimind_memory.memory.compaction.analysis.statements import (
    NAMED,
    Said,
    added_apart,
    clauses,
    dropped_by_name,
    kept_apart,
    named_old_values,
    negated_values,
    returned_option,
    said,
    stem,
)
from aimind_memory.memory.compaction.analysis.values import (
    DETAIL_KINDS,
    RELATIVE_DAYS,
    THING_KINDS,
)

WEAK_KINDS = frozenset({"number", "code"})
"""Values too common, or too incidental (a reference code), to say two decisions are about
one thing without a change word."""
MIN_SCORE = 1
RECENT_DECISIONS = 1
"""Without a clear change word ("make it", "改成", "cancelled") a sentence replaces only the
last decision held (with the ones just before it about the same thing): further back, a
new value is more likely another thing of the same kind."""
RECENT_MESSAGES = 3
"""… and only one said in the last three messages (a request, its confirmation, the change
and its confirmation): not one from an earlier exchange."""
OFFER_MESSAGES = 6
"""An accepted offer changes a decision of the last three turns; echoes are said within
as many messages of the decision they repeat."""
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
    """Two values of one setting, where a bare number ("room 1", "item 996") may be another
    item: both say their numbers in one measure unit ("The API timeout is 30 seconds." →
    "API timeout: 60 seconds", "接口超时设为30秒" → "接口超时60秒"), or the setting is named
    again (``_setting_named``: "page size for the /orders endpoint is 50" → "orders page
    size: 200")."""
    return kind == "number" and (bool(new.units & old.units) or _setting_named(new, old))


SETTING_WORDS = 2
"""A setting named again shares this many subject words at least ("page size")."""


def _setting_named(new: Said, old: Said) -> bool:
    """Signal "a setting named again": one sentence's subject words all within the other's,
    and at least ``SETTING_WORDS`` of them — the same setting, so a bare number in both is
    its value said anew ("the retry count for the sync job is 3" → "sync job retry count:
    5"). One shared word ("item 995" → "item 996") names no setting."""
    if not (_VALUE_SAID.search(new.source) and _VALUE_SAID.search(old.source)):
        return False  # "item 995" → "item 996": a number naming which one, no value
    return len(new.subject & old.subject) >= SETTING_WORDS and _same_subject(new, old)


_VALUE_SAID = re.compile(r"(?:\b(?:is|are|be|to|at|of)\s+|[:=]\s*)\d", re.IGNORECASE)
"""A number said as a setting's value: after "is", "to", "at", "of", a colon or "="."""


def _same_subject(new: Said, old: Said) -> bool:
    """One's subject words within the other's (either may have none)."""
    return new.subject <= old.subject or old.subject <= new.subject


def _new_value(new: Said, old: Said) -> bool:
    """Rule 4, just said: the same subject (a word shared, or the same way of travelling:
    "I am flying to SD" after "I am flying to Las Vegas", and one's within the other's),
    exactly one kind of value differs — not which one it is: "chairs for room 2" after
    "chairs for room 1" is another room's (a correction may change it); or the same
    values, one thing named in place of another ("I'll play Gold on the bedroom speaker"
    after "… on the kitchen speaker")."""
    if _replugged(new, old):
        return True
    travelled = bool(new.values.get("travel", frozenset()) & old.values.get("travel", frozenset()))
    if not ((new.subject & old.subject or travelled) and _same_subject(new, old)):
        return False
    return _one_slot_changed(_new_values(new, old, weak=False))  # (not weak: never a code)


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
    """A subject word or a value (not a mere number or code) both sentences name."""
    shared = {k for k in new.values.keys() & old.values.keys() if new.values[k] & old.values[k]}
    return bool(new.subject & old.subject or shared - WEAK_KINDS)


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
    if not (decided or answered or _tied(new, old) or _rival(new, old)):
        return False
    if new.change == "reversal" or _new_values(new, old, weak=True):
        return True
    return answered and _swapped(new, old)


def _rival(new: Said, old: Said) -> bool:
    """Signal "another of the same kind": the sentence names another thing of a kind the
    decision holds ("还是Vue吧" after "就用Svelte", "actually Postgres" after "we use MySQL"):
    with a change word, that is the thing it changes, said in no words of its own."""
    kinds = new.values.keys() & old.values.keys() & THING_KINDS
    return any(new.values[k] - old.values[k] for k in kinds)


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


def _names_nothing_else(echo: Said, held: Sequence[Said]) -> bool:
    """The echo names no name that ``held`` do not (``_within``): "Book the Hilton for
    Friday" is no echo of "a table at Lucca for Friday"."""
    names = echo.values.get("name", frozenset())
    known = frozenset().union(*(h.values.get("name", frozenset()) for h in held))
    return all(any(_within(n, k) for k in known) for n in names)


def _within(name: str, known: str) -> bool:
    """The name is the known one or some of its words in a row ("Vegas" of "Las Vegas"):
    an echo may say a place shorter than the decision it repeats."""
    words, full = name.split(), known.split()
    return any(full[i : i + len(words)] == words for i in range(len(full) - len(words) + 1))


def _asserts_replaced(echo: Said, old: Said, new: Said) -> bool:
    """The echo says a value the replaced decision held and that no longer holds: of a
    kind the new sentence gives another value of — a number too when the echo says it in
    the new one's unit (``_measured``: "Max upload size is 10 MB." goes with "10 MB is too
    small" when "make it 250 MB" replaces it)."""
    measured = {"number"} if _measured("number", new, echo) else set()
    # a thing of no known kind in place of a known one: the known one no longer holds
    swapped = old.values.keys() & THING_KINDS if _unknown_for_known(new, old) else set()
    kinds = ((new.values.keys() - WEAK_KINDS) | measured) & old.values.keys() | swapped
    for kind in kinds & echo.values.keys():
        now = new.values.get(kind, frozenset())
        gone = _other(kind, echo.values[kind], now)  # what the echo says that holds no more
        if any(_same_value(kind, v, o) for v in gone for o in old.values[kind]):
            return True
    return False


def _echoes(
    new: Said, gone: Iterable[int], olds: Sequence[Said], ages: Sequence[int | None]
) -> set[int]:
    """Rule 5: the decisions said with a replaced one (within ``ECHO_SPAN`` of it) that
    assert what no longer holds (``_asserts_replaced``) — a request and its confirmation,
    a confirmation said in several sentences — naming nothing else and adding nothing
    beside it."""
    gone = set(gone)
    out: set[int] = set()
    for i in gone:
        for j in range(max(i - ECHO_SPAN, 0), min(i + ECHO_SPAN + 1, len(olds))):
            echo, at, said_at = olds[j], ages[i], ages[j]
            if j in gone or echo.additive:
                continue
            if at is not None and said_at is not None and abs(at - said_at) > OFFER_MESSAGES:
                continue
            if _asserts_replaced(echo, olds[i], new) and _names_nothing_else(echo, [olds[i], new]):
                out.add(j)
    return out


def _about(new: Said, old: Said) -> bool:
    """About the same thing: a subject word or a value (not a mere number) shared, and
    neither's subject words go beyond the other's."""
    return _same_subject(new, old) and _tied(new, old)


def _recent(new: Said, olds: Sequence[Said], ages: Sequence[int | None]) -> list[int]:
    """The last decision (every one said in its message: "We ship on Friday. The freeze
    starts on Wednesday."), and the ones just before it about the same thing as
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


def _negated_beside(new: Said, message: str, olds: Sequence[Said]) -> tuple[int, ...]:
    """Signal "the old value negated beside the choice": a choice naming a thing ("AWS
    Secrets Manager it is") in a message whose other sentence says not to the thing a
    decision holds ("we're not putting payments on Vault") replaces that decision."""
    if not message or not new.values.keys() & NAMED:
        return ()
    negated = negated_values(message.replace(new.source, " "))
    return tuple(
        i
        for i, old in enumerate(olds)
        if old.values.keys() & new.values.keys() & NAMED
        and any(_within(n, v) for vs in old.values.values() for v in vs for n in negated)
    )


def _things(what: Said) -> frozenset[str]:
    """The things a sentence names: its names and values of a thing kind ("Envoy",
    "PostgreSQL"), not a number, a date or a time (those many things share). In Chinese
    text a word in Latin letters is a name too ("YOURLS不用了"): Chinese is written without
    them, so one inside it names a product, a tool or a standard."""
    named = {v for k in what.values.keys() & NAMED for v in what.values[k]}
    latin = _LATIN.findall(what.source)
    if is_chinese(what.source):
        return frozenset(named | {w.lower() for w in latin})
    return frozenset(named | {w.lower() for w in latin if len(w) > 2 and _CAPITAL_INSIDE.match(w)})


_LATIN = re.compile(
    r"(?<![A-Za-z0-9_.+#-])[A-Za-z][A-Za-z0-9_.+#-]*[A-Za-z0-9+#](?![A-Za-z0-9_+#-])"
)
_CAPITAL_INSIDE = re.compile(r"[A-Za-z][a-z0-9]*[A-Z]")
"""A capital after the first letter ("HAProxy", "MkDocs", "gRPC"): a name wherever it
stands, the first word of a sentence too."""


def _mentions(text: str, thing: str, common: frozenset[str] = frozenset()) -> bool:
    """``thing`` (lower-cased, as ``Said`` holds it) said in ``text``: as a word of its own,
    or inside Chinese text (two characters at least); a longer name by one of its words
    too ("Statuspage" of "Atlassian Statuspage"), not one of the ``common`` words the
    sentence says of its own ("school" of "Pleasure Point Surf School")."""
    if not thing.isascii():
        return len(thing) > 1 and thing in text
    first, *rest = thing.split()
    later = [w for w in rest if len(w) >= PART_CHARS]
    # its first word only beside a later one that names it ("Atlassian" of "Atlassian
    # Statuspage"), never alone ("Postgres" of "Postgres 15" is the whole name said)
    words = [thing, *later, *([first] if later and len(first) >= PART_CHARS else [])]
    return any(
        re.search(rf"(?<![A-Za-z0-9_.+#-]){re.escape(w)}(?![A-Za-z0-9_+#-])", text, re.IGNORECASE)
        for w in words
        if w == thing or stem(w) not in common
    )


PART_CHARS = 4
"""A word of a longer name that names it alone ("Statuspage" of "Atlassian Statuspage"):
this long at least, not "AWS" of "AWS Secrets Manager"."""


def _rivalled(new: Said, message: str, olds: Sequence[Said]) -> tuple[int, ...]:
    """Signal "the old thing named beside its rival": a decision names a thing (its rival)
    that an earlier decision about the same thing does not hold, and its message names the
    thing that decision holds, outside the clause naming the rival: "HAProxy loses this one,
    ingress tier goes on Envoy"; "forget Statuspage, we're going with Instatus for the
    status page"; "阿里云短信弃用，验证码全部走Twilio". People name what they drop beside
    what replaces it, in words no list can hold ("is a no-go", "loses", "pass掉"): naming
    both apart is the signal, not the words between them. A thing the rival's clause names
    too is what both are about ("drop the API TTL to 120 seconds": TTL), and a clause that
    keeps a thing ("HAProxy stays at the edge") is no drop, nor is a decision's thing named
    only by that decision when it is of the same message ("We use Foo for orders. We use
    Bar for billing."). The same thing: a subject word shared, or the old thing said in the
    decision itself."""
    if not _things(new) or not message:
        return ()
    parts = clauses(new.source)
    kept = _kept_things(message)
    out = []
    for i, old in enumerate(olds):
        theirs = _things(old)
        rivals = [c for c in parts if _unheld(_things(said(c)), theirs)]
        if not theirs or not rivals:
            continue  # the old decision holds every thing this one names: said again
        # the old decision's own words name nothing it drops (it may be of this message)
        rest = message.replace(old.source, " ")
        in_rivals = frozenset[str]().union(*(_things(said(c)) for c in rivals))
        for clause in rivals:
            rest = rest.replace(clause, " ")
        named = {t for t in theirs - in_rivals - kept if _mentions(rest, t, new.subject)}
        if named and (new.subject & old.subject or named & _things(new)):
            out.append(i)
    return tuple(out)


def _unheld(things: frozenset[str], held: frozenset[str]) -> frozenset[str]:
    """The things none of ``held`` is, in full or in part ("Statuspage" is "Atlassian
    Statuspage")."""
    return frozenset(t for t in things if not any(_within(t, h) or _within(h, t) for h in held))


@lru_cache(maxsize=1_024)
def _kept_things(message: str) -> frozenset[str]:
    """The things a message names only in clauses that keep them ("HAProxy stays at the
    edge", "后台那个继续用Vite"): no drop of theirs."""
    return frozenset().union(
        *(_things(said(s)) - _things(said(kept_apart(s))) for s in split_sentences(message))
    )


TOPIC_WEIGHT = 1.5
"""What a decision must share with an earlier one to be about the same thing: two subject
words at least, one of them said by no other decision held (each word weighs one over the
number of decisions saying it)."""


def _values(what: Said) -> frozenset[str]:
    """Every value a sentence gives: its typed values and the things it names."""
    return frozenset(v for vs in what.values.values() for v in vs) | _things(what)


def _topic_slot(new: Said, olds: Sequence[Said]) -> tuple[int, ...]:
    """Signal "the newest word on the same thing": the one earlier decision a decision
    shares the most subject words with (``TOPIC_WEIGHT`` at least, words many decisions
    say weighing less), when each gives a value the other does not ("password hashing in
    the auth service: bcrypt" → "the auth service hashes passwords with argon2id"). A
    setting said anew is its new value, in whatever words: its subject words say which
    setting, not the kinds of its values. Two earlier decisions sharing as much (parallel
    slots: "free tier" and "pro tier" both "req/min") leave it undecided."""
    if not new.subject or not olds:
        return ()
    df = Counter(w for o in (*olds, new) for w in o.subject)
    scores = [sum(1 / df[w] for w in new.subject & o.subject) for o in olds]
    best = max(scores)
    if best < TOPIC_WEIGHT or scores.count(best) > 1:
        return ()
    best_at = scores.index(best)
    old = olds[best_at]
    mine, theirs = _values(new), _values(old)
    if not (mine - theirs and theirs - mine) or _qualified_apart(new, old):
        return ()  # no other value (said again, or a detail added), or another slot
    if _same_subject(new, old):
        return ()  # the same words but values: the typed rules (``_same_slot``) say which
    return (best_at,)


def _ordered(what: Said) -> list[str]:
    """A sentence's subject words in the order it says them."""
    text = what.source.lower()
    return sorted((w for w in what.subject if w in text), key=text.find)


def _qualified_apart(new: Said, old: Said) -> bool:
    """Signal "another one of the same kind": a word both say comes after a word only one
    says in each ("connect timeout" / "read timeout", "商品服务连接池" / "订单服务连接池"):
    the word before names which one, so the two are two settings, not one said anew."""

    def before(words: list[str]) -> dict[str, str]:
        return {w: p for p, w in pairwise(words)}

    mine, theirs = before(_ordered(new)), before(_ordered(old))
    return any(
        mine[w] not in old.subject and theirs[w] not in new.subject
        for w in (new.subject & old.subject) & mine.keys() & theirs.keys()
    )


def _tied_first(new: Said, olds: Sequence[Said], scores: list[int]) -> list[int]:
    """Signal "named beats same kind": when the change names what some of the decisions it
    may change are about (a subject word), one it names nothing of — only another value of a
    kind ("Ruff" and "ESLint" are both names) — is not what it changes ("python side switches
    to Ruff" changes "python code uses flake8", not "typescript is ESLint")."""
    named = [bool(new.subject & o.subject) for o in olds]
    if not any(s and n for s, n in zip(scores, named, strict=True)):
        return scores
    return [s if n else 0 for s, n in zip(scores, named, strict=True)]


def _named_around(message: str, olds: Sequence[Said], recent: Sequence[int]) -> tuple[int, ...]:
    """Signal "the message names what its correction changes": a clear correction tied to no
    decision by its own words ("let's move to git flow") changes the recent decision that
    its message's other words name ("the release managers want proper release branches.
    let's move to git flow" after "trunk-based, short-lived branches"): people say the why
    and the what of a change in one breath."""
    if not message:
        return ()
    around = said(message).subject
    return _best([len(around & olds[i].subject) if i in recent else 0 for i in range(len(olds))])


def _offer_changes(new: Said, old: Said) -> bool:
    """What an accepted offer changes: a decision it gives another value of a kind both
    hold, when it is tied to it (``_tied``: a subject word or a value shared) or either
    gives only a detail (``_bare_detail``: "How about 12:30 pm?" names no thing, so it
    means the decision just made, and changes its time, day, number of people or length);
    or the same sentence with one thing named in place of another (``_replugged``). "Have
    you been to Paris?" "Yes!" changes no trip to London."""
    if _replugged(new, old):
        return True
    # a number of the thing the decision is about: "Is staging actually on 14?" after
    # "Staging runs on Postgres 13."
    own = bool(new.subject) and new.subject <= old.subject
    weak = (
        {"code"} if own else WEAK_KINDS - ({"number"} if _measured("number", new, old) else set())
    )
    differing = {
        k
        for k in _new_values(new, old, weak=True) - weak
        if not (new.values[k] | old.values[k]) & RELATIVE_DAYS  # "today" may be "Wednesday"
    } | _unknown_for_known(new, old)  # "ship logs to Loki instead" after Elasticsearch
    if not differing:
        return False
    # "Should I try 12:30 pm?" after a time; "Sunday is clear. Want to move it there?"
    detail = _bare_detail(old) or _bare_detail(new) or _names_no_thing(new)
    # "I suggest GitLab CI" after "Jenkins for CI": another thing of the kind it holds
    return _tied(new, old) or _rival(new, old) or (detail and bool(differing & DETAIL_KINDS))


def _names_no_thing(offer: Said) -> bool:
    """An offer naming no thing, only a detail ("Sunday 2 am would be clear. Want to move it
    there?"): it offers another time, day or number for what is being decided."""
    return not offer.values.keys() & (THING_KINDS | {"name"})


def _bare_detail(old: Said) -> bool:
    """A decision that says only a detail, no thing of its own ("Set it for evening 4"):
    what it sets is what it answers, so an accepted offer of another time, day, number of
    people or length changes it."""
    return not old.subject and "name" not in old.values and bool(old.values.keys() & DETAIL_KINDS)


def accepted_offer(
    offer: str, earlier: Sequence[str], *, ages: Sequence[int | None] | None = None
) -> Replacement:
    """Rule 6: an offer accepted in the answer after it (``is_offer``, ``is_acceptance``:
    "How about 6 pm instead?" → "Sure.") is the decision, whatever question form it was
    said in: it replaces the decision of the last three turns (before the offer's message)
    that it changes (``_offer_changes``; the newest, the most shared among equals), with
    that decision's echoes. Pinned only when it replaces something: an offer accepted with
    nothing before it stays as the conversation said it (the caller pins a proposal).
    ``ages`` as for ``replacement``, counted from the offer; an adding clause beside the
    change (``added_apart``) is not what it changes."""
    new = said(added_apart(offer))
    if new.additive or new.change == "reversal":
        return NOTHING
    olds = [said(e) for e in earlier]
    ages = [0] * len(olds) if ages is None else ages
    scores = [
        _correction_score(new, old)
        if age is not None
        and 0 < age <= OFFER_MESSAGES  # not the offer's own message: its other sentences
        and _offer_changes(new, old)
        else 0
        for old, age in zip(olds, ages, strict=True)
    ]
    picked = set(_best(scores))
    gone = picked | _echoes(new, picked, olds, ages)
    gone -= {i for i, e in enumerate(earlier) if e.strip() == offer.strip()}
    if gone:
        return Replacement(tuple(sorted(gone)), "accepted offer", True)
    return NOTHING


def says_back(what: Said, reason: str, change: str) -> bool:
    """The change just made (``change``, pinned for ``reason``), said back by the answer
    ("drop the API TTL to 120 seconds" → "Okay, API cache TTL is 120 seconds."; "小程序版本
    不做了" → "好的，小程序版本取消。"): a change of the same kind — or a correction after the
    old value named ("不用腾讯云了，换阿里云短信" → "好的，短信改用阿里云。") — naming nothing
    the change did not, every value and subject word of it the change's. It confirms the
    change; it is no further change of the decisions before."""
    if what.change is None or not (what.values or what.subject):
        return False
    made = said(unquoted(change))
    named = reason in ("old value named", "old value negated") and what.change == "correction"
    if what.change != made.change and not named:
        return False
    return what.subject <= made.subject and all(
        v <= made.values.get(k, frozenset()) for k, v in what.values.items()
    )


def returned(
    earlier: str, current: int, held: Sequence[str], ages: Sequence[int | None]
) -> Replacement:
    """A return to an earlier option (``earlier``, "go back to Tailwind"): the held decision
    that replaced it (``current``) goes, with its echoes — the decisions said beside it that
    assert the value the return drops ("use CSS modules" beside "Okay, switching to CSS
    modules."), as any change takes them (rule 5)."""
    olds = [said(h) for h in held]
    gone = {current} | _echoes(said(earlier), {current}, olds, ages)
    return Replacement(tuple(sorted(gone)), "return", True)


def option_words(sentence: str) -> frozenset[str]:
    """What a sentence names as an option: its values and its subject words ("sqlc", a tool
    no list knows, is a plain word)."""
    what = said(sentence)
    return what.subject | {v for vs in what.values.values() for v in vs}


def returned_unheld(sentence: str, held: Sequence[str]) -> int | None:
    """Signal "a return to an option memory never held": "还是用回Taro", "going back to
    sqlc" when the first choice was never pinned. The return undoes a switch: the newest
    held decision said as one ("改用uni-app", "switches to GORM") giving another value of a
    kind the return names (not a mere number), or naming what the return is about beside an
    option no decision names ("sqlc"). "go back to work" undoes no switch."""
    new, option = said(sentence), said(returned_option(sentence))
    olds = [said(h) for h in held]
    if not option.subject | option.values.keys() or any(
        option.subject <= o.subject
        and all(v <= o.values.get(k, frozenset()) for k, v in option.values.items())
        for o in olds
    ):
        return None  # no option named, or a decision holds it already: it was said back
    for i in range(len(held) - 1, -1, -1):
        old = olds[i]
        if old.change != "correction":
            continue  # only a decision said as a switch left an earlier option to go back to
        if _rival(new, old) or _new_values(new, old, weak=False):
            return i
        if not option.values and new.subject & old.subject and option.subject - old.subject:
            return i
    return None


IDENTIFYING_KINDS = frozenset({"id", "code"})
"""Values that say which thing a decision is about ("room 4", "P4"): another one is
another thing, never a new value of the same slot."""


def _qualifiers(what: Said, changed: set[str]) -> frozenset[str]:
    """What a decision is about beside the values that change (``changed``, their kinds):
    its subject words and its plain names ("Android" is a name inside a sentence and a
    subject word opening one) — not when a name is what changes ("use CSS modules")."""
    if not changed - {"name"}:
        return what.subject
    return what.subject | {w for n in what.values.get("name", ()) for w in n.split()}


def _other_slot(new: Said, old: Said, held: Sequence[Said]) -> bool:
    """Signal "another slot of the same kind": two decisions held side by side give values
    of one kind to two things ("Staging runs on m5.large." beside "Prod gets m5.2xlarge.",
    "iOS ships March 4" beside "Android ships March 11", "订单服务用MySQL" beside "用户画像上
    ClickHouse"). What tells the slots apart is what each is about and the other is not
    (its qualifiers: "prod", "Android", "订单"); a change naming the other's and none of
    this one's changes the other slot, never this one."""
    changed = _new_values(new, old, weak=True)
    mine, named = _qualifiers(old, changed), _qualifiers(new, changed)
    for rival in held:
        # a slot of its own: a value of the kind that changes, neither the new one said
        # before nor the old one said again
        own = _new_values(rival, new, weak=True) & _new_values(rival, old, weak=True)
        if rival is old or not own & changed:
            continue
        theirs = _qualifiers(rival, changed)
        if named & (theirs - mine) and not named & (mine - theirs):
            return True
    return False


def _same_slot(new: Said, old: Said) -> bool:
    """The same slot: the same subject words (some, and neither's qualifiers beyond the
    other's: "iOS ships on May 5" beside "Android ships on May 12" are two parallel
    decisions) and exactly one kind of value — not a mere number — given another value
    ("deploy on Monday" after "deploy on Friday"). With a change word it means that
    decision, however long ago it was said."""
    if not new.subject & old.subject:
        return False
    # a number or a code alone is another item ("item 996" after "item 995") unless a
    # change word says it is a new value of the same one ("raise the cap to 40")
    differing = _new_values(new, old, weak=new.change is not None) or _unknown_for_known(new, old)
    mine, theirs = _qualifiers(new, differing), _qualifiers(old, differing)
    return not (mine - theirs and theirs - mine) and _one_slot_changed(differing)


def _recounted(new: Said, at: int, olds: Sequence[Said]) -> bool:
    """Signal "the only count of these things, counted anew": a decision counting the same
    things in another number ("registry retention: last 5 tags" after "registry cleanup:
    keep the last 20 tags"), tied by a word beside them, when no other decision held counts
    them — two that do are parallel slots ("staging: 2 replicas", "prod: 6 replicas")."""
    old = olds[at]
    units = new.units & old.units & new.subject  # things counted, not a measure ("seconds")
    if not units or _new_values(new, old, weak=True) != {"number"}:  # not "for room 2"
        return False
    if not (new.subject & old.subject) - units:
        return False
    return not any(o.units & units for i, o in enumerate(olds) if i != at)


WHEN_KINDS = frozenset({"date", "time"})
"""A day and a time of day said together are one slot: when."""


def _one_slot_changed(differing: set[str]) -> bool:
    """Exactly one kind of value given another, and not which thing it is (an id, a code):
    one slot set anew, not another item. A date and a time given another value together
    ("on Thursday at 11 am" after "on Wednesday at 2 pm") are one slot changed, when."""
    slots = {"when" if k in WHEN_KINDS else k for k in differing}
    return len(slots) == 1 and not differing & IDENTIFYING_KINDS


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
    return _one_slot_changed(_new_values(new, old, weak=True))


def _holding(
    named: frozenset[str], olds: Sequence[Said], *, words: bool = False
) -> tuple[int, ...]:
    """The earlier decisions holding a value the new sentence names as the one it
    replaces ("… instead of PostgreSQL"): the old value named is the clearest sign of
    which decision changes, however long ago it was said. A Chinese thing is no typed
    value: named in the decision's words it is held too ("不用腾讯云了" after
    "短信服务用腾讯云的"); with ``words``, an English one too ("no more google drive" after
    "recordings go in the google drive folder")."""
    if not named:
        return ()
    return tuple(
        i
        for i, old in enumerate(olds)
        if any(v in named or v.split()[0] in named for vs in old.values.values() for v in vs)
        or any(len(n) > 1 and not n.isascii() and n in old.source for n in named)
        or (words and bool(named & {w.strip(".") for w in _WORD.findall(old.source.lower())}))
    )


_WORD = re.compile(r"[\w.+#-]+")


def _replacement(
    sentence: str,
    earlier: Sequence[str],
    *,
    decided: bool,
    ages: Sequence[int | None] | None = None,
    confirming: Sequence[str] = (),
    message: str = "",
) -> Replacement:
    """``replacement`` by the rules of one decision each (1–6 and 8): the one a correction
    means, a new value's slot, an offer's change; ``_rivalled`` adds to what these find."""
    changing = kept_apart(sentence)  # "…; orders stays on PostgreSQL": not what changes
    new = said(changing)
    decided = decided or new.labelled
    if new.tentative or new.additive or not earlier:
        return Replacement(pin=decided)
    olds = [said(e) for e in earlier]
    if not (decided or new.change):
        # no decision and no change words: only the old value dropped by name replaces
        dropped = _holding(dropped_by_name(changing), olds, words=True)
        return Replacement(dropped, "old value named", True) if dropped else NOTHING
    if named := _holding(named_old_values(changing), olds):
        return Replacement(named, "old value named", True)
    if negated := _negated_beside(new, message, olds):
        return Replacement(negated, "old value negated", True)
    ages = [0] * len(olds) if ages is None else ages
    recent = _recent(new, olds, ages)
    gone: set[int] = set()
    beside: set[int] = set()  # decisions of another slot of the same kind, left as they are
    reason = ""
    if new.change is not None:
        score = _correction_score if new.change == "correction" else _reversal_score
        # the same slot with another thing in it, sharing nothing else ("Use Memcached for
        # the cache instead." after "… Redis for the cache"): the slot is the tie
        scores = [score(new, o) or int(_same_slot(new, o)) for o in olds]
        beside = {i for i, s in enumerate(scores) if s and _other_slot(new, olds[i], olds)}
        scores = [0 if i in beside else s for i, s in enumerate(scores)]
        if new.weak:  # a recent decision only, with a decision, a tie or an answer to it
            scores = [
                s
                if _same_slot(new, o)
                or _dropped(new, o)
                or (
                    i in recent
                    and _weakly(
                        new, o, decided, new.rejects and _answers(ages[i], _repeated(o, confirming))
                    )
                )
                else 0
                for i, (s, o) in enumerate(zip(scores, olds, strict=True))
            ]
        picked = _best(_tied_first(new, olds, scores))
        if not picked and new.change == "correction" and not new.weak:
            # one naming only the new thing ("换成小李", "make it the grey one"): the last decision
            anaphoric = len(new.subject) <= 1 and not (new.values.keys() - WEAK_KINDS)
            picked = _named_around(message.replace(sentence, " "), olds, recent) or (
                (len(olds) - 1,) if anaphoric else ()
            )
        if picked and picked[0] in recent:  # the request and its confirmation change together
            picked += tuple(i for i in recent if _new_values(new, olds[i], weak=False))
        gone.update(picked)
        reason = new.change
    if decided:
        same = {i for i in recent if _new_value(new, olds[i])}
        # the same slot: just said, or however long ago with a change word ("moved to 3 am
        # UTC") or not ("We deploy on Tuesdays." after "We deploy on Fridays."): a setting
        # said anew is its new value
        counted = {i for i in range(len(olds)) if _recounted(new, i, olds)}
        same |= counted | {i for i, old in enumerate(olds) if _same_slot(new, old)}
        beside |= {i for i in same if _other_slot(new, olds[i], olds)}
        same -= beside
        if same - gone:
            reason = reason or ("new count" if same - gone <= counted else "new value")
        gone |= same
        if not gone and (again_named := [i for i, o in enumerate(olds) if _named_again(new, o)]):
            gone.add(again_named[-1])  # the newest: "Python 3.12 it is" means one decision
            reason = "named again"
        if not gone and (topic := set(_topic_slot(new, olds)) - beside):
            gone |= topic
            reason = "new value"
    gone -= {i for i, e in enumerate(earlier) if e.strip() == sentence.strip()}
    gone |= _echoes(new, gone, olds, ages)
    if not gone:
        return Replacement(pin=decided)
    kept = said(sentence).subject - new.subject  # what a kept clause names: "prod stays"
    beside |= {i for i, o in enumerate(olds) if i not in gone and kept & o.subject}
    if beside and reason in ("correction", "new value", "new count"):
        reason = "own slot"  # one of two parallel decisions changed, the other left
    return Replacement(tuple(sorted(gone)), reason, True)


class Context(TypedDict, total=False):
    """What ``replacement`` may know of the conversation around a sentence."""

    ages: Sequence[int | None] | None
    confirming: Sequence[str]


def replacement(
    sentence: str,
    earlier: Sequence[str],
    *,
    decided: bool,
    message: str = "",
    **context: Unpack[Context],
) -> Replacement:
    """The earlier decisions (oldest first) that ``sentence`` replaces, and whether it is
    to be pinned: ``decided`` (it states a decision, or opens as a change of plan), or a
    correction or reversal that replaces something. ``ages``: how many messages ago each
    earlier decision was said (None: long ago; default: all just now); ``confirming``:
    what the message before asked to confirm (a rejection answers the decision it
    repeats); ``message``: the whole message the sentence is in (``_named_around``,
    ``_rivalled``). What the rules above replace, and every decision whose thing the
    message names beside its rival (``_rivalled``): a change may drop more than one."""
    found = _replacement(sentence, earlier, decided=decided, message=message, **context)
    new = said(kept_apart(sentence))
    if not (decided or new.change or found.pin) or new.tentative or new.additive:
        return found
    rivalled = set(_rivalled(new, message, [said(e) for e in earlier])) - set(found.replaced)
    rivalled -= {i for i, e in enumerate(earlier) if e.strip() == sentence.strip()}
    if not rivalled:
        return found
    return Replacement(
        tuple(sorted({*found.replaced, *rivalled})), found.reason or "rival named", True
    )
