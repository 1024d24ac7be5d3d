"""Benchmark 17: meetings — are the decisions a meeting takes pinned, and only those?

Replays the software-team meeting transcripts of ``tests/memory/data/meetings/`` (its
README: what they are, who wrote them, how they are scored) through ``open_memory`` with
the extractive compactor, each meeting a session of its own: a speaker's consecutive lines
are one message and the messages alternate user/assistant (``bench.chitchat.alternate``),
then what is left in the window is folded too (``bench.changes.replay``), so every line
went through compaction. On the final pins:

- **decisions pinned**: the share of the meeting's decisions some final pin holds every
  key string of (``bench.changes.asserts``);
- **stale pins**: final pins holding an old value of a decision changed in the meeting and
  not every key of some decision;
- **pins that are decisions**: each final pin read by hand by the rubric of
  ``tests/memory/data/smalltalk/README.md``, once, at the first run that scores it
  (``pin_labels.jsonl`` beside the meetings: a hash of the pin, ``bench.recall.pin_key``);
  a pin nobody has read counts as not a decision.

``python -m bench.meetings`` prints the tuning meetings' pins with their labels; it replays
the held-out meetings only when told (``--set heldout``).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from bench.changes import asserts, replay
from bench.chitchat import alternate
from bench.common import BenchEnv, Profile, write_json
from bench.common import target as _target
from bench.recall import DATA, pin_key

NAME = "meetings"
LABEL = "meetings: the decisions a meeting takes, pinned"

MEETINGS = DATA / "meetings"
LABELS = MEETINGS / "pin_labels.jsonl"
LANGUAGES = ("en", "zh")
MeetingSet = Literal["tune", "heldout"]
QUICK_LIMIT = 2
"""``--quick``: the first two meetings of each file."""

Label = Literal["decision", "smalltalk", "fact", "other"]


class Meeting(BaseModel):
    """One transcript (``tests/memory/data/meetings/README.md``)."""

    id: str
    language: Literal["en", "zh"]
    lines: list[tuple[str, str]]
    decisions: list[list[str]]
    stale: list[str]


class PinLabel(BaseModel):
    """One final pin of a meeting, read by hand."""

    set: MeetingSet
    pin: str
    label: Label


def meetings(language: str, which: MeetingSet) -> list[Meeting]:
    path = MEETINGS / f"{which}_{language}.jsonl"
    return [
        Meeting.model_validate_json(line)
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def pin_labels() -> dict[tuple[str, str], Label]:
    if not LABELS.exists():
        return {}
    rows = [
        PinLabel.model_validate_json(line)
        for line in LABELS.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return {(r.set, r.pin): r.label for r in rows}


def holds(decision: list[str], pin: str) -> bool:
    """The pin says every key string of the decision."""
    return all(asserts(key, pin) for key in decision)


def judge(meeting: Meeting, pins: list[str]) -> dict[str, Any]:
    """The meeting's decisions found in its final pins, and its stale pins."""
    pinned = [d for d in meeting.decisions if any(holds(d, p) for p in pins)]
    stale = [
        p
        for p in pins
        if any(asserts(s, p) for s in meeting.stale)
        and not any(holds(d, p) for d in meeting.decisions)
    ]
    return {
        "id": meeting.id,
        "decisions": len(meeting.decisions),
        "pinned": len(pinned),
        "missed": [d for d in meeting.decisions if d not in pinned],
        "stale": stale,
        "pins": pins,
    }


