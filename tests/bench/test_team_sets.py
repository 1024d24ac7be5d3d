"""The change sets in software-team wording and the meeting transcripts (issue 43) stay
well-formed: a bench that scores them must never meet a line it cannot read, nor a value
to look for that the conversation never says (then no engine could pass it).

The held-out files are frozen: this test reads them, it never replays them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parent.parent / "memory" / "data"
CHANGES = DATA / "changes"
MEETINGS = DATA / "meetings"

KINDS = {
    "new_value",
    "correction",
    "old_value_named",
    "return_to_earlier",
    "accepted_proposal",
    "parallel",
    "reversal",
    "control",
    "no_decision",
}
HELDOUT2_KINDS = (
    "old_value_named",
    "return_to_earlier",
    "accepted_proposal",
    "parallel",
    "new_value",
    "control",
)
"""The kinds of the second to ninth held-out team sets (``team_heldout2_*``,
``team_heldout3_*``, ``team_heldout4_*``, ``team_heldout5_*``, ``team_heldout6_*``,
``team_heldout7_*``, ``team_heldout8_*``, ``team_heldout9_*``), two conversations each."""
SIZES = {"team_heldout": 40, "team_tune": 20, "heldout": 10, "tune": 3}
"""Conversations (meetings) a language in each file, as the READMEs say."""


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _says(text: str, value: str) -> bool:
    return value.casefold() in text.casefold()


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("which", ["team_heldout", "team_tune"])
def test_each_change_conversation_says_the_values_it_is_scored_on(
    which: str, language: str
) -> None:
    rows = _rows(CHANGES / f"{which}_{language}.jsonl")
    assert len(rows) == SIZES[which]
    assert len({r["id"] for r in rows}) == len(rows)
    assert set(Counter(r["kind"] for r in rows)) == KINDS  # every kind, none unknown
    for row in rows:
        _well_formed(row)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_second_team_held_out_set_holds_two_of_each_of_its_six_kinds(language: str) -> None:
    rows = _rows(CHANGES / f"team_heldout2_{language}.jsonl")
    assert [r["id"] for r in rows] == [f"{language}-h2-{n:02d}" for n in range(1, 13)]
    assert Counter(r["kind"] for r in rows) == dict.fromkeys(HELDOUT2_KINDS, 2)
    for row in rows:
        _well_formed(row)
        assert len(row["turns"]) <= 6, row["id"]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("which", [3, 4, 5, 6, 7, 8, 9])
def test_the_third_to_ninth_team_held_out_sets_hold_two_of_each_of_the_same_six_kinds(
    which: int, language: str
) -> None:
    rows = _rows(CHANGES / f"team_heldout{which}_{language}.jsonl")
    assert [r["id"] for r in rows] == [f"{language}-h{which}-{n:02d}" for n in range(1, 13)]
    assert Counter(r["kind"] for r in rows) == dict.fromkeys(HELDOUT2_KINDS, 2)
    for row in rows:
        _well_formed(row)
        for old in row["stale"]:  # a stale value is never part of a value that must stay
            assert all(
                old.casefold() not in new.casefold() and new.casefold() not in old.casefold()
                for new in row["now"]
            ), row["id"]


def _well_formed(row: dict[str, Any]) -> None:
    """One conversation's shape, and every value it is scored on said in its text."""
    assert set(row) == {"id", "kind", "turns", "stale", "now"}, row["id"]
    assert 3 <= len(row["turns"]) <= 8, row["id"]
    assert all(len(turn) == 2 and all(s.strip() for s in turn) for turn in row["turns"])
    text = "\n".join(s for turn in row["turns"] for s in turn)
    assert all(_says(text, value) for value in row["now"] + row["stale"]), row["id"]
    if row["kind"] == "no_decision":
        assert row["now"] == [] and row["stale"], row["id"]  # nothing to pin, things not to
    elif row["kind"] == "control":
        assert len(row["now"]) >= 2 and row["stale"] == [], row["id"]
    elif row["kind"] == "parallel":
        assert len(row["now"]) >= 2 and row["stale"], row["id"]  # the changed one and the other


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("which", ["heldout", "tune"])
def test_each_meeting_says_every_decision_it_is_scored_on(which: str, language: str) -> None:
    rows = _rows(MEETINGS / f"{which}_{language}.jsonl")
    assert len(rows) == SIZES[which]
    for row in rows:
        assert set(row) == {"id", "language", "lines", "decisions", "stale"}, row["id"]
        assert row["language"] == language
        assert 20 <= len(row["lines"]) <= 60, row["id"]
        assert 3 <= len({speaker for speaker, _ in row["lines"]}) <= 5, row["id"]
        assert 2 <= len(row["decisions"]) <= 5, row["id"]
        lines = [text for _, text in row["lines"]]
        for decision in row["decisions"]:  # some line says all of a decision's strings
            assert any(all(_says(line, key) for key in decision) for line in lines), decision
        text = "\n".join(lines)
        assert all(_says(text, old) for old in row["stale"]), row["id"]
