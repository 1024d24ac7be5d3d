"""Public task-oriented dialogues for the recall bench: MultiWOZ (English), CrossWOZ (Chinese).

Their data is not in this repo (nor downloaded at run time): the bench reads a local
copy when ``AIMIND_BENCH_MULTIWOZ`` / ``AIMIND_BENCH_CROSSWOZ`` name one, and says so
when they don't. Each variable may name the JSON file (``test.json``), its zip
(``test.json.zip``, as both projects ship it), a folder holding the project's files,
or a bare git repository of the project (the file is read with ``git show``):

- MultiWOZ 2.1 (MIT): ``data/multiwoz/test.json.zip`` of ConvLab-2's repository
  (the original repository's 2.x files are too large for some mirrors);
- CrossWOZ (Apache-2.0): ``data/crosswoz/test.json.zip`` of its repository;
- SGD, the Schema-Guided Dialogue dataset (CC BY-SA 4.0; English), for the
  decision-change bench only: ``AIMIND_BENCH_SGD`` names its repository (a folder or a bare
  git repository) whose ``{split}/dialogues_NNN.json`` files are read a part at a time,
  in file order: part 1 is files 001–010 (about 1,280 dialogues), part 2 the test split's
  next files (``SGD_PARTS``); the bench takes a part's first 300 dialogues with a change.

A dialogue becomes one session of user/assistant turns; its facts are the values of
the dialogue acts that inform, recommend, offer or book (a name, time, day, place,
price, phone, reference, choice …) where the text says them verbatim, each asked
once. The facts are the datasets' own annotation, so no rule here was tuned on them.
Several dialogues chained in one session make a long conversation: a user's months of
bookings with one assistant.

Each dialogue also carries its state changes (``Dialogue.changes``): the datasets' own
dialogue states (MultiWOZ's ``metadata``, CrossWOZ's ``sys_state``) traced turn by turn,
every slot whose value was overwritten by another (the user changed the time, a booking
failed and another was made), with the slots' final values. The decision-change bench
(``bench/changes.py``) asks whether the final pins still assert an overwritten value.
"""

from __future__ import annotations

import io
import json
import subprocess
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.settings import BenchSettings, bench_settings

MULTIWOZ_ENV = BenchSettings.env_name("multiwoz")
CROSSWOZ_ENV = BenchSettings.env_name("crosswoz")
SGD_ENV = BenchSettings.env_name("sgd")
SPLITS = ("test", "val")
"""The recall bench's splits: ``test`` what it reports, ``val`` what the summary's rules are
tuned on. The decision-change bench reads ``train`` too (``bench.changes``)."""
IN_REPO = {
    "multiwoz": "data/multiwoz/{split}.json.zip",
    "crosswoz": "data/crosswoz/{split}.json.zip",
    "sgd": "{split}",
}
SGD_PARTS: dict[int, tuple[int, ...]] = {
    1: tuple(range(1, 11)),
    2: (11, 13, 14, 15, 17, 18, 20, 21, 24),
    3: (11, 12, 13, 14, 16, 19, 20),
    4: tuple(range(11, 21)),
}
"""SGD's files (``dialogues_NNN.json``) in each part of a split, in file order: a part is a
fixed selection, so the held-out side can be a part no tuning ever replayed. Part 1 is
files 001–010 (the train split has 127 files, the test split 34; ten hold more dialogues
with a change than the bench takes, and reading them all would cost half a minute). Part
2 is the test split's next files that the mirror the bench was run from holds (012, 016,
019, 022 and 023 are not in it): the first 300 dialogues with a change end in file 024.
Part 3 is the dev split's next files after 001–010 that the mirror holds (015, 017 and
018 are not in it). Part 4 is the train split's files 011–020."""
SGD_COUNTED = {
    "party_size": "people",
    "number_of_seats": "people",
    "number_of_riders": "people",
    "number_of_adults": "people",
    "number_of_tickets": "people",
    "group_size": "people",
    "number_of_days": "stay",
    "star_rating": "stars",
}
"""SGD slots whose value is a bare count, named as MultiWOZ names them (``people``, ``stay``,
``stars``) so the bench reads a count only with its unit, as it does for MultiWOZ."""
MIN_ANSWER_CHARS = 3
"""Shorter values ("2", "no") are found anywhere by a substring test: not asked."""

