"""More of the offline engine's general signals (contract §5), each on its own with the
``why`` it gives: a change tied by the words it names, the message naming what its
correction changes, a first-person or imperative proposal accepted, a kept clause."""

from __future__ import annotations

from aimind_memory.memory.compaction.analysis.decisions import decision_strength
from aimind_memory.memory.compaction.analysis.statements import added_apart, negated_values, said
from aimind_memory.memory.compaction.analysis.supersession import replacement, returned_unheld
from aimind_memory.memory.compaction.analysis.why import change_why
from aimind_memory.memory.compaction.analysis.words import anchors
from tests.memory.test_signals import fold


def test_a_change_naming_what_a_decision_is_about_beats_one_of_the_same_kind() -> None:
    # "Pyright" and "Prettier" are both names: the change names the backend, so it is its one
    held = ["checks: backend code uses mypy", "frontend code is Prettier with the default config"]
    change = replacement("backend side switches to Pyright.", held, decided=False, ages=[3, 1])
    assert change.replaced == (0,)
    assert change.reason == "correction"


def test_the_message_names_what_its_correction_changes() -> None:
    held = ["Okay: blue-green deploys, two environments."]
    sentence = "let's move to canary releases, 5% first"
    message = f"we keep paying for two environments. {sentence}"
    assert replacement(sentence, held, decided=True, ages=[1]).replaced == ()
    change = replacement(sentence, held, decided=True, ages=[1], message=message)
    assert change.replaced == (0,)
    assert change.reason == "correction"


def test_a_first_person_or_imperative_proposal_taken_on_is_pinned() -> None:
    first = fold(
        "our docs site has no search. what would you use",
        "I'd use Algolia DocSearch: free for open source docs and it indexes nightly.",
        "do it",
        "Great.",
    )
    assert any("Algolia" in p for p in first.pinned_decisions)
    imperative = fold(
        "the nightly job keeps timing out. any idea",
        "Move to a queue: push each report into SQS 2 and let 4 workers drain it.",
        "yeah go for it",
        "Done.",
    )
    assert any("SQS" in p for p in imperative.pinned_decisions)
    assert imperative.why[imperative.pinned_decisions[0]].startswith("a proposal accepted")


def test_a_kept_clause_continuing_the_other_slot_is_not_what_changes() -> None:
    out = fold(
        "官网的图床用七牛",
        "好的。",
        "后台的图床用阿里云OSS",
        "好的。",
        "官网图床改用又拍云，后台继续用阿里云OSS",
        "收到。",
    )
    assert not any("阿里云OSS" in p and "又拍云" not in p for p in out.superseded)


def test_a_return_to_an_option_memory_never_held_replaces_what_it_rivals() -> None:
    # the first choice was never pinned: the return names it, and replaces what holds now
    held = ["Okay, the billing job switches to Celery beat.", "好，改用Jenkins构建。"]
    assert returned_unheld("we're going back to cron for the billing job", held) == 0
    assert returned_unheld("还是用回GitLab CI", held) == 1
    # a return naming what a decision holds already is that decision said back
    assert returned_unheld("还是用回Jenkins", held) is None
    assert returned_unheld("let's go back to the first name", held) is None
    out = fold("好，改用Jenkins构建。", "好的。", "算了，还是用回GitLab CI", "明白。")
    assert out.pinned_decisions == ["算了，还是用回GitLab CI"]
    assert out.why["算了，还是用回GitLab CI"].startswith("回到之前的选项")


def test_a_measure_in_another_unit_of_one_dimension_is_the_same_setting() -> None:
    assert said("接口超时设为3秒").units == said("超时降到800毫秒").units == {"time"}
    assert said("uploads are capped at 10 MB").units == said("raise it to 1 GB").units
    # accepted, the proposal replaces the setting, its adding clause aside (added_apart)
    out = fold(
        "缓存过期时间设1分钟",
        "好的，缓存1分钟过期。",
        "首页数据还是旧的",
        "建议把缓存过期时间降到30秒，同时给首页加一个手动刷新按钮。",
        "可以，就这样",
        "好的。",
    )
    assert "缓存过期时间设1分钟" in out.superseded
    assert added_apart("把阈值降到500毫秒，同时开启慢日志") == "把阈值降到500毫秒"


