"""The meetings bench judges a meeting's final pins as its README says (``bench.meetings``)."""

from __future__ import annotations

from bench.meetings import Meeting, judge, meetings


def test_a_decision_counts_when_one_pin_holds_all_its_keys_and_a_change_is_not_stale() -> None:
    meeting = Meeting(
        id="t",
        language="en",
        lines=[("A", "hi")],
        decisions=[["beta", "mid-October"], ["Lena", "onboarding"]],
        stale=["end of Q3"],
    )
    pins = [
        "The beta target is mid-October, not end of Q3.",  # says the change: not stale
        "Lena owns the onboarding flow.",
        "The beta ships at the end of Q3.",  # the old value alone: stale
    ]
    judged = judge(meeting, pins)
    assert judged["pinned"] == 2 and judged["missed"] == []
    assert judged["stale"] == ["The beta ships at the end of Q3."]
    # keys split over two pins do not make one decision
    assert judge(meeting, ["The beta is late.", "mid-October then"])["pinned"] == 0


def test_the_tuning_meetings_parse() -> None:
    for language in ("en", "zh"):
        rows = meetings(language, "tune")
        assert rows and all(m.language == language and m.decisions for m in rows)
