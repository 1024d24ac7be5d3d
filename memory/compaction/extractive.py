"""The deterministic compactor: no model, used as fallback and when none is configured.

It pins every sentence of the folded turns — the user's or the assistant's —
that states a decision (``memory.compaction.analysis.decisions``), unless it only restates one
already pinned; a later decision about the same thing replaces the earlier one, a previous
pin or one of the same fold (``analysis.supersession``: a new value, a correction, a
reversal, and the pins that echo what they replace), and the replaced
previous pins are returned as ``replaced_decisions``. The rest
merges into the summary by salience (``analysis.summary``). Offline and deterministic; no
file or network I/O, so it runs inside the event loop (jieba is loaded off it first,
``analysis.segmenter.ready_for``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import NamedTuple

from aimind_memory.memory.compaction.analysis import booking
from aimind_memory.memory.compaction.analysis.booking import Profile
from aimind_memory.memory.compaction.analysis.decisions import (
    decision_strength,
    is_bare_confirmation,
    is_small_talk,
    unquoted,
)
from aimind_memory.memory.compaction.analysis.segmenter import ready_for
from aimind_memory.memory.compaction.analysis.sentences import is_chinese, split_sentences
from aimind_memory.memory.compaction.analysis.statements import (
    acknowledged,
    confirms_agreed,
    gives_value,
    is_acceptance,
    is_bare_correction,
    is_offer,
    kept_apart,
    narrated_past,
    offers_to_act,
    proposes,
    refers_back,
    returns_to,
    said,
    stated,
    takes_all_on,
)
from aimind_memory.memory.compaction.analysis.summary import (
    TAIL,
    Part,
    merge_summary,
    rank_ahead,
)
from aimind_memory.memory.compaction.analysis.supersession import (
    Replacement,
    accepted_offer,
    option_words,
    replacement,
    returned,
    returned_unheld,
    says_back,
)
from aimind_memory.memory.compaction.analysis.why import agreed_why, change_why, pin_why
from aimind_memory.memory.compaction.analysis.words import content_words
from aimind_memory.memory.compaction.pins import merge_pins
from aimind_memory.memory.compaction.protocol import CompactionRequest
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.models import ChatThreadMessage, ExplainedOutput, Pin
from aimind_memory.memory.text import normalize

HISTORY_LABEL = "Since changed: "
"""A replaced pin goes to the summary as history, marked so: what held before the change."""
TAIL_LABELS = tuple(style.label for style in TAIL.values())
RESTATED_SHARE = 0.7
"""A decision whose content words are this much covered by an earlier pin restates it
("Understood: PostgreSQL in production." after "We decided to use PostgreSQL in production.")."""


_key = lru_cache(maxsize=4_096)(normalize)
"""``normalize`` of a sentence or a pin, cached: each decision is compared with every pin."""


def _restates(sentence: str, earlier: list[str]) -> bool:
    """Said before: contained in an earlier decision, or mostly its words with no new number
    ("item 7" after "item 6"), no other value of a kind both hold ("MySQL" after
    "PostgreSQL") and no change ("We're not doing the Big Sur trip anymore" after "We're
    doing the road trip to Big Sur")."""
    what = said(sentence)
    if what.change is not None:
        return False
    key, words, values = _key(sentence), set(content_words(sentence)), what.values

    def covered(old: str) -> bool:
        old_values = said(old).values
        if any(v - old_values[kind] for kind, v in values.items() if kind in old_values):
            return False
        old_words = set(content_words(old))
        if any(ch.isdigit() for word in words - old_words for ch in word):
            return False
        return bool(words) and len(words & old_words) >= RESTATED_SHARE * len(words)

    return any(key in _key(old) or covered(old) for old in earlier)


def with_history(summary: str, replaced: Sequence[str]) -> str:
    """The previous summary with the replaced pins as its newest lines (before the list of
    mentions that ends it), marked ``HISTORY_LABEL``: the summary may keep what held
    before a change, ranked with the rest."""
    if not replaced:
        return summary
    lines = summary.splitlines()
    tail = [lines.pop()] if lines and lines[-1].startswith(TAIL_LABELS) else []
    return "\n".join([*lines, *(f"- {HISTORY_LABEL}{pin}" for pin in replaced), *tail])


def marked_sentences(text: str) -> list[tuple[str, bool]]:
    """The message's sentences, in order, each with whether it states a decision.

    A bare confirmation ("Booked!", "预订成功。") takes the sentence after it as its
    object: "Booked! Your reference number is 7GAWK763." is one decision. So does a bare
    correction ("No.", "Scratch that.", "不对。"): "No. Play it on the bedroom speaker." is
    one correction, and "Scratch that." alone is never a pin.

    A new list each call of the cached marking (``_marked``): a message is marked when
    it is folded and again when it answers the message before it.
    """
    return list(_marked(text))


@lru_cache(maxsize=1_024)  # keyed by whole messages: a few folds' worth
def _marked(text: str) -> tuple[tuple[str, bool], ...]:
    sentences = split_sentences(text)
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(sentences):
        sentence = sentences[i]
        after = sentences[i + 1] if i + 1 < len(sentences) else ""
        joined, i = _joined(sentence, after), i + 2
        if after and is_bare_confirmation(sentence) and decision_strength(joined) > 0:
            out.append((joined, True))
        elif after and is_bare_correction(sentence):
            out.append((joined, max(decision_strength(joined), decision_strength(after)) > 0))
        else:
            out.append((sentence, decision_strength(sentence) > 0))
            i -= 1
    return tuple(out)


def _joined(first: str, second: str) -> str:
    """Two sentences of a message as one ("Booked! Ref 7GAWK763."; "Friday is free. Book
    it?"), Chinese without a space."""
    return first + ("" if is_chinese(first) else " ") + second


def decision_sentences(text: str) -> list[str]:
    """The message's sentences that state a decision, in order (``marked_sentences``)."""
    return [sentence for sentence, decided in marked_sentences(text) if decided]


def said_with_last(pins: Sequence[Pin], pinned: Sequence[str]) -> int:
    """How many of the previous pins, newest last, were said in the message the last one was
    said in (their records name it): a confirmation said in several sentences ("Booking a
    table at Sakoon. The reservation is at 6:30 pm.") is answered as one. 1 without records."""
    if not pins or [p.text for p in pins] != list(pinned):
        return 1
    last = {s.message_id for s in pins[-1].sources}
    together = 0
    for pin in reversed(pins):
        if not last & {s.message_id for s in pin.sources}:
            break
        together += 1
    return max(together, 1)


class FoldedPins(NamedTuple):
    """What a fold pins: its new decisions in order, the previous pins they replace, and
    its own decisions a later one in the same fold replaced (history for the summary);
    why each new pin is pinned, and for each replaced pin what replaced it and why."""

    pins: list[str]
    replaced: list[str]
    superseded: list[str]
    why: dict[str, str]
    replaced_by: dict[str, str]
    replaced_why: dict[str, str]


def fold_pins(
    folded: Sequence[Part],
    pinned: Sequence[str],
    said_last: int = 1,
    after: Part | None = None,
    history: Sequence[tuple[str, str]] = (),
) -> FoldedPins:
    """The folded turns' new decisions, in order, and the previous pins they replace.

    Small talk (``decisions.is_small_talk``) is passed over: neither a pin nor a change of
    one — except a rejection with its new value ("Nope. I wish to have 4 tickets."). Each other
    sentence is weighed against the decisions held so far (the previous pins, then this
    fold's): one that restates a decision is not pinned again; one that
    replaces a decision (``supersession.replacement``) takes its place — a previous pin
    goes to the replaced list, one of this fold is dropped, so only the later is pinned.
    How many messages ago each decision was said goes with it (the last previous pin, and
    the ``said_last`` newest said in its message: just before this fold; older ones: long
    ago). An offer or a confirmation asked and accepted in the answer after it is a
    decision (``supersession.accepted_offer``); ``after``, the first message still in the
    window, is that answer when the fold ends with the offer. ``history``: (a decision
    replaced before, the pin that replaced it), oldest first — what a return to an
    earlier option ("go back to Tailwind") brings back (``_returned``).
    """
    # (decision, previous pin, the index of the message that said it)
    last = len(pinned) - max(said_last, 1)
    held: list[tuple[str, bool, int | None]] = [
        (p, True, -1 if i >= last else None) for i, p in enumerate(pinned)
    ]
    replaced: list[str] = []
    superseded: list[str] = []
    changed_by: dict[str, tuple[str, str]] = {}  # a pin a change made → (reason, its sentence)
    taken_on: set[str] = set()  # statements the answer after them took on
    agreements: set[str] = set()  # what answers to a yes said was agreed
    restored: set[str] = set()  # earlier decisions a return brought back
    replaced_by: dict[str, str] = {}  # a replaced previous pin → the pin that replaced it
    replaced_why: dict[str, str] = {}

    chain = list(history)  # (replaced decision, what replaced it), oldest first

    def apply(change: Replacement, sentence: str, at: int, pinned: str | None = None) -> None:
        """``change``, said by ``sentence``: what it replaces goes, and ``pinned`` (the
        sentence itself, or the earlier decision a return brings back) is pinned."""
        nonlocal held
        returning, pinned = pinned is not None, pinned or sentence
        gone = set(change.replaced)
        for i, (text, previous, _) in enumerate(held):
            if i in gone:
                (replaced if previous else superseded).append(text)
                replaced_why[text] = change_why(sentence, change.reason)
                if change.pin:
                    replaced_by[text] = pinned
                    if not returning:  # a return adds no option: the chain would go round
                        chain.append((text, pinned))
        held = [h for i, h in enumerate(held) if i not in gone]
        if change.pin:
            held.append((pinned, False, at))
            if change.reason:
                changed_by[pinned] = (change.reason, sentence)

    def accept(offers: Sequence[str], answer: Part, index: int, put: Sequence[str] = ()) -> None:
        """The offers of message ``index - 1`` accepted by ``answer``, the other side's next
        message: "How about 6 pm instead?" → "Sure."; "I suggest SonarQube." → "Sure.";
        and what it ``put`` forward (its concrete statements) when the answer takes it all
        on ("Cap it at 5 retries." → "perfect, do it"). Most messages offer nothing: the
        answer is read only when something was offered."""
        if not (offers or put):
            return
        marked = _marked(answer.text)
        if not (marked and folded[index - 1].role != answer.role):
            return
        # "do it", "book it", "听你的": the offer taken as a decision, or what was put
        # forward last when nothing was offered ("Cap it at 5 retries.")
        strong = takes_all_on(answer.text)
        taken = put[-1:] if strong and not offers else ()
        if taken or (offers and (strong or is_acceptance(marked[0][0]))):
            for offer in [*offers, *(t for t in taken if t not in offers)]:
                texts = [t for t, _, _ in held]
                ages = [None if at is None else index - 1 - at for _, _, at in held]
                change = accepted_offer(offer, texts, ages=ages)
                if not change.pin and (
                    proposes(offer) or offer in taken or (strong and offers_to_act(offer))
                ):
                    # "I suggest SonarQube." → "Sure."; "Free at 2 pm. Book it?" → "yes, book it"
                    change = replace(change, pin=True, reason="accepted proposal")
                if offer in texts:  # a confirmation pinned as said: it stays where it is
                    change = replace(change, pin=False)
                apply(change, offer, index - 1)

    offers: list[str] = []  # the previous message's offers (not pinned, or confirming a change
    # asked for): its answer may accept them
    put: list[str] = []  # … and its last sentence, a statement not pinned, for an answer that
    # takes all on ("Cap it at 5 retries." → "do it")
    changed = False  # the message before said a change
    for index, message in enumerate(folded):
        accept(offers, message, index, put)
        # What the message before asked to confirm: a rejection answers the decision it
        # repeats ("… at 4:45 pm. Is that correct?" → "Nope! Please set at 3:30 pm.").
        confirming = offers if index and folded[index - 1].role != message.role else []
        offers, put = [], []
        # A decision pinned in a message asking to confirm the change just asked for
        # ("Actually, move it to Tuesday." → "I'll move the review to Tuesday at 3 pm. Is
        # that correct?") is an offer too: accepted, it replaces what the change changes.
        asked, changed = changed, False
        answer = folded[index + 1] if index + 1 < len(folded) else after
        # the user's statement the assistant took on — not the assistant's information the
        # user said "OK" to ("电话是010-62013366。" → "好的"): that is told, not agreed
        agreed = (
            acknowledged(message.text, answer.text)
            if answer is not None and message.role == "user" and answer.role != "user"
            else frozenset()
        )
        # the other side's answer to a yes, saying back what was agreed ("yep, ship that" →
        # "Done: catalog responses are cached for 15 minutes …"): its statements are decided
        said_back = (
            index > 0
            and message.role != "user"
            and folded[index - 1].role == "user"
            and confirms_agreed(folded[index - 1].text, message.text)
        )
        marked = _marked(message.text)
        for k, (sentence, decided) in enumerate(marked):
            # A quoted message is reported, not said: "Your latest message: "Let's book …""
            # neither replaces the pin it quotes nor is pinned for it.
            spoken = unquoted(sentence)
            what = said(spoken)
            if decided and narrated_past(spoken):
                decided = False  # "I decided to learn Rust back in 2020": an event
            elif not decided and sentence in agreed:
                decided = True  # "Tickets live in Jira." → "Okay.": a statement agreed
                taken_on.add(sentence)
            elif not decided and said_back and (stated(sentence) or gives_value(spoken)):
                decided = True  # "yep, ship that" → "Done: cached for 15 minutes."
                agreements.add(sentence)
            changed = changed or what.change is not None
            # never a pin, nor a change of one — but a rejection giving the new value in a
            # stance's words ("Nope. I wish to have 4 tickets.")
            if not decided and is_small_talk(sentence) and not (what.rejects and what.values):
                continue
            texts = [t for t, _, _ in held]
            if decided and _restates(sentence, texts):
                continue
            newest = held[-1][0] if held else ""
            if (how := changed_by.get(newest)) and says_back(
                said(kept_apart(spoken)), how[0], newest
            ):
                continue  # "订单服务连接池改成200" → "好的，订单服务改为200。": said back
            ages = [None if at is None else index - at for _, _, at in held]
            if back := _returned(spoken, texts, chain):
                current, earlier = back
                apply(returned(earlier, current, texts, ages), sentence, index, pinned=earlier)
                restored.add(earlier)
                continue
            change = replacement(
                spoken,
                texts,
                decided=decided,
                ages=ages,
                confirming=confirming,
                message=message.text,
            )
            apply(change, sentence, index)
            if (not change.pin or asked) and is_offer(sentence, message.text):
                # "Sunday 2 am is clear. Want to move it there?": it offers the sentence before
                offers.append(
                    _joined(marked[k - 1][0], sentence) if k and refers_back(sentence) else sentence
                )
            elif not change.pin and k == len(marked) - 1 and stated(sentence) and what.values:
                put.append(sentence)
    if after is not None:  # the answer is still in the window: the fold ends at the offer
        accept(offers, after, len(folded), put)
    pins = [t for t, previous, _ in held if not previous]
    # replaced, then brought back: it holds, it is no history
    replaced = [t for t in replaced if t not in restored]
    superseded = [t for t in superseded if t not in restored]
    why = {
        pin: _why(pin, *changed_by.get(pin, ("", pin)), pin in taken_on, pin in agreements)
        for pin in pins
    }
    replaced_by = {old: new for old, new in replaced_by.items() if new in why}
    return FoldedPins(pins, replaced, superseded, why, replaced_by, replaced_why)


def _returned(
    sentence: str, held: Sequence[str], chain: Sequence[tuple[str, str]]
) -> tuple[int, str] | None:
    """A return to an earlier option (contract §5): the held decision to replace and the
    earlier one to bring back. "go back to Tailwind" brings back the replaced decision that
    named Tailwind, in place of the held one that replaced it ("use CSS modules");
    "we're using the original one" brings back the first of the chain that ends in a held
    decision; an option named by a plain word ("back to sqlc") is the word the replaced
    decision says and the one that replaced it does not. A named option memory never held
    (``supersession.returned_unheld``) is the sentence itself, replacing what it rivals."""
    how = returns_to(sentence)
    if how is None:
        return None
    named = option_words(sentence)
    for old, by in reversed(chain) if how == "named" else chain:
        if how == "named" and not named & (option_words(old) - option_words(by)):
            continue
        current = by
        for earlier, later in chain:  # follow the chain to what holds now
            if earlier == current:
                current = later
        if current in held and old not in held:
            return held.index(current), old
    unheld = returned_unheld(sentence, held) if how == "named" else None
    return None if unheld is None else (unheld, sentence)


def _why(
    pin: str, reason: str, said_by: str, acknowledged: bool = False, said_back: bool = False
) -> str:
    """A new pin's ``why``: the decision it states, or the change that made it a pin —
    said by ``said_by``, another sentence when a return brought an earlier decision back;
    a statement the answer took on (``acknowledged``) or said back after a yes."""
    if said_by != pin:
        return change_why(said_by, reason)
    if decision_strength(pin) > 0 or not (reason or acknowledged or said_back):
        return pin_why(pin)
    return change_why(pin, reason) if reason else agreed_why(pin, said_back=said_back)


FOLDS_CACHED = 64
"""Folds whose pins are kept (``_fold_pins_of``): one per session a process serves at once
is what reading the next fold ahead needs."""


@lru_cache(maxsize=FOLDS_CACHED)
def _fold_pins_of(
    folded: tuple[Part, ...],
    pinned: tuple[str, ...],
    said_last: int,
    after: Part | None,
    history: tuple[tuple[str, str], ...],
) -> FoldedPins:
    """``fold_pins``, cached: the fold the next turn's write makes is known, all but that
    turn, before it is said; the compactor reads it ahead (``read_ahead``)."""
    return fold_pins(folded, pinned, said_last, after, history)


def _unshared(found: FoldedPins) -> FoldedPins:
    """A copy of a cached fold's lists and maps, for a caller that may change them."""
    return FoldedPins(*(type(part)(part) for part in found))  # type: ignore[arg-type]


def new_pins(folded: Sequence[ChatThreadMessage], pinned: Sequence[str]) -> list[str]:
    """The folded turns' decisions, in order, that no earlier pin already states."""
    return fold_pins([Part.of(m) for m in folded], pinned).pins


class ExtractiveCompactor:
    """Pins stated decisions from either side and keeps the folded turns' facts in the summary."""

    name = "extractive"
    inline = True
    """Fast and local: it folds within the write that overflows the window (contract §5)."""

    def __init__(self, limits: MemoryLimits | None = None, profile: Profile | None = None) -> None:
        """``profile``: switch the process's offline rules (``analysis.booking``: "general",
        or "booking" for an assistant that books things); None leaves them as they are."""
        self.limits = limits or MemoryLimits()
        if profile is not None:
            booking.use(profile)

    async def compact(self, request: CompactionRequest) -> ExplainedOutput:
        await ready_for(request.texts())  # jieba, off the loop, for Chinese text
        return self.compact_sync(request)

    async def read_ahead(
        self, turn: Sequence[ChatThreadMessage], upcoming: CompactionRequest | None
    ) -> None:
        """Fold the turn on its own, then the ``upcoming`` fold, and drop the results
        (``protocol.ReadsAhead``).

        What is a sentence's alone (its language, signals, words and salience) is cached
        per sentence; folding the new turn by itself makes all of it now, after the turn's
        write, and the fold that takes the turn later finds it made. Of the fold the next
        turn's write will make, all but that turn is known now: what it pins and the
        sentences its summary ranks are cached per fold, so that write only weighs the
        ranked sentences against the turns it keeps (benchmark 19 times both). The answers
        are pure functions' answers, so every output is the same with or without it.
        """
        await self.compact(
            CompactionRequest(summary="", pinned_decisions=[], folded=list(turn), kept=[])
        )
        if upcoming is not None:
            await ready_for(upcoming.texts())
            self._read_fold_ahead(upcoming)

    def compact_sync(self, request: CompactionRequest) -> ExplainedOutput:
        found, known = self._pins(request)
        pins, replaced, superseded, why, replaced_by, replaced_why = found
        previous, folded, known, history = _ranked(request, found, known)
        summary = merge_summary(
            previous,
            folded,
            known=known,  # the pins to be
            history=history,  # with_history lists them
            limit=self.limits.summary_chars,
            kept=[unquoted(m.text) for m in request.kept],  # a quote of a pin holds nothing
        )
        return ExplainedOutput(
            summary=summary,
            pinned_decisions=pins,
            replaced_decisions=replaced,
            superseded=superseded,
            why=why,
            replaced_by=replaced_by,
            replaced_why=replaced_why,
        )

    def _pins(self, request: CompactionRequest) -> tuple[FoldedPins, list[str]]:
        """What the fold pins and replaces, and the pins it leaves: all of it known before
        the newest of the turns it keeps is said (only the first kept message is read)."""
        together = said_with_last(request.pins, request.pinned_decisions)
        after = request.kept[0] if request.kept else None
        current = {p.id: p.text for p in request.pins}
        history = [
            (r.text, current[r.replaced_by]) for r in request.replaced if r.replaced_by in current
        ]
        found = _unshared(
            _fold_pins_of(
                tuple(map(Part.of, request.folded)),
                tuple(request.pinned_decisions),
                together,
                Part.of(after) if after is not None else None,
                tuple(history),
            )
        )
        known = merge_pins(
            request.pinned_decisions, found.pins, self.limits, replaced=found.replaced
        )
        return found, known

    def _read_fold_ahead(self, upcoming: CompactionRequest) -> None:
        """Work out the ``upcoming`` fold as far as it is known: what it pins, and the
        sentences its summary ranks (both cached per fold, ``_fold_pins_of`` and
        ``rank_ahead``). Weighing them against the turns it keeps waits for that fold."""
        previous, folded, known, history = _ranked(upcoming, *self._pins(upcoming))
        rank_ahead(previous, folded, known=known, history=history)


def _ranked(
    request: CompactionRequest, found: FoldedPins, known: list[str]
) -> tuple[str, Sequence[ChatThreadMessage], list[str], list[str]]:
    """What a fold's summary ranks, in the order ``merge_summary`` and ``rank_ahead`` take
    it: the old summary with the decisions the fold changed as history, the folded
    messages, the pins to be, and the changed decisions of the fold itself (history
    lists them: they are not repeated as said). One place, so that the fold and its
    reading ahead always ask the cache the same."""
    previous = with_history(request.summary, [*found.replaced, *found.superseded])
    return previous, request.folded, known, found.superseded