def test_the_only_count_of_these_things_counted_anew_is_a_new_value() -> None:
    held = ["artifact cleanup: keep the last 30 builds per branch"]
    change = replacement("artifact retention: last 10 builds", held, decided=True, ages=[None])
    assert change.replaced == (0,)
    assert change_why("artifact retention: last 10 builds", change.reason).startswith(
        "a new count of the same things"
    )
    # two decisions counting the same things are parallel slots: neither is replaced
    two = [*held, "release branches keep the last 50 builds"]
    assert replacement("artifact retention: last 10 builds", two, decided=True).replaced == ()
    # a measure ("seconds") counts no things: two timeouts stay two decisions
    timeouts = ["gateway request timeout is 30 seconds"]
    assert (
        replacement("the postgres statement timeout is 5 seconds", timeouts, decided=True).replaced
        == ()
    )


def test_a_change_weighed_and_declined_changes_nothing() -> None:
    declined = said("有人提议超时改成10秒，讨论了一下，就不改了")
    assert declined.change is None and declined.tentative
    held = ["接口超时设5秒"]
    assert (
        replacement("有人提议超时改成10秒，讨论了一下，就不改了", held, decided=False).replaced
        == ()
    )
    en = "someone proposed 100 rows a page, we are not changing it"
    assert said(en).change is None and said(en).tentative


def test_a_colleague_called_by_a_familiar_name_is_a_handle() -> None:
    assert anchors("值班负责人是老王") == 1
    assert anchors("一小时以后") == anchors("老师说的") == 0
    out = fold("值班负责人是老王", "好的，老王值班。")
    assert out.pinned_decisions == ["值班负责人是老王"]


def test_the_old_value_negated_beside_a_choice_is_what_it_replaces() -> None:
    assert negated_values("we're not hosting the docs on Netlify, too slow") == {"netlify"}
    # a contracted negator is part of its verb: "aren't", "don't", "won't" say not too
    assert negated_values("we aren't hosting the docs on Netlify, too slow") == {"netlify"}
    assert negated_values("we don't use Netlify for the docs") == {"netlify"}
    assert negated_values("Netlify isn't bad, but we host the docs there") == frozenset()
    held = ["the docs site is hosted on Netlify Pro, same account as marketing"]
    message = "talked to Jo, we're not hosting the docs on Netlify anymore. Cloudflare Pages it is"
    change = replacement("Cloudflare Pages it is", held, decided=True, message=message)
    assert change.replaced == (0,)
    assert change.reason == "old value negated"
    assert change_why("Cloudflare Pages it is", change.reason).startswith(
        "the old value said not to beside the choice"
    )
    assert replacement("Cloudflare Pages it is", held, decided=True).replaced == ()


def test_small_talk_in_a_plans_words_is_no_pin() -> None:
    # a taste foretold, asking for suggestions, an idiom to the listener, a feeling, a
    # scolding of the moment, going out with nowhere named
    for sentence in (
        "I'm afraid we won't like the remake as much as the first one",
        "I want to watch a show tonight, any suggestions",
        "Please don't remind me that the finale is next week.",
        "一想到要跟他同住，我就要发疯！",
        "不许哭，我们还得把这事说完。",
        "我明天要出门。",
    ):
        assert decision_strength(sentence) == 0, sentence
    assert decision_strength("I will pick you up at 9 then!") > 0
    assert decision_strength("我们明天上午十点出发去机场。") > 0


def test_a_return_undoes_only_a_switch() -> None:
    held = ["my friends and I are planning on going to the beach on Sunday"]
    assert returned_unheld("I want to go back to my college on the Huanghe road.", held) is None