MULTIWOZ_SLOTS = {
    "Name": "name",
    "Car": "name",
    "Id": "reference",
    "Ref": "reference",
    "Dest": "place",
    "Depart": "place",
    "Addr": "place",
    "Area": "place",
    "Time": "time",
    "Leave": "time",
    "Arrive": "time",
    "Day": "day",
    "People": "number",
    "Stay": "number",
    "Stars": "number",
    "Phone": "contact",
    "Post": "contact",
    "Ticket": "price",
    "Fee": "price",
    "Price": "choice",
    "Food": "choice",
    "Type": "choice",
}
"""MultiWOZ slot -> fact category; other slots (Choice counts, yes/no facilities) are not asked."""
MULTIWOZ_ACTS = frozenset({"Inform", "Recommend", "Book", "OfferBooked", "Select", "OfferBook"})

CROSSWOZ_SLOTS = {
    "名称": "name",
    "车型": "name",
    "车牌": "reference",
    "地址": "place",
    "出发地": "place",
    "目的地": "place",
    "出发地附近地铁站": "place",
    "目的地附近地铁站": "place",
    "电话": "contact",
    "人均消费": "price",
    "价格": "price",
    "门票": "price",
    "营业时间": "time",
    "游玩时间": "time",
    "评分": "number",
    "推荐菜": "choice",
    "酒店类型": "choice",
}
CROSSWOZ_ACTS = frozenset({"Inform", "Recommend", "Select"})


STATE_EMPTY = frozenset(
    {"", "not mentioned", "dontcare", "don't care", "dont care", "do n't care", "none", "?"}
)
"""Dialogue-state values that say no value is set."""


@dataclass(frozen=True, slots=True)
class Change:
    """A slot (``domain-slot``) whose value ``old`` the dialogue state overwrote with ``new``."""

    slot: str
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class Dialogue:
    """One dialogue: its turns and the facts said in it (answer, category), and its state
    changes with the slots' final values."""

    id: str
    turns: list[tuple[str, str]]
    facts: list[tuple[str, str]]
    changes: tuple[Change, ...] = ()
    final_state: tuple[tuple[str, str], ...] = ()


def state_changes(
    states: Iterable[dict[str, str]],
) -> tuple[tuple[Change, ...], tuple[tuple[str, str], ...]]:
    """Every overwritten value of a sequence of flat states (``domain-slot`` -> value), in
    order, and the last value of each slot. Values are compared lower-cased and stripped;
    an empty one (``STATE_EMPTY``) neither sets nor overwrites a value."""
    current: dict[str, str] = {}
    changes: list[Change] = []
    for state in states:
        for slot, raw in state.items():
            value = raw.strip().lower()
            if value in STATE_EMPTY:
                continue
            if slot in current and current[slot] != value:
                changes.append(Change(slot, current[slot], value))
            current[slot] = value
    return tuple(changes), tuple(sorted(current.items()))


def _multiwoz_states(log: list[dict[str, Any]]) -> Iterable[dict[str, str]]:
    """The belief state after each system turn: booking and search slots of every domain."""
    for turn in log:
        for domain, parts in (turn.get("metadata") or {}).items():
            yield {
                f"{domain}-{slot}": value
                for part in ("book", "semi")
                for slot, value in parts.get(part, {}).items()
                if slot != "booked" and isinstance(value, str)
            }