async def set_figures(workdir: Path, which: MeetingSet, limit: int | None = None) -> dict[str, Any]:
    """Each language's meetings of one set, replayed and judged; the final pins labelled."""
    labels = pin_labels()
    out: dict[str, Any] = {}
    for language in LANGUAGES:
        url = f"sqlite:///{workdir / f'meetings_{which}_{language}.sqlite'}"
        judged = []
        for meeting in meetings(language, which)[:limit]:
            final, _ = await replay(f"meeting-{meeting.id}-session", alternate(meeting.lines), url)
            judged.append(judge(meeting, final))
        pins = [p for j in judged for p in j["pins"]]
        found = [labels.get((which, pin_key(p)), "unlabelled") for p in pins]
        decisions = sum(j["decisions"] for j in judged)
        out[language] = {
            "meetings": len(judged),
            "decisions": decisions,
            "decisions_pinned": sum(j["pinned"] for j in judged),
            "decisions_pinned_share": (
                round(sum(j["pinned"] for j in judged) / decisions, 3) if decisions else None
            ),
            "pins": len(pins),
            "pins_decision": found.count("decision"),
            "pins_unlabelled": found.count("unlabelled"),
            "pins_decision_share": round(found.count("decision") / len(pins), 3) if pins else None,
            "stale_pins": sum(len(j["stale"]) for j in judged),
            "judged": judged,
        }
    return out


async def run(env: BenchEnv, profile: Profile, out: Path) -> dict[str, Any]:
    """The held-out meetings (and the tuning ones, for the record)."""
    limit = QUICK_LIMIT if profile.name == "quick" else None
    sides: tuple[MeetingSet, ...] = ("heldout", "tune")
    results: dict[str, Any] = {w: await set_figures(env.workdir, w, limit) for w in sides}
    write_json(out, NAME, results)
    return results


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Held-out rows: stale pins (goal none); the shares are figures, reported beside."""
    held = r["heldout"]
    stale = sum(held[lang]["stale_pins"] for lang in LANGUAGES)
    note = "; ".join(
        f"{lang}: decisions pinned {f['decisions_pinned']}/{f['decisions']}, pins that are "
        f"decisions {f['pins_decision']}/{f['pins']} ({f['pins_unlabelled']} unlabelled)"
        for lang, f in held.items()
    )
    return [
        _target(
            "held-out meetings: 0 stale pins [extractive]",
            "final pins asserting a decision's old value, EN + ZH",
            stale,
            "= 0",
            stale == 0,
            note,
        )
    ]


def readme_section(r: dict[str, Any]) -> list[str]:
    """This benchmark's section of the results page."""
    lines = [
        "### 17. Meetings: the decisions a meeting takes",
        "",
        __doc__.split("\n\n", 1)[1].split("``python -m")[0].strip(),
        "",
        "| set | meetings | decisions pinned | pins that are decisions | unlabelled pins "
        "| stale pins |",
        "|---|---|---|---|---|---|",
    ]
    for which in ("heldout", "tune"):
        for lang, f in r[which].items():
            lines.append(
                f"| {which} {lang} | {f['meetings']} | {f['decisions_pinned']}/{f['decisions']} "
                f"| {f['pins_decision']}/{f['pins']} | {f['pins_unlabelled']} "
                f"| {f['stale_pins']} |"
            )
    return [*lines, ""]


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.meetings [--set tune|heldout]``: the meetings' final pins with
    their labels, the decisions missed and the stale pins (the tuning set by default)."""
    import argparse
    import asyncio

    parser = argparse.ArgumentParser(prog="python -m bench.meetings", description=main.__doc__)
    parser.add_argument("--set", default="tune", choices=("tune", "heldout"))
    args = parser.parse_args(argv)
    labels = pin_labels()
    with tempfile.TemporaryDirectory(prefix="aimind-meetings-") as tmp:
        which: MeetingSet = "heldout" if args.set == "heldout" else "tune"
        result = asyncio.run(set_figures(Path(tmp), which))
    for lang, f in result.items():
        print(lang, {k: v for k, v in f.items() if k != "judged"})
        for j in f["judged"]:
            print(f"  {j['id']}: missed {j['missed']} stale {j['stale']}")
            for pin in j["pins"]:
                label = labels.get((which, pin_key(pin)), "unlabelled")
                print(f"    [{label}] {pin_key(pin)} {json.dumps(pin, ensure_ascii=False)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
