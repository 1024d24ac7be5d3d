"""Whose decision is it (``analysis.owner``, contract §5, issue 43): a rule or decision pins
only when it binds the conversation — the speaker, the listener told how to do this work
(beyond the moment), or a thing of ours — never a third party, a kind, advice, or a rule
told as past. Each case through the owner function, and through a fold with its ``why``."""

from __future__ import annotations

import pytest

from aimind_memory.memory.compaction.analysis import owner
from aimind_memory.memory.compaction.analysis.decisions_en import normalised
from tests.memory.test_signals import fold


def _en(sentence: str, trigger: str, *, instruction: bool) -> str | None:
    s = normalised(sentence)
    at = s.index(trigger)
    rest = s[at + len(trigger) :].strip()
    return owner.english(s, at, rest, sentence, instruction=instruction)


def test_an_english_rule_binds_the_speaker_the_listener_or_a_thing_of_ours() -> None:
    assert _en("We must ship v2 by May 3.", "must", instruction=True) == "the speaker"
    assert _en("Never store raw prompts in the logs.", "never", instruction=True) == "the listener"
    assert _en("Don't touch the billing code.", "do not", instruction=True) == "the listener"
    assert _en("You must not share the staging password.", "must", instruction=True) == (
        "the listener"
    )
    assert _en("The public API must stay compatible.", "must", instruction=True) == "a thing"
    assert _en("Phones are not allowed at dinner.", "are not allowed", instruction=False) == (
        "a thing"
    )


def test_a_third_party_a_kind_advice_or_the_past_binds_no_one_here() -> None:
    assert _en("They are not allowed to eat there.", "are not allowed", instruction=False) is None
    cheer = "The cheerleaders are not allowed to eat with the players."
    assert _en(cheer, "are not allowed", instruction=False) is None
    assert _en("It was banned for ten years.", "was banned", instruction=False) is None
    assert _en("A player must not lower his helmet.", "must", instruction=True) is None
    assert _en("Don't take too long.", "do not", instruction=True) is None  # of the moment
    assert _en("Never done it before.", "never", instruction=True) is None  # narrated
    assert _en("You must keep the room warm.", "must", instruction=True) is None  # advice


def test_a_chinese_rule_binds_us_or_a_standing_instruction() -> None:
    assert owner.chinese("我们不招场工了", 2, no_more=True) == "the speaker"
    assert owner.chinese("以后你不许进我的房间", 3) == "the listener"
    assert owner.chinese("不要把密码写进代码仓库", 0) == "a thing"
    assert owner.chinese("他突然有事儿不回来吃了", 6, no_more=True) is None
    assert owner.chinese("你不许耍赖", 1) is None
    assert owner.chinese("我不送了", 1, no_more=True) is None


@pytest.mark.parametrize(
    "said",
    [
        "They aren't allowed to eat in the same restaurant as the players.",
        "In New Orleans, the cheerleaders are not allowed to dine with the players.",
        "They aren't allowed to park here.",
        "Don't eat fast!",
        "I no longer have the time for fantasy football.",
        "你不许耍赖皮",
        "其实他突然有事儿不回来吃了",
    ],
)
def test_a_rule_of_someone_else_or_of_the_moment_is_no_pin(said: str) -> None:
    assert fold(said, "OK.").pinned_decisions == []


def test_no_longer_is_a_rule_of_a_thing_and_a_life_fact_of_a_person() -> None:
    out = fold("PRs no longer need two approvals; one is enough.", "OK.")
    assert out.pinned_decisions == ["PRs no longer need two approvals; one is enough."]
    assert out.why[out.pinned_decisions[0]] == "a rule: 'no longer'"
    assert fold("He is no longer in the NFL.", "Oh.").pinned_decisions == []


def test_the_issue_s_project_rule_about_a_named_thing_of_ours_is_pinned() -> None:
    rule = "One rule for the project: the public API must stay backwards compatible until v2."
    assert fold(rule, "OK.").pinned_decisions == [rule]


def test_a_rule_of_ours_is_pinned_and_says_its_signal() -> None:
    out = fold("Don't deploy on Fridays.", "OK.", "以后你不许进我的房间", "好的。")
    assert out.pinned_decisions == ["Don't deploy on Fridays.", "以后你不许进我的房间"]
    why = out.why["Don't deploy on Fridays."]
    assert why.startswith("a rule: ") and "Fridays" in why