def _crosswoz_states(messages: list[dict[str, Any]]) -> Iterable[dict[str, str]]:
    """The system's state after each system turn (the slots it searched or chose by)."""
    for message in messages:
        for domain, slots in (message.get("sys_state") or {}).items():
            yield {
                f"{domain}-{slot}": value
                for slot, value in slots.items()
                if slot != "selectedResults" and isinstance(value, str)
            }


def _git_show(repo: Path, inside: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(repo), "show", f"HEAD:{inside}"], capture_output=True, check=True
    ).stdout


def _is_bare_repo(source: Path) -> bool:
    return (source / "HEAD").exists() and (source / "objects").is_dir()


def sgd_files(part: int) -> tuple[int, ...]:
    """The numbers of SGD's files in ``part`` of a split (``SGD_PARTS``)."""
    if part not in SGD_PARTS:
        raise ValueError(f"SGD has no part {part}: {sorted(SGD_PARTS)}")
    return SGD_PARTS[part]


def part_label(corpus: str, split: str, part: int = 1) -> str:
    """How a report names a split's part: ``test``; for SGD its files, ``test 001–010``, or
    ``test 011–024, 9 files`` when the part skips some."""
    if corpus != "sgd":
        return split
    files = sgd_files(part)
    label = f"{split} {files[0]:03d}–{files[-1]:03d}"
    return label if files[-1] - files[0] + 1 == len(files) else f"{label}, {len(files)} files"


def _read_sgd(source: Path, split: str, part: int) -> dict[str, Any]:
    """SGD's files of one part of a split (``sgd_files``), from a folder or a bare git
    repository, keyed by dialogue id in file order; any file missing is an error (the
    held-out selection is the first dialogues of these files: a gap would change it)."""
    out: dict[str, Any] = {}
    for number in sgd_files(part):
        inside = f"{split}/dialogues_{number:03d}.json"
        blob = (
            _git_show(source, inside) if _is_bare_repo(source) else (source / inside).read_bytes()
        )
        out.update((d["dialogue_id"], d) for d in json.loads(blob))
    return out


def _read(source: Path, corpus: str, split: str, part: int) -> dict[str, Any]:
    """The split's JSON from a file, a zip, a folder or a bare git repository (SGD: one part
    of it)."""
    if corpus == "sgd":
        return _read_sgd(source, split, part)
    if part != 1:
        raise ValueError(f"{corpus} is read whole: no part {part}")
    name = f"{split}.json"
    if source.is_dir():
        inside = IN_REPO[corpus].format(split=split)
        if (source / inside).exists():
            source = source / inside
        elif _is_bare_repo(source):
            return _from_zip_bytes(_git_show(source, inside), name)
        else:
            raise FileNotFoundError(f"{inside} is not under {source}")
    if source.suffix == ".zip":
        with zipfile.ZipFile(source) as archive:
            return _json_object(archive.read(name))
    return _json_object(source.read_text(encoding="utf-8"))


def _from_zip_bytes(blob: bytes, name: str) -> dict[str, Any]:
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        return _json_object(archive.read(name))


def _json_object(text: str | bytes) -> dict[str, Any]:
    """A corpus file's JSON object (json.loads types whatever it parses as Any)."""
    parsed: dict[str, Any] = json.loads(text)
    return parsed


def _pairs(utterances: list[str]) -> list[tuple[str, str]]:
    """User/assistant turns from alternating utterances (user first); a last lone one dropped."""
    return [
        (utterances[i].strip(), utterances[i + 1].strip())
        for i in range(0, len(utterances) - 1, 2)
        if utterances[i].strip() and utterances[i + 1].strip()
    ]


