"""Memory says why (contract §5): every pin names the signal and the words that pinned it,
a replaced decision is kept in ``replaced`` with what replaced it and why — in the state,
the export and ``aimind memory show`` — and ``explain`` tells a maintainer what a sentence
fires."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from aimind_memory import explain
from aimind_memory.adapters.cli.main import format_memory
from aimind_memory.memory import open_memory
from aimind_memory.memory.compaction.analysis.why import change_why, pin_why
from aimind_memory.memory.config.limits import REPLACED_MAX
from aimind_memory.memory.models import ThreadState

from .helpers import new_token, turn

FILLER = [
    ("How long does a code review usually take here?", "About a day for most changes."),
    ("Can you remind me what CI runs?", "Lint, type checks and the tests."),
    ("What's the team's on-call rotation?", "Weekly, handed over on Mondays."),
    ("Is the staging database shared?", "Yes, every branch deploys to the same one."),
    ("Who owns the billing module?", "The payments team."),
]


@pytest.mark.parametrize(
    ("sentence", "signal", "words"),
    [
        ("We decided to deploy on Kubernetes in the Frankfurt region.", "a decision", "decided"),
        ("Let's use PostgreSQL for the orders service.", "a joint choice", "let's"),
        ("From now on, never store raw card numbers.", "a rule", "from now on"),
        ("We'll ship the beta on Friday.", "a plan", "we'll"),
        ("I'll send the contract to Dana by 5 pm.", "a commitment", "I'll"),
        ("The weekly sync is on Tuesdays at 10.", "an arrangement", "weekly sync"),
        ("我们决定用 PostgreSQL。", "决定", "「决定」"),
    ],
)
def test_a_pins_why_names_its_signal_and_the_words_that_fired_it(
    sentence: str, signal: str, words: str
) -> None:
    why = pin_why(sentence)
    assert why.startswith(f"{signal}: ") or why.startswith(f"{signal}：")
    assert words.lower() in why.lower()


def test_a_pins_why_names_what_it_is_about() -> None:
    assert pin_why("We decided to deploy on Kubernetes in the Frankfurt region.") == (
        "a decision: 'We decided' + 'Kubernetes'"
    )
    assert "PostgreSQL" in pin_why("我们决定用 PostgreSQL。")


def test_a_changes_why_quotes_the_words_that_changed_it() -> None:
    assert change_why("We will use Go instead of Java.", "correction") == (
        "a correction: 'instead of Java'"
    )
    assert change_why("把上限改成200。", "correction").startswith("更正：「改成")
    # no change words: the reason alone, never an empty why
    assert change_why("The table is for 6 people.", "new value").startswith(
        "a new value for the same thing"
    )


def test_explain_reports_each_sentences_signals() -> None:
    first, second, third = explain(
        "We decided to use PostgreSQL. Actually, switch to MySQL. You must be tired!"
    )
    assert first.decision is not None and "decided" in first.decision
    assert first.change is None and not first.small_talk
    assert second.change is not None and second.change.startswith("a correction")
    assert "MySQL" in second.change
    assert third.small_talk and third.decision is None
    (zh,) = explain("我们决定用 PostgreSQL。")
    assert zh.language == "zh" and zh.decision is not None


def test_a_why_is_the_same_in_every_process() -> None:
    """Two equally long cue words in one sentence ("说定了" holds 说定 and 定了): the one a pin's
    why quotes must not depend on the process's string hashing (it did: a set's order)."""
    code = "from aimind_memory import explain; print(explain('说定了，周五上线。'))"
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in (1, 2, 3, 4)
    }
    assert len(seen) == 1, seen


def test_a_chinese_sentences_why_is_in_chinese() -> None:
    """The why follows the conversation's language, as the summary's labels do (§9a)."""
    assert pin_why("我们决定用 PostgreSQL。") == "决定：「决定」 + 「PostgreSQL」"
    assert change_why("还是用回原来那个吧。", "return").startswith("回到之前的选项：")


def test_explain_reads_with_the_language_it_is_told() -> None:
    (auto,) = explain("We decided to use PostgreSQL.")
    (forced,) = explain("We decided to use PostgreSQL.", language="zh")
    assert auto.language == "en" and auto.decision is not None
    assert forced.language == "zh" and forced.decision is None  # no Chinese frame in it


async def test_a_replaced_pin_is_kept_with_what_replaced_it_and_why(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(
            token, turn("We decided to use PostgreSQL for the orders service.", "Noted.")
        )
        for user, answer in FILLER[:4]:
            await mem.append_turn(token, turn(user, answer))
        before = {p.text: p for p in await mem.pins(token)}
        old = before["We decided to use PostgreSQL for the orders service."]
        assert old.why == "a decision: 'We decided' + 'PostgreSQL'"
        await mem.append_turn(
            token, turn("Actually, use MySQL for the orders service instead of PostgreSQL.", "OK.")
        )
        for user, answer in FILLER[:3]:
            await mem.append_turn(token, turn(user, answer))
        state = await mem.load(token)
        exported = await mem.export(token)

    assert old.text not in state.pinned_decisions
    (record,) = state.replaced
    assert (record.id, record.text) == (old.id, old.text)
    new = next(p for p in state.pins if p.id == record.replaced_by)
    assert "MySQL" in new.text and new.why
    assert record.why == "a correction: 'instead of PostgreSQL'"
    # the export and the CLI show it; the model's context never does
    assert exported["replaced"][0]["why"] == record.why
    assert exported["replaced"][0]["replacedBy"] == new.id
    shown = format_memory(state)
    assert "replaced decisions (1):" in shown
    assert f"why: {record.why}" in shown
    assert f"why: {new.why}" in shown


async def test_a_decision_changed_within_one_fold_is_in_replaced_too(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("Let's use PostgreSQL for the orders service.", "OK."))
        await mem.append_turn(
            token, turn("Actually, use MySQL for the orders service instead of PostgreSQL.", "OK.")
        )
        for user, answer in FILLER[:3]:
            await mem.append_turn(token, turn(user, answer))
        state = await mem.load(token)

    assert all("PostgreSQL" not in p.text or "MySQL" in p.text for p in state.pins)
    (record,) = [r for r in state.replaced if "PostgreSQL" in r.text and "MySQL" not in r.text]
    assert record.text == "Let's use PostgreSQL for the orders service."
    assert record.why.startswith("a correction")
    assert record.replaced_by in {p.id for p in state.pins}


def test_the_replaced_list_is_bounded() -> None:
    from aimind_memory.memory.compaction.pins import remember_replaced
    from aimind_memory.memory.models import ReplacedPin, utcnow

    history = [
        ReplacedPin(id=f"pin-{i}", text=f"decision {i}", replaced_at=utcnow())
        for i in range(REPLACED_MAX + 5)
    ]
    kept = remember_replaced(history[:-1], history[-1:])
    assert len(kept) == REPLACED_MAX and kept[-1].id == history[-1].id
    assert ThreadState(replaced=kept).replaced[0].id == "pin-5"


FILLER_TAIL = [
    ("How is the weather in Lisbon?", "Sunny and mild."),
    ("Tell me a fun fact.", "Octopuses have three hearts."),
    ("And another one?", "Honey never spoils."),
    ("What time is it in Tokyo?", "Late evening."),
]


@pytest.mark.parametrize(
    ("said", "now", "before"),
    [
        (
            [
                ("Let's use PostgreSQL.", "OK, PostgreSQL it is."),
                ("We decided to deploy on Kubernetes in the Frankfurt region.", "Noted."),
                ("Actually, switch to MySQL.", "Switching to MySQL."),
            ],
            ["Kubernetes", "MySQL"],
            "Let's use PostgreSQL.",
        ),
        (
            [
                ("We'll deploy on Friday.", "OK."),
                ("The tests are green.", "Great."),
                ("Actually, deploy on Monday instead.", "OK, Monday."),
            ],
            ["Monday"],
            "We'll deploy on Friday.",
        ),
        (
            [
                ("We'll deploy on Friday.", "OK."),
                ("The tests are green.", "Great."),
                ("Actually, we'll deploy on Monday instead.", "OK, Monday."),
            ],
            ["Monday"],
            "We'll deploy on Friday.",
        ),
    ],
    ids=["another-decision-beside", "imperative-change", "restated-change"],
)
async def test_a_change_of_mind_pins_the_new_decision_and_keeps_the_old_one_in_replaced(
    db_url: str, said: list[tuple[str, str]], now: list[str], before: str
) -> None:
    """Issue 43's chat-page conversations: the new decision pinned, the old one in
    ``replaced`` with its ``why``, and nothing about something else touched."""
    token = new_token()
    async with open_memory(db_url) as mem:
        for user, answer in [*said, *FILLER_TAIL]:
            await mem.append_turn(token, turn(user, answer))
        state = await mem.load(token)

    pinned = " ".join(state.pinned_decisions)
    for value in now:
        assert value in pinned
    assert before not in state.pinned_decisions
    old = before.split()[-1].rstrip(".")  # PostgreSQL, Friday
    assert old not in pinned
    (record,) = [r for r in state.replaced if r.text == before]
    assert record.why.startswith("a correction")
    assert record.replaced_by in {p.id for p in state.pins}
    assert all(p.why for p in state.pins)
    assert "Since changed" not in state.summary or "Kubernetes" not in state.summary
