"""Pinning on the labelled sentences (tests/memory/data/decisions_*.jsonl), EN and ZH.

Each sentence is folded as its own message through the extractive compactor; a
sentence counts as pinned when the compactor pins anything of it. Part of the set
(``split: heldout``) was written before the rules were tuned; the thresholds here
apply to the whole set, the held-out figures are reported by ``python -m bench``.
"""

from __future__ import annotations

import pytest

from bench.recall import Labelled, labelled, pinned, precision_recall

LANGUAGES = ("en", "zh")
NEVER_PINNED = ("hedge", "pleasantry", "sympathy", "exclamation", "question", "undecided")
"""Kinds of non-decision that contain decision words and must never be pinned."""
CATEGORIES = ("explicit", "proposal", "plan", "rule", "negated", "commitment", "confirmation")
"""The ways of stating a decision the set covers, in both languages."""
CATEGORY_RECALL = 0.75


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_labelled_set_is_big_enough_and_has_both_splits(language: str) -> None:
    rows = labelled(language)
    assert len(rows) >= 100
    assert {r.split for r in rows} == {"dev", "heldout"}
    assert {r.role for r in rows if r.decision} == {"user", "assistant"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_precision_and_recall_of_pinning(language: str) -> None:
    figures = precision_recall(labelled(language))
    assert figures["precision"] >= 0.9, figures
    assert figures["recall"] >= 0.85, figures


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_hedge_pleasantry_or_question_is_pinned(language: str) -> None:
    rows = [r for r in labelled(language) if not r.decision and r.kind in NEVER_PINNED]
    assert len(rows) >= 20
    assert [r.text for r in rows if pinned(r)] == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_phrasing_category_is_pinned(language: str) -> None:
    by_kind: dict[str, list[Labelled]] = {}
    for row in labelled(language):
        if row.decision:
            by_kind.setdefault(row.kind, []).append(row)
    assert set(by_kind) == set(CATEGORIES)
    for kind, rows in by_kind.items():
        hits = [r for r in rows if pinned(r)]
        assert len(hits) >= CATEGORY_RECALL * len(rows), (kind, [r.text for r in rows])


def test_the_issue_s_real_noise_is_not_pinned() -> None:
    """Sentences the old compactor pinned from real chats (issue 16), from either side."""
    noise = [
        "Must've taken you ages to design it.",
        "I'm always here for you, Mel!",
        "It must have been special at your wedding.",
        "You must be tired.",
        "I always enjoy our chats.",
        "别担心，一切都会好的。",
    ]
    for text in noise:
        for role in ("user", "assistant"):
            row = Labelled(text=text, role=role, decision=False, kind="pleasantry", split="dev")
            assert not pinned(row), (role, text)