def _unique(facts: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    seen: set[str] = set()
    out = []
    for answer, category in facts:
        key = answer.casefold()
        if len(answer) >= MIN_ANSWER_CHARS and key not in seen:
            seen.add(key)
            out.append((answer, category))
    return out


def multiwoz(data: dict[str, Any]) -> list[Dialogue]:
    """MultiWOZ 2.x dialogues; facts from ``span_info`` (the value's words in the text)."""
    out = []
    for dialogue_id in sorted(data):
        log = data[dialogue_id]["log"]
        facts = []
        for turn in log:
            words = turn["text"].split()
            for act, slot, _value, start, end in turn.get("span_info", []):
                category = MULTIWOZ_SLOTS.get(slot)
                if category and act.split("-")[-1] in MULTIWOZ_ACTS:
                    facts.append((" ".join(words[start : end + 1]).strip(" .,!?"), category))
        changes, final = state_changes(_multiwoz_states(log))
        turns = _pairs([t["text"] for t in log])
        out.append(Dialogue(dialogue_id, turns, _unique(facts), changes, final))
    return out


def crosswoz(data: dict[str, Any]) -> list[Dialogue]:
    """CrossWOZ dialogues; facts from the acts' values the message says verbatim."""
    out = []
    for dialogue_id in sorted(data, key=lambda k: int(k) if k.isdigit() else k):
        messages = data[dialogue_id]["messages"]
        facts = []
        for message in messages:
            for intent, _domain, slot, value in message["dialog_act"]:
                category = CROSSWOZ_SLOTS.get(slot)
                if category and intent in CROSSWOZ_ACTS and value and value in message["content"]:
                    facts.append((value, category))
        changes, final = state_changes(_crosswoz_states(messages))
        turns = _pairs([m["content"] for m in messages])
        out.append(Dialogue(dialogue_id, turns, _unique(facts), changes, final))
    return out


def _sgd_states(turns: list[dict[str, Any]]) -> Iterable[dict[str, str]]:
    """The user's state after each user turn, one value a slot: SGD lists every form a
    value was said in ("6:30 pm", "half past 6 in the evening"), so a list that shares a
    form with the slot's last one is the same value (its first form stands for it), and
    one that shares none is a new value (its first form)."""
    forms: dict[str, set[str]] = {}
    shown: dict[str, str] = {}
    for turn in turns:
        for frame in turn["frames"]:
            state = frame.get("state") or {}
            for slot, values in state.get("slot_values", {}).items():
                said = {v.strip().lower() for v in values}
                key = f"{frame['service']}-{SGD_COUNTED.get(slot, slot)}"
                if not said:
                    continue
                if said & forms.get(key, set()):
                    forms[key] |= said
                else:
                    forms[key], shown[key] = said, values[0]
            yield dict(shown)


def sgd(data: dict[str, Any]) -> list[Dialogue]:
    """SGD dialogues in file order, with their state changes (no facts: the recall bench does
    not read SGD)."""
    out = []
    for dialogue_id, dialogue in data.items():
        changes, final = state_changes(_sgd_states(dialogue["turns"]))
        turns = _pairs([t["utterance"] for t in dialogue["turns"]])
        out.append(Dialogue(dialogue_id, turns, [], changes, final))
    return out


LOADERS = {
    "multiwoz": (MULTIWOZ_ENV, multiwoz),
    "crosswoz": (CROSSWOZ_ENV, crosswoz),
    "sgd": (SGD_ENV, sgd),
}


def load(corpus: str, split: str = "test", part: int = 1) -> tuple[list[Dialogue] | None, str]:
    """The corpus's dialogues of one split (SGD: of one part of it, ``sgd_files``) and where
    they came from, or ``None`` and why not."""
    variable, convert = LOADERS[corpus]
    where = bench_settings().of(variable)
    if where is None:
        return None, f"{variable} is not set"
    source = where.expanduser()
    if not source.exists():
        return None, f"{variable} names a path that does not exist"
    try:
        data = _read(source, corpus, split, part)
        inside = IN_REPO[corpus].format(split=part_label(corpus, split, part))
        return convert(data), f"{inside} ({source.name})"
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError, zipfile.BadZipFile):
        return (
            None,
            f"{variable} names no readable {corpus} {part_label(corpus, split, part)} split",
        )
