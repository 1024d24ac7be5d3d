"""The offline engine's signals for which decision a change replaces, when no change word
says it (contract §5): the old thing named beside its rival, the newest word on the same
thing, another one of the same kind, and what an answer to a yes says was agreed. Each on
its own, with the ``why`` it gives; wording of our own, in no data set."""

from __future__ import annotations

from aimind_memory.memory.compaction.analysis.statements import accepts, confirms_agreed
from aimind_memory.memory.compaction.analysis.supersession import replacement
from aimind_memory.memory.compaction.analysis.values import chinese_values
from aimind_memory.memory.compaction.analysis.why import change_why
from tests.memory.test_signals import fold


def test_the_old_thing_named_beside_its_rival_is_what_it_replaces() -> None:
    held = ["Our feature flags live in LaunchDarkly, the mobile team knows it"]
    sentence = "LaunchDarkly is out, toggles go to Unleash"
    change = replacement(sentence, held, decided=True, message=sentence)
    assert change.replaced == (0,)
    assert change.reason == "rival named"
    # the rival alone, with nothing of the old thing named, changes nothing
    alone = "toggles go to Unleash"
    assert replacement(alone, held, decided=True, message=alone).replaced == ()
    # whatever the words between them: "is out", "pass掉", "loses"
    held_zh = ["日志采集先用Filebeat，运维熟"]
    message_zh = "Filebeat太吃内存，Filebeat出局。日志采集上Vector"
    change_zh = replacement("日志采集上Vector", held_zh, decided=True, message=message_zh)
    assert change_zh.replaced == (0,)
    assert change_why("日志采集上Vector", "rival named").startswith("旧选项与新选项一同提及")


def test_a_kept_thing_or_the_topic_both_name_is_no_rival() -> None:
    held = ["Feature flags live in LaunchDarkly"]
    dropped = "LaunchDarkly is too pricey for web. Web flags go on Unleash"
    sentence = "Web flags go on Unleash"
    assert replacement(sentence, held, decided=True, message=dropped).replaced == (0,)
    kept = "Web flags go on Unleash; LaunchDarkly stays for mobile"
    assert replacement(kept, held, decided=True, message=kept).replaced == ()
    # TTL is named by the rival's own clause: what both are about, not what is dropped
    held = ["CDN cache TTL for the web pages: 60 seconds.", "API responses get a TTL of 300 s."]
    change = replacement(
        "drop the API TTL to 120 seconds",
        held,
        decided=True,
        message="drop the API TTL to 120 seconds",
    )
    assert 0 not in change.replaced
    # a word of a longer name that the sentence says of its own names nothing dropped
    held = ["Maya from Harbor Point Swim School is our first pilot customer."]
    message = "The second school, Lakeside Swim, joins the pilot in June."
    assert replacement(message, held, decided=True, message=message).replaced == ()


def test_decisions_listed_in_one_message_do_not_drop_each_other() -> None:
    # the first decision's thing is named only by the first decision: nothing drops it
    first, second = "We use Foo for the orders service.", "We use Bar for the billing service."
    message = f"{first} {second}"
    assert replacement(second, [first], decided=True, message=message).replaced == ()
    # named again beside the rival, it is dropped, said in this message or an earlier one
    dropped = f"{first} Foo is out, billing and orders go on Bar."
    assert replacement(
        "Foo is out, billing and orders go on Bar.", [first], decided=True, message=dropped
    ).replaced == (0,)


def test_the_newest_word_on_the_same_thing_replaces_it() -> None:
    held = ["session tokens in the admin app: JWT, 15 minute expiry", "admin UI is React"]
    sentence = "Done: the admin app's session tokens are opaque ids in Redis, 8 hour expiry."
    change = replacement(sentence, held, decided=True)
    assert change.replaced == (0,)
    assert change_why(sentence, change.reason).startswith("a new value for the same thing")


def test_another_one_of_the_same_kind_is_not_the_same_setting() -> None:
    # the word before the one both say names which one: two settings, not one said anew
    held = ["connect timeout for the billing client: 5 seconds"]
    assert (
        replacement("read timeout on the billing client is 30 seconds", held, decided=True).replaced
        == ()
    )
    held = ["搜索服务线程池最大50"]
    assert replacement("推荐服务线程池最大80", held, decided=True).replaced == ()


def test_an_agreement_said_back_after_a_yes_is_pinned() -> None:
    out = fold(
        "nightly exports keep timing out. what would you change",
        "I'd stream them in pages of 5,000 rows instead of one query.",
        "sounds fine, yes",
        "Done: nightly exports stream in pages of 5,000 rows.",
    )
    pin = "Done: nightly exports stream in pages of 5,000 rows."
    assert pin in out.pinned_decisions
    assert out.why[pin].startswith("an agreement said back")
    assert accepts("SRE那边没意见，同意") and accepts("design is fine with it. yup")
    # a yes opening a request is no yes; an answer asking to confirm is asked back
    assert not accepts("好的，顺便把地址也发给我吧")
    assert not confirms_agreed("Yes 2 please.", "Ok, to be clear. 2 tickets for Friday.")


def test_minutes_and_seconds_are_durations_like_hours() -> None:
    # "15分钟" and "1小时" are one kind of value: a setting's length said anew
    assert chinese_values("有效期15分钟")[0] == [("duration", "15 minute")]
    assert chinese_values("有效期：1小时")[0] == [("duration", "1 hour")]
