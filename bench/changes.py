"""Benchmark: decision changes — do the final pins say what holds now (contract §5, issue 30)?

Two kinds of conversation, each replayed through ``open_memory`` (embedded SQLite) turn
by turn, then what is still in the window folded too, so every turn has been through
compaction:

- **Ours** (``tests/memory/data/changes/``, EN and ZH, see its README): a decision made
  and later changed — a new value, a correction, a reversal — or stated as an
  arrangement, and controls where two unrelated decisions must both stay. A case is
  stale when a final pin still asserts an old value (and not the new one); the new
  value is kept when every ``now`` string is in a final pin.
- **Public task dialogues nobody here wrote**: MultiWOZ 2.1 and CrossWOZ, their own
  dialogue states (``bench.dialogues.state_changes``): a slot whose value the dialogue
  overwrote, both values said in its text, and the old value held by no slot at the
  end. A dialogue is stale when a final pin asserts an overwritten value without its
  new one; where the old value was pinned at some point, is the new one pinned at the
  end? Which dialogues are held out and which tuned on: ``PUBLIC``.

The extractive compactor always; the configured model too when there is one.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel

from aimind_memory.memory import ExtractiveCompactor, FinalTurn, open_memory
from aimind_memory.memory.compaction import CompactionRequest, fold, run_compactor
from aimind_memory.memory.compaction.analysis import booking
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.config.model import compaction_model
from bench import dialogues
from bench.common import BenchEnv, Profile, write_json
from bench.common import target as _target

NAME = "changes"
LABEL = "changes: pins say what holds now after a decision changes"

DATA = Path(__file__).resolve().parent.parent / "tests" / "memory" / "data" / "changes"
LANGUAGES = ("en", "zh")
ChangeSet = Literal["tune", "heldout"]
"""A side: what is reported (held out) and what the rules may be tuned on."""
ChangeFile = Literal[
    "tune",
    "heldout",
    "team_tune",
    "team_heldout",
    "team_heldout2",
    "team_heldout3",
    "team_heldout4",
    "team_heldout5",
    "team_heldout6",
    "team_heldout7",
    "team_heldout8",
]
"""One of our sets: ``tests/memory/data/changes/<file>_{en,zh}.jsonl``."""
OURS: dict[ChangeSet, tuple[ChangeFile, ...]] = {
    "heldout": ("team_heldout8",),
    "tune": (
        "team_tune",
        "team_heldout",
        "team_heldout2",
        "team_heldout3",
        "team_heldout4",
        "team_heldout5",
        "team_heldout6",
        "team_heldout7",
        "tune",
        "heldout",
    ),
}
"""Our sets of each side. The held-out side is the eighth software-team set of issue 43
(``team_heldout8``: 12 conversations a language, two each of six kinds of change, other
topics than the earlier sets'), written by someone who had not read the offline engine and
frozen in its own commit (6e2d300) before any replay; its first run was the engine of
wave 38's session 10. The seventh team set (e1e8663) had its first run recorded (the
engine at 82c07a7), the sixth (92232c7) its own at bb3a076, the fifth (31c9c7c) its own at
f69b520, the fourth (4b41987) its own at 5029880, the third (b452932) its own at 1f109fa, the second
(e1768a4) its own at d9fb1b9, the first (669ddc8, 40 a language) its own in wave 38, and
the sets held out before them (frozen before the supersession rules, reported through issue
30) have been read and tuned beside since: tuning data now, with the team set's tuning
half."""


class PublicSet(NamedTuple):
    """One public corpus's dialogues of a side: the first ``size`` dialogues with a change
    of ``split`` (``None``: all), in file order; SGD's ``part`` names which of its files
    (``bench.dialogues.SGD_PARTS``: 1 is files 001–010, 2 the test split's next ones)."""

    corpus: str
    split: str
    size: int | None
    part: int = 1

    @property
    def label(self) -> str:
        """``multiwoz val``, ``sgd test 001–010``: the key of its figures."""
        return f"{self.corpus} {dialogues.part_label(self.corpus, self.split, self.part)}"


PUBLIC_PROFILE: booking.Profile = "booking"
"""The offline rules the public corpora are replayed with: theirs are bookings, tickets and
trains, the booking profile's domain (contract §5: an opt-in profile, off by default)."""
PUBLIC: dict[ChangeSet, tuple[PublicSet, ...]] = {
    "heldout": (
        PublicSet("multiwoz", "train", 300),
        PublicSet("crosswoz", "train", 100),
        PublicSet("sgd", "train", 300, part=4),
    ),
    "tune": (
        PublicSet("multiwoz", "val", None),
        PublicSet("multiwoz", "test", None),
        PublicSet("crosswoz", "val", None),
        PublicSet("crosswoz", "test", None),
        PublicSet("sgd", "train", 300),
        PublicSet("sgd", "test", 300),
        PublicSet("sgd", "test", 300, part=2),
        PublicSet("sgd", "dev", 300),
        PublicSet("sgd", "dev", 300, part=3),
    ),
}
"""Which public dialogues are held out and which tuned on. Held out: MultiWOZ's and
CrossWOZ's train splits, never replayed before this set was frozen (wave 33; their files
are large and some mirrors leave them out, then the row says so), and SGD's train
split's files 011–020 (English, its own dialogue states), never replayed before they were
frozen (wave 37). The test splits of MultiWOZ and CrossWOZ were held out in wave 30, SGD's
train files 001–010 in wave 33, its test files 001–010 in wave 34, its test part 2 (files
011–024 but the five the mirror lacks) in wave 35, its dev files 001–010 and its dev part 3
(011–020 but the three the mirror lacks) in wave 36, but their stale dialogues were read
after their first run, so they are tuning data now, beside the val splits."""
QUICK_LIMIT = 40
"""``--quick``: the first 40 dialogues with a change of each corpus and split."""
STALE_GOAL = 0
NOW_GOAL = 0.95
"""The older sets' goal (issue 30): the share of conversations whose new value is pinned."""
CORRECT_GOAL = 0.90
"""Issue 43's goal on the held-out side: the share of conversations judged correct (the
new value pinned, no stale pin)."""

_EDGE = re.compile(r"[0-9a-z一二三四五六七八九十两百千万零]")
"""A character that continues a number or a word: a value inside one is not that value."""
_NUMBER_WORDS = {
    "1": "one",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "10": "ten",
}
_COUNTED = {
    "people": r"(?:{n})\s+(?:people|persons?|guests?|adults?|of us|ppl|tickets?|seats?|riders?)\b"
    r"|\bfor\s+(?:{n})\b"
    r"(?!\s*(?:nights?|days?|stars?|:|am\b|pm\b|\.\d))|\bparty of (?:{n})\b",
    "stay": r"\b(?:{n})\s+(?:nights?|days?)\b",
    "stars": r"\b(?:{n})[\s-]*stars?\b",
}
"""Public slots whose value is a bare number: said with its unit ("6 people", "for 6",
"1 ticket", "3 nights", "4-star"), not any 6 in a pin. SGD's counts of tickets, seats and
riders are its people slots (``bench.dialogues.SGD_COUNTED``), said in the singular too
("make it 1 ticket")."""


class ChangeCase(BaseModel):
    """One conversation of ``tests/memory/data/changes`` (see its README)."""

    id: str
    kind: Literal[
        "new_value",
        "correction",
        "old_value_named",
        "return_to_earlier",
        "accepted_proposal",
        "parallel",
        "reversal",
        "arrangement",
        "control",
        "no_decision",
    ]
    turns: list[tuple[str, str]]
    stale: list[str]
    now: list[str]


def cases(language: str, which: ChangeFile = "tune") -> list[ChangeCase]:
    path = DATA / f"{which}_{language}.jsonl"
    return [
        ChangeCase.model_validate(json.loads(line))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def asserts(value: str, text: str) -> bool:
    """``value`` is in ``text`` (case-insensitive), not inside a longer number or word."""
    v, t = value.casefold(), text.casefold()
    if not v:
        return False
    start = t.find(v)
    while start >= 0:
        end = start + len(v)
        before = start == 0 or not (_EDGE.match(v[0]) and _EDGE.match(t[start - 1]))
        after = end == len(t) or not (_EDGE.match(v[-1]) and _EDGE.match(t[end]))
        if before and after:
            return True
        start = t.find(v, start + 1)
    return False


def slot_asserts(slot: str, value: str, text: str) -> bool:
    """A public slot's value in ``text``: a bare number only with its unit (``_COUNTED``)."""
    kind = slot.rsplit("-", 1)[-1]
    if kind in _COUNTED and value.isdigit():
        numbers = "|".join(re.escape(n) for n in (value, _NUMBER_WORDS.get(value, value)))
        return bool(re.search(_COUNTED[kind].format(n=numbers), text, re.IGNORECASE))
    return asserts(value, text)


async def replay(
    session: str, turns: list[tuple[str, str]], url: str, compactor: Any = None
) -> tuple[list[str], list[str]]:
    """Every turn through ``open_memory``, then the window folded too: the final pins, and
    every pin held at some point along the way."""
    seen: list[str] = []
    async with open_memory(url, compactor=compactor) as mem:
        for user, assistant in turns:
            turn = FinalTurn(user_text=user, assistant_text=assistant, status="completed")
            await mem.append_turn(session, turn)
            seen += (await mem.load(session)).pinned_decisions
        state = await mem.load(session)
        request = CompactionRequest(
            state.summary,
            list(state.pinned_decisions),
            state.messages,
            [],
            pins=tuple(state.pins),
        )
        output, used = await run_compactor(
            request, primary=mem.compactor, fallback=mem.fallback, limits=mem.limits
        )
        final = fold(state, request, output, mem.limits, compactor=used).pinned_decisions
    return final, list(dict.fromkeys([*seen, *final]))


def judge(case: ChangeCase, pins: list[str]) -> dict[str, Any]:
    """The case's stale pins (an old value without the new one) and whether every ``now``
    string is in some pin."""
    stale = [
        p
        for p in pins
        if any(asserts(s, p) for s in case.stale) and not any(asserts(n, p) for n in case.now)
    ]
    kept = all(any(asserts(n, p) for p in pins) for n in case.now)
    return {
        "id": case.id,
        "kind": case.kind,
        "stale": stale,
        "now_kept": kept,
        "correct": kept and not stale,
        "pins": pins,
    }


def set_summary(judged: list[dict[str, Any]]) -> dict[str, Any]:
    kinds = Counter(j["kind"] for j in judged)
    return {
        "cases": len(judged),
        "stale_cases": sum(bool(j["stale"]) for j in judged),
        "stale_pins": sum(len(j["stale"]) for j in judged),
        "now_kept_share": round(sum(j["now_kept"] for j in judged) / len(judged), 3),
        "correct_share": round(sum(j["correct"] for j in judged) / len(judged), 3),
        "controls_kept": f"{sum(j['now_kept'] for j in judged if j['kind'] == 'control')}"
        f"/{kinds['control']}",
        "by_kind": {
            kind: {
                "cases": n,
                "stale": sum(bool(j["stale"]) for j in judged if j["kind"] == kind),
                "now_kept": sum(j["now_kept"] for j in judged if j["kind"] == kind),
            }
            for kind, n in sorted(kinds.items())
        },
        "failing": [j["id"] for j in judged if j["stale"] or not j["now_kept"]],
    }


async def set_figures(
    workdir: Path, which: ChangeFile, compactor: Any = None, tag: str = "extractive"
) -> dict[str, Any]:
    """Each language's cases of one set, replayed and judged."""
    out: dict[str, Any] = {}
    for language in LANGUAGES:
        url = f"sqlite:///{workdir / f'changes_{tag}_{which}_{language}.sqlite'}"
        judged = []
        for case in cases(language, which):
            final, _ = await replay(f"changes-{case.id}-session", case.turns, url, compactor)
            judged.append(judge(case, final))
        out[language] = {**set_summary(judged), "judged": judged}
    return out


def public_changes(dialogue: dialogues.Dialogue) -> list[dialogues.Change]:
    """The dialogue's overwritten values that it says in its text and no slot holds at the end."""
    text = "\n".join(t for pair in dialogue.turns for t in pair)
    finals = dict(dialogue.final_state)
    out = []
    for change in dialogue.changes:
        if not (slot_asserts(change.slot, change.old, text) and asserts(change.new, text)):
            continue
        if change.old in finals.values() or asserts(change.old, change.new):
            continue
        if asserts(change.new, change.old) or change in out:
            continue
        out.append(change)
    return out


def _stale(change: dialogues.Change, pin: str) -> bool:
    """The pin asserts the overwritten value and not the value that replaced it."""
    return slot_asserts(change.slot, change.old, pin) and not slot_asserts(
        change.slot, change.new, pin
    )


async def public_figures(
    workdir: Path, public: PublicSet, limit: int | None, compactor: Any = None
) -> dict[str, Any]:
    """A corpus's dialogues with a change, each replayed alone and judged."""
    corpus = public.corpus
    found, where = dialogues.load(corpus, public.split, public.part)
    if found is None:
        return {"absent": where}
    chosen = [(d, c) for d in found if (c := public_changes(d))][:limit]
    name = public.label.replace(" ", "_").replace("–", "-")
    url = f"sqlite:///{workdir / f'changes_{name}.sqlite'}"
    stale_dialogues = stale_pins = changes = old_pinned = new_kept = 0
    stale_ids: list[str] = []
    for dialogue, dialogue_changes in chosen:
        session = f"changes-{corpus}-{dialogue.id}-session".replace(".", "_")
        final, seen = await replay(session, dialogue.turns, url, compactor)
        stale = {p for p in final for c in dialogue_changes if _stale(c, p)}
        stale_pins += len(stale)
        if stale:
            stale_dialogues += 1
            stale_ids.append(dialogue.id)
        for change in dialogue_changes:
            changes += 1
            if any(slot_asserts(change.slot, change.old, p) for p in seen):
                old_pinned += 1
                new_kept += any(slot_asserts(change.slot, change.new, p) for p in final)
    return {
        "source": where,
        "split": dialogues.part_label(corpus, public.split, public.part),
        "dialogues": len(chosen),
        "changes": changes,
        "stale_dialogues": stale_dialogues,
        "stale_pins": stale_pins,
        "old_pinned": old_pinned,
        "new_kept": new_kept,
        "new_kept_share": round(new_kept / old_pinned, 3) if old_pinned else None,
        "stale_ids": stale_ids,
    }


def _capped(size: int | None, limit: int | None) -> int | None:
    """The smaller of a set's size and the run's limit (``None``: no bound)."""
    bounds = [n for n in (size, limit) if n is not None]
    return min(bounds) if bounds else None


async def figures(
    workdir: Path,
    which: ChangeSet,
    limit: int | None,
    compactor: Any = None,
    tag: str = "",
    public: Collection[str] | None = None,
) -> dict[str, Any]:
    """Our sets and the public corpora of one side (held out or tuning); ``public`` names
    the public sets to replay (their labels; ``None``: all). Our sets run on the general
    rules, the public corpora (bookings, tickets, trains) on the booking profile's
    (``PUBLIC_PROFILE``): the profile's own rows."""
    name = tag or "extractive"
    ours = {file: await set_figures(workdir, file, compactor, name) for file in OURS[which]}
    before = booking.current()
    booking.use(PUBLIC_PROFILE)
    try:
        replayed = {
            chosen.label: await public_figures(
                workdir / name, chosen, _capped(chosen.size, limit), compactor
            )
            for chosen in PUBLIC[which]
            if public is None or chosen.label in public
        }
    finally:
        booking.use(before)
    return {"ours": ours, "public": replayed}


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    """The held-out sets and train splits (and the tuning side, for the record)."""
    runs: dict[str, Any] = {"extractive": ExtractiveCompactor(MemoryLimits())}
    if (model := compaction_model()) is not None:
        runs["llm"] = model
    limit = QUICK_LIMIT if profile.name == "quick" else None
    results: dict[str, Any] = {
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "compactors": {},
    }
    sides: tuple[ChangeSet, ...] = ("heldout", "tune")
    for name, compactor in runs.items():
        (env.workdir / name).mkdir(exist_ok=True)
        results["compactors"][name] = {
            which: await figures(env.workdir, which, limit, compactor, name) for which in sides
        }
    write_json(out, NAME, results)
    return results


def _sets(side: dict[str, Any]) -> dict[str, Any]:
    """The side's sets by file; a result written before the sets had files (wave 37) held one."""
    ours: dict[str, Any] = side["ours"]
    return {"heldout (wave 37)": ours} if set(LANGUAGES) <= set(ours) else ours


def _worst(side: dict[str, Any]) -> tuple[int, float]:
    """Stale conversations in all of the side's sets, and the lowest share correct."""
    sets = _sets(side).values()
    stale = sum(ours[lang]["stale_cases"] for ours in sets for lang in LANGUAGES)
    correct = min(
        ours[lang].get("correct_share", ours[lang]["now_kept_share"])
        for ours in sets
        for lang in LANGUAGES
    )
    return stale, correct


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """This benchmark's rows of the targets table: held-out figures, extractive compactor."""
    held = results["compactors"]["extractive"]["heldout"]
    stale, correct = _worst(held)
    note = "; ".join(
        f"{file} {lang}: {r['stale_cases']} stale of {r['cases']}, correct "
        f"{r.get('correct_share', '–')}, new kept {r['now_kept_share']}"
        for file, ours in _sets(held).items()
        for lang, r in ours.items()
    )
    out = [
        _target(
            "held-out decision changes: 0 stale pins [extractive]",
            "conversations whose final pins still assert a replaced value, EN + ZH",
            stale,
            f"= {STALE_GOAL}",
            stale == STALE_GOAL,
            note,
        ),
        _target(
            f"held-out decision changes: ≥ {CORRECT_GOAL:.0%} correct [extractive]",
            "lowest share of conversations, EN or ZH, whose final pins hold the new value "
            "(controls: both decisions) and no replaced one",
            correct,
            f"≥ {CORRECT_GOAL}",
            correct >= CORRECT_GOAL,
            note,
        ),
    ]
    for corpus, r in held["public"].items():
        if "absent" in r:
            continue
        out.append(
            _target(
                f"{corpus.split()[0]} {r['split']} split: 0 stale pins after a changed slot "
                f"[extractive, {PUBLIC_PROFILE} profile]",
                "dialogues whose final pins assert an overwritten state value",
                r["stale_dialogues"],
                f"= {STALE_GOAL}",
                r["stale_dialogues"] == STALE_GOAL,
                f"{r['dialogues']} dialogues, {r['changes']} changes; old value pinned "
                f"along the way {r['old_pinned']}, new value in the final pins "
                f"{r['new_kept']}",
            )
        )
    return out


CHANGES_METHOD = """**Method.** `bench/changes.py` replays each conversation through `open_memory`
(embedded SQLite, the extractive compactor; the configured model too when there is one),
then folds what is still in the window, so every turn went through compaction, and reads
the final pins. **Ours** (`tests/memory/data/changes/`, its README has the rubric): 24
short conversations a language in each held-out set (28 in the tuning sets) in which a
decision is made and then changed — a new value, a correction, a reversal — or stated as
an arrangement, and controls where two unrelated decisions (two dates, two tools, an
outbound and a return train) must both stay. A conversation is stale when a final pin
still asserts an old value without the new one; the new value is kept when every
expected string is in the final pins. The held-out sets were written and frozen in their
own commit before the rules existed. **Public**: MultiWOZ 2.1 and CrossWOZ (local copies,
`bench/dialogues.py`), every dialogue whose own dialogue state overwrites a slot's value
(both values said in the text, the old one held by no slot at the end); each dialogue
replayed alone. A dialogue is stale when a final pin asserts an overwritten value without
its new one (a bare number only with its unit: "6 people", "for 6", "1 ticket", "3
nights"). Until
wave 30 the test split was held out and the rules tuned on the val split only; wave 30's
tuning read the test split's stale dialogues, so from wave 33 on **the test and val
splits are both tuning data** and the held-out side is fresh, frozen in its own commit
before any tuning: the first 300 dialogues with a change of MultiWOZ's train split, the
first 100 of CrossWOZ's, and the first 300 of the train split of **SGD** (the
Schema-Guided Dialogue dataset, English, CC BY-SA 4.0, its own dialogue states: a value
said in several forms is one value), in file order (`PUBLIC` in `bench/changes.py`).
MultiWOZ's and CrossWOZ's train files are too large for the mirror this bench was run
from, so their rows say "not run" until a copy has them (`python -m bench.changes`
prints the tuning side and never the held-out one unless asked).

**Held-out history.** Before the rules (the commit that froze the sets): EN 12 of 24
conversations stale, new value kept 62.5 %; ZH 13 of 24 stale, 66.7 %; MultiWOZ test 29
stale dialogues of 274, CrossWOZ 1 of 67. **First run** of the rules: EN 2 stale, new
value kept 91.7 %, controls 6/6; ZH 1 stale, 91.7 %, controls 5/6; MultiWOZ 16, CrossWOZ
1. Its errors were seen, so the kinds of change they showed were written into the tuning
sets in other words (rows 25–28) and the rules tuned on those only; the second run is
the table below. A noise pin an arrangement rule made on the MultiWOZ test split ("…
Bed and Breakfast is 4 stars") was seen too and fixed (checked on val). Most of
MultiWOZ's remaining stale dialogues are a booking request pinned whose failure or retry
the rules do not read ("Could we try 18:45 on the same day?" is a question; "I was able to
get you a table" no decision), and a few are the annotation's own (a slot set to a hotel's
name). The price on recall (§9): dropping a replaced pin drops its values, and the recall
bench still asks for them (a failed booking's 15:30 is an answer there); on the test split
MultiWOZ finds 537 of 1,051 answers against 542 before (arrangements and restatements 2
of the 5, replaced pins 3), CrossWOZ 719 of 1,597 as before; val split 551 of 1,058 against 552
and 760 of 1,555 as before.

**Wave 33: failed bookings retried, a fresh held-out side.** The test split's errors had
been read, so the train splits and SGD's were frozen as the held-out side first (commit
7edde79) and the rules tuned on the tuning side only (our tuning sets, MultiWOZ and
CrossWOZ val and test): a booking made with another time, day, party size or stay
replaces the request it retries (rule 5 of `supersession.py`), and more ways of saying a
booking failed ("none have availability", "does not have a table for that time"). On the
tuning side MultiWOZ val went from 5 to 3 stale dialogues of 271, test from 16 to 10 of
274 (of the 10 left, 7 are slots the annotation overwrote with the train found, "arrive
by 21:30" → 21:08, or with a hotel's type, where the pin still holds; then a correction
four messages after its decision, a stay asked twice in other words, and a booking the
assistant said it made and then had not), CrossWOZ val 0 of 81 and test 1 of 67 as before;
recall MultiWOZ test 537 of 1,051 (as before, still 5 under the 542 floor), val 549 of
1,058 (551 before), CrossWOZ as before. **First run on the fresh held-out side**
(commit 2f47f75, run once, not tuned on): SGD train, the first 300 dialogues with a
change: **33 stale dialogues** (39 stale pins; goal 0), the old value pinned along the
way for 53 changes and the new value in the final pins for 25 of them (**47.2 %**); our
held-out sets (seen before) EN 0 stale, new value kept 95.8 %, ZH 0, 100 %. MultiWOZ's
and CrossWOZ's train splits: not run (the files are not in the mirror here). On the merged
code (the small-talk round's rules beside these; no longer a first run): 34 stale of 300.

**Wave 34: SGD's train split becomes tuning data.** Its first run was recorded above;
to tune on its errors, SGD's test split (the first 300 dialogues with a change, file
order; many of its services are not in the train split) was frozen as the held-out
side first, in its own commit, before any replay of it. SGD's stale dialogues were
then read for their kinds. Most were one booking confirmed and changed: the old value
said by the user's request *and* by the assistant's confirmation (often in two
sentences: "Booking a table at Sakoon. The reservation is at 6:30 pm."), the change
replacing only one of them; a correction said as a bare "No." or "That is incorrect"
with the new value in the next sentence, or as a "No, …" answering the confirmation
just before it without naming the decision's subject; a time said in words ("half past
5 in the evening", "7 o'clock in the evening", which was read as seven people; and "at
7 pm" read as 7:00); a failed booking followed by an offer ("…, shall I try 7:30 pm?")
or after a request with no booking word ("Put it for 10:30"). Rules for those kinds
(`supersession.py`: times in words, a date said more or less fully, echoes, answers,
bare corrections, failures before an offer) moved the tuning side: **SGD train 34 → 6
stale dialogues of 300** (40 → 6 stale pins; the new value in the final pins 25 of 54
→ 21 of 37 changes whose old value was pinned, 46.3 % → 56.8 %: fewer old values are
pinned at all, and where a booking failed and was retried in a question — "Should I
try 12:30 pm?" "Sure." "The reservation was made." — no sentence pins the new value);
MultiWOZ val 3 → 3 of 271, test 10 → 9 of 274; CrossWOZ val 0 and test 1 as before;
our tuning sets as before (EN 0 stale, 100 %; ZH 0 stale, 92.9 %). Recall (§9) on
MultiWOZ's test split 537 → 542 of 1,051 answers (51.1 % → 51.6 %), CrossWOZ 719 of
1,597 as before; the held-out decision sets 0.964 / 0.945 at precision 1.0 as before;
the small-talk bench's tuning side as before (seen: no corpus gains a small-talk pin;
CPED's share 0.231 → 0.234, one decision pin fewer: "走我们今天就去看" dropped by "今天订不到票了").
The 6 left: a restaurant, city or speaker changed in words no rule reads as a change
("Let's make the restaurant Peacock's Koriander", "let's make that my bedroom", "Wait,
never mind. Please play it in my bedroom."; 4), a time retried after a failure in a
sentence that is no decision (1), and one the annotation's: "On March 2nd we are going
to celebrate my wedding anniversary." is pinned, the user then moves the reservation
to the 8th, and the dialogue state had taken the anniversary's date for the
reservation's — the pin still holds. Judging left as it was: SGD's ticket counts are
judged as people, and "1 ticket" is not "for 1" or "1 people", so a pinned "make it 1
ticket" counts neither as new value kept nor an old "4 tickets" as stale.

**First run on the held-out side** (rules at commit 6732f01, run once, not tuned on):
SGD test, the first 300 dialogues with a change (531 changes): **19 stale dialogues**
(24 stale pins; goal 0), the old value pinned along the way for 42 changes and the new
value in the final pins for 15 of them (**35.7 %**; goal 95 %). Our held-out sets
(seen before): EN 0 stale, new value kept 95.8 % (controls 6/6), ZH 0 stale, 100 %
(6/6). MultiWOZ's and CrossWOZ's train splits: not run (not in the mirror here). Both
SGD goals are missed on data the rules never saw; the gap between the splits (6 stale
of 300 on train, 19 on test) says part of the tuning fitted SGD's train split and not
its kind.

**Wave 35: SGD's test files 001–010 become tuning data, the next ones held out.** The
first run above was recorded; to tune on its errors, the first 300 dialogues with a
change of SGD's test split's next files were frozen as the held-out side first, in their
own commit, before any replay of them: files 011, 013–015, 017, 018, 020, 021 and 024
(`bench.dialogues.SGD_PARTS`; files 012, 016, 019, 022 and 023 are not in the mirror
this bench was run from, so the part names the files it reads and a copy without one of
them says so). The same commit fixed a judging gap seen in wave 34, before the new
part's first run: SGD's ticket, seat and rider counts are people counts, and "1 ticket"
(a count of one, in the singular) matched no people pattern, so a pinned ticket count
was neither kept nor stale; the patterns now read "1 ticket", "2 tickets", "3 seats", "1
adult".

The tuning side was then read by kind (SGD test files 001–010's 19 stale dialogues first;
figures below with the fixed judging, so "before" is the commit that froze the part).
The largest kind: an offer or a confirmation asked after a failure or a change ("Should
I try 12:30 pm?", "The alarm Leave for home will be set at 4:45 pm, correct?", "Booking
appointment with … on March 5th.") and accepted ("Sure.", "That is correct", "Yes, that
sounds good"): the accepted proposal is the decision (`supersession.accepted_offer`,
rule 7: it replaces the decision of the last three turns it gives another value of, and
is pinned only when it replaces one or retries a failed booking; the fold reads the
answer from the window when it ends at the offer). Others: an action that failed without
a booking word ("the alarm could not be set"); a count of tickets as a value of its own
("I just want 1 ticket", never a hotel's number of people); "Let's make the restaurant
X"; "the 11th of March" read as one date; a name said more fully ("Peacock's Koriander
Indian Cuisine") as the same name; a rejection with its new value said in a stance's
words ("Nope. I wish to have 4 tickets."). The word lists are in `change_words.toml`.
Tuning side, before → after: **SGD test 001–010 19 → 9 stale dialogues of 300** (24 →
12 stale pins; new value in the final pins 15 of 42 → 20 of 38 changes whose old value
was pinned, 35.7 % → 52.6 %), SGD train 9 → 3 (25 of 41 → 26 of 37, 61.0 % → 70.3 %),
MultiWOZ val 3 → 3 of 271, test 12 → 10 of 277, CrossWOZ val 0 and test 1 as before,
our tuning sets as before. No regression: recall (§9) MultiWOZ 542 of 1,051 (51.6 %) and
CrossWOZ 719 of 1,597 (45.0 %) as before; the held-out decision sets 0.964 / 0.945 at
precision 1.0 as before; our held-out change sets EN 0 stale, 95.8 %, ZH 0 stale, 100 %
as before; the small-talk bench's tuning side gains no small-talk pin (TopicalChat one
more fact pin: a restated fact whose "New Orleans" is now the same name as "New Orleans
Saints"). Left on SGD test 001–010 (9): five payment dialogues where a finished
transaction is followed by another and the dialogue state overwrites the first one's
amount and recipient (the first still happened: the pin holds), and four plans said
first and changed in a question while searching ("What if I fly to NYC instead?", "Is
there a train from Vancouver?", "What about in the Hercules area"). Not handled: "Wait,
never mind. Please play it in my bedroom." (no decision in it to read; the assistant's
"I'll play it on the bedroom speaker" reads as a restatement of the kitchen one).

**First run on the held-out part** (rules at commit 829d882, run once, not tuned on):
SGD test files 011, 013–015, 017, 018, 020, 021 and 024, the first 300 dialogues with a
change (465 changes): **14 stale dialogues** (14 stale pins; goal 0), the old value
pinned along the way for 23 changes and the new value in the final pins for 4 of them
(**17.4 %**; goal 95 %). Our held-out sets (seen before): EN 0 stale, new value kept
95.8 % (controls 6/6), ZH 0 stale, 100 % (6/6). MultiWOZ's and CrossWOZ's train splits:
not run (not in the mirror here). Both SGD goals are missed again on data the rules never
saw: fewer stale dialogues than the previous held-out part's first run (19 of 300), but
the share of changed values whose new value is pinned is lower (4 of 23).

**Wave 36: SGD's test part 2 becomes tuning data, its dev split held out.** To tune on
part 2's errors, the first 300 dialogues with a change of SGD's dev split, files 001–010
(all in the mirror; no run had replayed the dev split), were frozen as the held-out side
first, in their own commit, before any replay of them or any change to the rules.

Part 2's 14 stale dialogues were then read by kind (and, for the words, which of SGD's
confirmation turns on the tuning splits no phrase matched). Most were a change the
assistant confirmed and the user accepted that no rule read: a confirmation asked in other
words ("Is it correct?", "To verify:", "Just to make sure", "Are you ready to confirm …?");
a proposal pinned as said and confirmed again after the user changed it ("I'll book you a
cab to X for 2 people. Is that correct?" after "Actually … to X … for 2"; now an offer
too, but only after a change asked, so a second payment confirmed leaves the first); a
retry offered in the failure's own sentence ("Sorry, I could not book it, shall I try 1
pm?") or as a suggestion ("You could try … at 12 pm", "Are you interested in trying
…?"); "another time" read as a decision beside the earlier one; a failure of an
appointment or an alarm ("The appointment cannot be made", "I was unable to set that
alarm"); a decision saying only a detail ("Set it for evening 4"), now changed by an
accepted time like a request; a time with the part of the day first ("afternoon 3:45",
"evening 4", read as the number 4); and a trip said again to another place ("I am flying
to SD …" after "I am flying to Las Vegas … on the 1st of this month": the same way of
travelling is the same subject, "of this month" part of the date). Tuning side, before →
after: **SGD test part 2 14 → 7 stale dialogues of 300** (14 → 7 stale pins; new value
in the final pins 4 of 23 → 7 of 19 changes whose old value was pinned, 17.4 % →
36.8 %), SGD test 001–010 9 → 9 (12 → 11 stale pins; 20 of 38 → 21 of 38, 52.6 % → 55.3 %),
SGD train 3 → 2 (26 of 37 as before); MultiWOZ val 3 of 271 and test 10 of 277,
CrossWOZ val 0 and test 1, our tuning sets (EN 0 stale, 100 %; ZH 0 stale, 92.9 %) as
before. Recall (§9) as before: MultiWOZ 542 of 1,051 (51.6 %), CrossWOZ 719 of 1,597
(45.0 %), the held-out decision sets 0.964 / 0.945 at precision 1.0. Left on part 2 (7):
a search changed by a question ("What about checking San Fran for the 4th?", "Can you
search for some other car for the 13th?"; 4), an origin said again after "Actually" in a
sentence that is no decision (1), and a rental car's drop-off date said early and changed
only in the booking's confirmation many turns later (2). Several values counted as not
kept are pinned in another form than the one the dialogue state names first ("1:30 pm"
for "afternoon 1:30", "11 am" for "11 in the morning"); the judging was left as frozen.

**First run on the held-out side** (rules at commit d54d028, run once, not tuned on):
SGD dev files 001–010, the first 300 dialogues with a change (452 changes): **20 stale
dialogues** (23 stale pins; goal 0), the old value pinned along the way for 45 changes
and the new value in the final pins for 18 of them (**40.0 %**; goal 95 %). Our held-out
sets (seen before): EN 0 stale, new value kept 95.8 % (controls 6/6), ZH 0 stale, 100 %
(6/6). MultiWOZ's and CrossWOZ's train splits: not run (not in the mirror here). Both SGD
goals are missed again on data the rules never saw, and by more stale dialogues than the
previous held-out parts' first runs (19 and 14 of 300): halving part 2's stale dialogues
did not carry over to the dev split, though the share of changed values whose new value
is pinned is higher than at those runs (35.7 % and 17.4 %). Rerun on the merged code
(with the small-talk bench's sixth round, 988adb4): the same figures, and recall as
before.

**Wave 36, second round: SGD's dev files 001–010 become tuning data, its next dev files
held out.** To tune on the dev files' errors, the first 300 dialogues with a change of
SGD's dev files 011–014, 016, 019 and 020 (`SGD_PARTS` part 3; 015, 017 and 018 are not
in the mirror) were frozen as the held-out side first, in their own commit, before any
replay of them or any change to the rules.

The dev files' 20 stale dialogues were then read by kind. Most (13) were a search asked
again with another place or day, as a question or beside one ("Do you have anything else
leaving from Los Angeles?", "Can I get any other bus? I am leaving on March 13th from
Anaheim", "What about other buses? Ones leaving from Vegas and heading to Fresno"), which
no rule read: now rule 8 — in a user's message asking for other options (the words are
data, `en_search_again`), a sentence naming a place replaces the earlier decisions naming
another place in the same role (leaving from, going to, in: the last role word before the
name, `en_place_from`/`_to`/`_at`) or another day, and is pinned in their place; not with a
change word or an additive one. Others: a rejection right after the assistant asked to
confirm ("… at 4:45 pm. Is that correct?" → "Nope, sorry! Please set at 3:30 in the
afternoon.") now answers the decision the confirmation repeated, one message further back;
and "Book 3 bus ticket" is a count of tickets (what a ticket is for, `en_ticket_for`), so
the confirmation asked again with 2 and accepted replaces it. Tuning side, before → after:
**SGD dev 001–010 20 → 10 stale dialogues of 300** (23 → 11 stale pins; new value in the
final pins 18 of 45 → 23 of 40 changes whose old value was pinned, 40.0 % → 57.5 %), SGD
test part 2 7 → 4 (7 → 4 stale pins; 7 of 19 → 8 of 18), SGD test 001–010 9 → 9 (11 stale
pins; 21 of 38), SGD train 2 → 2; MultiWOZ val 3 and test 10, CrossWOZ val 0 and test 1,
our tuning sets (EN 0 stale, 100 %; ZH 0 stale, 92.9 %) as before. Recall (§9) as before:
MultiWOZ 51.6 %, CrossWOZ 45.0 %, the held-out decision sets 0.964 / 0.945 at precision
1.0. Small talk (seen split): the final pins labelled small talk as before (LoCoMo 1,
DailyDialog 19, Topical-Chat 16, CPED 53, KdConv 5), though a few labelled decisions of
LoCoMo (12 → 10) and DailyDialog (60 → 58) gave way to unlabelled pins. Left on the dev
files (10): a search asked without words asking for other options ("Is there a bus going
to Las Vegas …?", "can you look up flights from Los Angeles?", "Shall I get bus on 4th of
March"; 4), an address after "Actually" (values not typed; 1), a place named in lower case
against one capitalised ("speaker in the bedroom"; 1), a search with "also" (1) and
longer chains of bookings (3).

**First run on the held-out side** (rules at commit 3d0f670, run once, not tuned on):
SGD dev files 011–014, 016, 019 and 020, the 295 dialogues with a change (454 changes):
**15 stale dialogues** (16 stale pins; goal 0), the old value pinned along the way for 36
changes and the new value in the final pins for 13 of them (**36.1 %**; goal 95 %). Our
held-out sets (seen before): EN 0 stale, new value kept 95.8 % (controls 6/6), ZH 0 stale,
100 % (6/6). MultiWOZ's and CrossWOZ's train splits: not run (not in the mirror here). Both
SGD goals are missed again on data the rules never saw: fewer stale dialogues than the dev
files 001–010's first run (20 of 300), but halving the tuning side's stale dialogues again
did not carry over in full, and the share of changed values whose new value is pinned is
lower than that run's (40.0 %).

**Wave 37: SGD's dev part 3 becomes tuning data, train files 011–020 held out.** To tune
on the dev part's errors, the first 300 dialogues with a change of SGD's train files
011–020 (`SGD_PARTS` part 4; the train split's files 001–010 are part 1, tuned on since
wave 33) were frozen as the held-out side first, in their own commit, before any replay
of them or any change to the rules.

**Wave 37, tuning round:** the dev part's 24 dialogues with a change whose old value was
pinned and whose new one was not in the final pins, or a stale final pin, were read by
kind. Most (10) were a booking that failed in words no rule read ("did not go through",
"I wasn't able to get those tickets", "unable to buy", "there was an issue booking … but")
or that named a ticket where the request named a bus, followed by another time the
service stated rather than asked ("I found another seat at 2:50 pm", "I can try again …
at 12 pm") or offered, and the user accepted: a ticket now answers any request naming no
other thing than a bus, train or flight, and a sentence after a failure in its message
giving a time, day, party size or stay is offered like a question. Then a search asked
again that no rule read (3: "What else is there?", "… I actually need it at 3:30 pm",
a time and a weak change word; rule 8 reads times now, and "What if I fly to NYC
instead?" — not "What about sunday?" in a chat, which took a decision's place), a
place's role (2: "No, I want to go to LAX instead" had replaced where one leaves from;
"Actually I need to head to X" after "a cab to Y"), a confirmation or an
acceptance in other words (1: "confirm again", "exactly"; "That is perfect" on the dev
files 001–010); and a trip confirmed and accepted whose places differ from a decision
said long before ("I am going to Long Beach" → "… from Sacramento to Las Vegas" "That is
perfect."; rule 7's `rerouted`, only when the confirmation names a trip). Not the rules'
(8): a booking that failed at the end, so nothing holds (2), a later correction that
replaced the new value (2), the new value pinned in another form ("11 am" for "11:00",
"March 11th" for "the 11th"; the judging left as frozen), one annotation's (18:45 failed
and 7 pm held), and two left below. Tuning side, before → after: **SGD dev 011–020 15 → 3
stale dialogues of 295** (16 → 4 stale pins; new value in the final pins 13 of 36 → 20 of
34 changes whose old value was pinned, 36.1 % → 58.8 %), SGD dev 001–010 10 → 6 (11 → 6;
23 of 40 → 25 of 40, 57.5 % → 62.5 %), SGD test 001–010 9 → 7 (11 → 9; 21 of 38 → 22 of
37, 55.3 % → 59.5 %), SGD test part 2 4 → 3 (8 of 18 → 8 of 17), SGD train 2 → 2 (26 of 37
→ 28 of 37, 70.3 % → 75.7 %), MultiWOZ val 3 → 3 of 271, test 10 → 9 of 277, CrossWOZ val 0
and test 1 as before, our tuning sets (EN 0 stale, 100 %; ZH 0 stale, 92.9 %) as before.
No regression: our held-out sets EN 0 stale, 95.8 %, ZH 0 stale, 100 %; recall (§9)
MultiWOZ 51.6 %, CrossWOZ 45.0 %, the held-out decision sets 0.964 / 0.945 at precision
1.0; small talk (seen split) no corpus gains a small-talk pin (Topical-Chat 21 → 20). One
step was undone on the way: rerouting without a trip named read "… like to play
Radioactive on the TV" as a destination and "request $93 from Isabella" as another origin
than a payment "from your app balance" that still happened. Left on the dev part (3):
a failure said as "sorry they are booked" after a request pinned in an earlier fold,
whose distance the fold no longer knows; another time stated as information ("The bus
will depart at 12:10 pm") and accepted; a count of seats said again as "2 economy
tickets".

**First run on the held-out side (wave 37; rules at commit 0b7043f, run once, not tuned
on)**: SGD train files 011–020, the 281 dialogues with a change their ten files hold (415
changes): **15 stale dialogues** (15 stale pins; goal 0), the old value pinned along the
way for 51 changes and the new value in the final pins for 23 of them (**45.1 %**; goal
95 %). Our held-out sets (seen before): EN 0 stale, new value kept 95.8 % (controls 6/6),
ZH 0 stale, 100 % (6/6). MultiWOZ's and CrossWOZ's train splits: not run (not in the
mirror here). The round took the tuning part it was read on from 15 stale dialogues to 3,
and the held-out part's first run is 15 of 281 — as at every earlier round, what a round
fixes is the phrasing of the files it read, and new files bring new phrasings; the new
value kept rose from the previous first runs' 36–40 % to 45.1 %, far from 95 %.

**Wave 38 (issue 43): the booking rules are deleted.** Contract §5 asks an offline engine
tuned to no benchmark's phrasing; the rules the rounds above wrote for SGD's, MultiWOZ's
and CrossWOZ's booking flow (a failed booking dropping its request, a retry offered after
a failure, a booking made with another value, ticket counts, a search asked again, a trip
rerouted, a place's role in a correction) went, and with them 477 lines of the engine.
What it costs here, the engine before this session (0dfc1d2) → the session's last
(d9fb1b9, with the owner and team-change signals beside the deletion): stale dialogues SGD
train 001–010 4 → 17, train 011–020 15 → 31, test 001–010 12 → 17, test part 2 4 → 11,
dev 001–010 9 → 29, dev 011–020 4 → 17; MultiWOZ val 3 → 19 of 271, test 9 → 29 of 277;
CrossWOZ unchanged (0 and 1). A booking conversation now keeps the user's last stated
request until a later decision replaces it by the general signals. Not lost elsewhere:
recall (§9) MultiWOZ 50.6 % → 50.6 %, CrossWOZ 46.1 % → 45.7 %, LoCoMo memory alone
17.5 % → 17.7 %; the decision sets' recall 0.945 → 0.927 (ZH held-out, precision 1.0:
CrossWOZ's "已为您预订" frame went too). The team sets moved: team_tune EN 0.70 → 0.85
correct (3 → 1 stale), ZH 0.75 → 0.95 (0 stale); the first team set (its first run
recorded, tuning data since) EN 0.50 (9 stale) as before, ZH 0.575 (11 → 13 stale). The
fresh held-out team set's first run (d9fb1b9): EN 6 of 12 correct, 3 stale; ZH 10 of 12,
1 stale.

**Wave 38, session 4: a third team set, frozen first.** `team_heldout3` (12 a language, two
of each of the second set's six kinds, new topics) was written and frozen (b452932) by
someone who had not read the engine, before this session's engine changes; the second set
joined the tuning side. Tuned on the tuning side only: a setting named again with a bare
number said as its value, a day and time moved together as one slot, units and zones are
no names, the old value dropped by name ("no more X", "instead of X", 取代X) even outside a
decision, an answer taking everything on ("do it", 听你的) taking the last statement put
forward, a weak change word with another thing of the same kind, and the gate backing a
Chinese pin's unit written after its number ("100MB"). Tuning side, d389cf4 → 1f109fa:
team_heldout EN 0.50 → 0.65 (9 → 5 stale), ZH 0.575 → 0.625 (13 stale); team_heldout2 EN
0.50 → 0.833 (3 → 0 stale), ZH 0.833 → 0.917 (1 stale); team_tune and the issue-30 sets
unchanged; SGD's stale dialogues 17/17/11/29/17 → 14/15/9/26/16, MultiWOZ test 29 → 28,
CrossWOZ val 0 → 1. **The third set's first run (1f109fa): EN 10 of 12 correct, 1 stale
(a parallel decision), and a control lost one of its two decisions; ZH 9 of 12, 3 stale
(two parallel decisions, a new value). The goals (≥ 90 % correct, 0 stale) are missed;
parallel decisions are what is left.**

**Wave 38, session 5: a fourth team set, frozen first.** `team_heldout4` (12 a language,
two of each kind, new topics and wording) was written and frozen (4b41987) by someone who
had not read the engine, before this session's engine changes; the third set joined the
tuning side. Tuned on the tuning side only: one of two parallel decisions changed replaces
its own slot (the qualifier each decision is about; a clause keeping the other, "prod
stays", 生产不动, is not part of the change), a proposal of another thing of a decision's
kind accepted replaces it, negation as a word list. Tuning side, ec31872 → 5029880:
team_heldout ZH 0.625 → 0.65 (13 → 12 stale), team_heldout3 ZH 0.75 → 0.917 (3 → 1
stale), every other set and SGD/MultiWOZ/CrossWOZ unchanged. **The fourth set's first run
(5029880): EN 5 of 12 correct, 5 stale; ZH 7 of 12, 3 stale — the same figures the
session's starting engine (ec31872) gives on it, replayed beside it once. The goals (≥ 90 %
correct, 0 stale) are missed, and by more than on the third set: what this session added
for parallel decisions did not carry over to new wording.**

**Wave 38, session 6: a fifth team set, frozen first.** `team_heldout5` (12 a language, two
of each kind, new topics, change and acceptance words the earlier sets do not use) was
written and frozen (31c9c7c) by someone who had not read the engine, before this session's
engine changes; the fourth set joined the tuning side. Tuned on the tuning side only, each
a named signal with its own why: a return to an option memory never held undoes what it
rivals (only a decision said as a switch); the old value said not to beside a choice; a
new count of the same things; units of one dimension as one setting; a change weighed and
declined changes nothing; an accepted proposal's "also" clause is not what it changes; a
correction tied to nothing changes what its message names. Tuning side, af8d9a2 → f69b520:
team_heldout4 EN 0.417 → 1.0 (5 → 0 stale), ZH 0.583 → 1.0 (3 → 0 stale); SGD train
001–010 and dev 011–020 one stale dialogue fewer each; every other set unchanged. **The
fifth set's first run (f69b520): EN 6 of 12 correct, 4 stale (accepted proposals 0 of 2,
both old values named stale, a return, a control); ZH 10 of 12, 2 stale (a new value, a
return). The session's starting engine (af8d9a2), replayed beside it once: EN the same
6 of 12, 4 stale; ZH 8 of 12, 4 stale. The goals (≥ 90 % correct, 0 stale) are missed.**

**Wave 38, session 9: a sixth team set, replayed on the engine as it stands.**
`team_heldout6` (12 a language, two of each kind, topics and wording no earlier set uses)
was written and frozen (92232c7) by someone who had not read the engine; the fifth set
joined the tuning side. No rule changed before its first run. **The sixth set's first run
(the engine at bb3a076, the fold of stop 55): EN 3 of 12 correct (0.25), 5 stale (both old
values named, an accepted proposal, a new value said without a change word, a parallel
decision); both returns and both accepted proposals lost the new value, a control lost a
decision. ZH 3 of 12 (0.25), 6 stale (both old values named, both returns, a parallel
decision, a new value); an accepted proposal was lost, both controls lost a decision. The
lowest first run of the six sets: five tuning rounds on the earlier sets did
not carry over.** One design was tried after the first run and not kept: an answer that
opens by taking on what the user said ("Got it: …", "好的，…") and says it back pins the
decision in its words, in place of the user's. It raised the set it was read from (EN
0.25 → 0.42, ZH 0.25 → 0.67) and lowered the sets it was not (team_heldout5 EN 0.50 → 0.25,
4 → 8 stale; team_tune ZH 0.95 → 0.70; MultiWOZ val 19 → 21 stale dialogues): an
acknowledgement restates a decision in other words than the one it changes, and the
same-slot rule compares words. **Then a seventh set's first run.** `team_heldout7` (12 a
language, frozen in e1e8663 by someone who had not read the engine, before anything
replayed it) was first replayed after the session's one engine change (82c07a7: 不过
opening a clause is no "no longer", which moves no team set): EN 6 of 12 correct (0.50), 5
stale (both old values named, both parallel decisions, a return), an accepted proposal
lost; ZH 6 of 12 (0.50), 6 stale (both old values named, both parallel decisions, both new
values). The session's starting engine (bb3a076), replayed beside it once, gives the same
figures, conversation for conversation. Both controls kept both decisions in each language.
The goals are missed; what fails is what failed at every first run: a change that names
the old value in words no list holds, one of two parallel decisions, a new value.

**The booking profile.** Contract §5 puts rules made for one domain's wording in an opt-in
profile, off by default; the booking templates ("Yes, please book it for 6", "I want to
book …", "Booked!", "预订成功", a ride by its time, "订的是…", MultiWOZ's "is n't") became
one (`analysis/booking.py`, `AIMIND_OFFLINE_PROFILE=booking`). The public corpora are
bookings, so they are replayed with it (`PUBLIC_PROFILE`): their rows are the profile's,
and their figures are the ones above. Our sets run on the general rules: every team set is
unchanged; issue 30's own sets, written with bookings in them, lose their booking rows
(tune EN 1.0 → 0.893, ZH 0.929 → 0.857; its held-out set ZH 1.0 → 0.958, a return train
booked by its time).

**Wave 38, session 10: three general signals, then the eighth set's first run.** Read
from the sixth and seventh sets' failures (tuning data since their first runs), three
signals that name no data set's words: the old thing named beside its rival (a decision
names a thing a pin about the same thing lacks, and its message names the pin's thing
outside the new clause: "HAProxy loses this one, ingress tier goes on Envoy", "Redux这套
不要了，状态管理上Zustand"); the newest word on the same thing (the one pin a decision shares
the most subject words with, words several pins say counting less, each giving a value
the other lacks; a shared word after a word only one says, "read timeout" / "connect
timeout", names another setting); and an agreement said back (the answer to a yes that
opens by taking it on states what was agreed: "yep, ship that" → "Done: … 15 minutes …").
Minutes and seconds became durations like hours. On the tuning side: team_heldout5 EN
0.50 → 0.75, team_heldout6 EN 0.25 → 0.67 and ZH 0.25 → 0.50, team_heldout7 EN 0.50 →
0.75 and ZH 0.50 → 0.67, team_heldout3 ZH 0.92 → 1.0, every other set as before; SGD one
stale pin more in one part, MultiWOZ and CrossWOZ recall as before. **The eighth set's
first run** (`team_heldout8`, frozen in 6e2d300 by someone who had not read the engine;
the engine at session 10's change): EN 7 of 12 correct (0.58), 4 stale; ZH 7 of 12 (0.58),
5 stale. The engine before the change, replayed on it once beside it: EN 5 of 12 (0.42), 6
stale; ZH 6 of 12 (0.50), 6 stale. The first change whose gain carried to a set it was not
read from, and still short of the goals. What failed: one of two parallel decisions (three
conversations), a return to an earlier option ("reinstate MADR pls", "还是头一个方案靠谱，就
用它": the option in between stays), a proposal accepted two turns on and lost (two), a
Chinese setting given a new length in no change word ("开屏广告缩短为3秒", "工单首次响应2小
时": two), and the assistant's acknowledgement of the old value left beside the change
(one)."""


def _ours_lines(side: dict[str, Any]) -> list[str]:
    lines = []
    for file, ours in _sets(side).items():
        for lang in LANGUAGES:
            r = ours[lang]
            kinds = ", ".join(
                f"{k} {v['now_kept']}/{v['cases']} kept, {v['stale']} stale"
                for k, v in r["by_kind"].items()
            )
            lines.append(
                f"| {file} {lang} | {r['cases']} | {r['stale_cases']} | "
                f"{r.get('correct_share', r['now_kept_share']):.0%} | "
                f"{r['now_kept_share']:.0%} | {r['controls_kept']} | {kinds} |"
            )
    return lines


def readme_section(rc: dict[str, Any]) -> list[str]:
    """This benchmark's section of the results page (``docs/benchmarks/results.md``)."""
    lines = [
        "### 16. Decision changes: pins say what holds now",
        "",
        CHANGES_METHOD,
        "",
        f"Run {rc['date_utc']} (`python -m bench --only changes`).",
        "",
    ]
    for name, sides in rc["compactors"].items():
        for which, label in (("heldout", "held out"), ("tune", "tuning")):
            side = sides[which]
            lines += [
                f"{name} compactor, {label}:",
                "",
                "| set | conversations | stale | correct | new value kept | controls kept | "
                "by kind |",
                "|---|---|---|---|---|---|---|",
                *_ours_lines(side),
                "",
                "| corpus (split) | dialogues | changes | stale dialogues | stale pins | "
                "old value pinned along the way | new value in the final pins |",
                "|---|---|---|---|---|---|---|",
            ]
            for corpus, r in side["public"].items():
                if "absent" in r:
                    lines.append(f"| {corpus} | not run ({r['absent']}) | | | | | |")
                    continue
                lines.append(
                    f"| {corpus.split()[0]} ({r['split']}) | {r['dialogues']} | {r['changes']} | "
                    f"{r['stale_dialogues']} | {r['stale_pins']} | {r['old_pinned']} | "
                    f"{r['new_kept']} |"
                )
            lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.changes [--set tune] [--public LABEL ...]``: the tuning side's
    figures (our tuning sets, the public tuning sets), with the failing conversations and
    the stale dialogues' ids; never the held-out side unless asked (``--set heldout
    --public`` with no label: our held-out sets alone, no public dialogue replayed)."""
    import argparse
    import asyncio

    parser = argparse.ArgumentParser(prog="python -m bench.changes", description=main.__doc__)
    parser.add_argument("--set", default="tune", choices=("tune", "heldout"))
    parser.add_argument("--limit", type=int, default=None, help="public dialogues per corpus")
    parser.add_argument(
        "--public", nargs="*", metavar="LABEL", help="only these public sets ('sgd train')"
    )
    parser.add_argument("--dump", type=Path, help="write the judged cases here (JSON)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="aimind-changes-") as tmp:
        (Path(tmp) / "extractive").mkdir()
        result = asyncio.run(figures(Path(tmp), args.set, args.limit, public=args.public))
    for line in _ours_lines(result):
        print(line)
    for file, ours in result["ours"].items():
        for lang in LANGUAGES:
            print(file, lang, "failing:", ours[lang]["failing"])
    for corpus, r in result["public"].items():
        print(corpus, {k: v for k, v in r.items() if k != "stale_ids"})
        print(corpus, "stale:", r.get("stale_ids", []))
    if args.dump:
        args.dump.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
