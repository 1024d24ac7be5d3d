"""The offline engine's general signals (contract §5, "The offline engine is small, fast and
general"), each on its own, with the ``why`` it gives: a statement the other side took on,
a proposal accepted with a bare yes, the old value named, the same slot, another item is
not a new value, and a decision narrated as past is no pin."""

from __future__ import annotations

from aimind_memory.memory.compaction.extractive import ExtractiveCompactor
from aimind_memory.memory.compaction.protocol import CompactionRequest
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.models import ChatThreadMessage, ExplainedOutput, utcnow


def fold(*texts: str, pins: list[str] | None = None) -> ExplainedOutput:
    """One offline fold of these messages (user first, then turns) onto ``pins``."""
    messages = [
        ChatThreadMessage(
            id=f"m{i}", role="user" if i % 2 == 0 else "assistant", text=t, created_at=utcnow()
        )
        for i, t in enumerate(texts)
    ]
    return ExtractiveCompactor(MemoryLimits()).compact_sync(
        CompactionRequest("", pins or [], messages, [])
    )


def test_a_statement_the_other_side_took_on_is_pinned() -> None:
    out = fold("Tickets live in Jira.", "Noted.", "Docs go in Notion", "Noted, Notion for docs.")
    assert out.pinned_decisions == ["Tickets live in Jira.", "Docs go in Notion"]
    assert out.why["Tickets live in Jira."] == "a statement the other side took on: 'Jira'"


def test_a_listeners_okay_takes_on_only_what_it_repeats() -> None:
    # "Okay." is also how people say they are listening: a bare one agrees to nothing
    assert fold("In North Garland, he goes", "Okay.").pinned_decisions == []
    repeated = fold("Workspaces on the Team plan are capped at 25 seats.", "Okay, 25 seats.")
    assert repeated.pinned_decisions == ["Workspaces on the Team plan are capped at 25 seats."]


def test_a_statement_about_a_person_or_the_past_is_not_taken_on() -> None:
    assert fold("I have 2 kids.", "Noted.").pinned_decisions == []
    assert fold("Ana Silva from Porto called about invoice 1.", "Noted.").pinned_decisions == []


def test_a_decision_narrated_as_past_is_no_pin() -> None:
    assert (
        fold("I decided to learn Rust back in 2020, best decision ever", "Nice.").pinned_decisions
        == []
    )
    assert fold("我前年决定转行做前端，真没后悔", "挺好的。").pinned_decisions == []
    assert fold("We decided to use Rust for the parser.", "OK.").pinned_decisions == [
        "We decided to use Rust for the parser."
    ]


def test_a_proposal_accepted_with_a_bare_yes_is_pinned() -> None:
    proposal = "I suggest SonarQube: many rules, and it plugs into GitLab merge requests."
    out = fold(
        "Which tool should we use for code scanning?", proposal, "Sounds good, do that.", "OK."
    )
    assert out.pinned_decisions == [proposal]
    assert out.why[proposal] == "a proposal accepted: 'SonarQube'"
    zh = "建议用SonarQube，规则多，能接到GitLab的MR里。"
    assert fold("代码扫描用啥工具好", zh, "好的，就这个", "好的，我来部署。").pinned_decisions == [
        zh
    ]
    # not accepted: nothing
    assert (
        fold("Which tool?", proposal, "Hmm, let me think about it.", "Sure.").pinned_decisions == []
    )


def test_the_old_value_named_replaces_the_pin_holding_it() -> None:
    old = "We decided to use PostgreSQL for the orders service."
    new = "Use MySQL for the orders service instead of PostgreSQL."
    out = fold(new, "OK.", pins=[old, "We decided to deploy on Kubernetes."])
    assert out.replaced_decisions == [old]
    assert out.replaced_why[old] == "a correction: 'instead of PostgreSQL'"


def test_a_new_value_for_the_same_slot_replaces_the_old_one() -> None:
    out = fold(
        "nightly db backups run at 1 am UTC",
        "Noted, backups at 1 am UTC.",
        "do they finish before the EU morning?",
        "Usually by 1:40, yes.",
        "backups now run at 3 am UTC",
        "Okay, moved to 3 am UTC.",
    )
    assert out.pinned_decisions and all("3 am" in p for p in out.pinned_decisions)
    assert out.superseded == ["nightly db backups run at 1 am UTC"]
    assert (
        out.replaced_why["nightly db backups run at 1 am UTC"]
        == "a new value for the same thing: '3 am'"
    )


def test_the_same_slot_said_again_at_once_is_a_new_value() -> None:
    out = fold("We'll ship the beta on Friday.", "OK.", "We'll ship the beta on Monday.", "OK.")
    assert out.pinned_decisions == ["We'll ship the beta on Monday."]
    assert out.replaced_why["We'll ship the beta on Friday."].startswith("a new value")


def test_another_item_is_not_a_new_value() -> None:
    first = "We decided to order 2 extra chairs for room 1."
    second = "We decided to order 3 extra chairs for room 2."
    assert fold(second, "Noted.", pins=[first]).replaced_decisions == []


def test_a_named_thing_replaces_one_of_its_own_kind() -> None:
    pins = ["Let's use PostgreSQL.", "We decided to deploy on Kubernetes in the Frankfurt region."]
    out = fold("Actually, switch to MySQL.", "Switching to MySQL.", pins=pins)
    assert out.replaced_decisions == ["Let's use PostgreSQL."]


def test_a_return_to_an_earlier_option_brings_it_back() -> None:
    tailwind = "We decided to use Tailwind for styling."
    out = fold(
        tailwind,
        "Okay, Tailwind.",
        "Actually, switch the styling to CSS modules.",
        "Okay, switching to CSS modules.",
        "two weeks later and it is a mess. go back to Tailwind",
        "Back to Tailwind then.",
    )
    assert out.pinned_decisions == [tailwind]
    assert out.why[tailwind] == "a return to an earlier option: 'go back to'"
    assert out.superseded == ["Actually, switch the styling to CSS modules."]
    # without naming it: the first option of the chain
    orion = "Release codename: Orion."
    out = fold(
        orion,
        "Noted.",
        "Actually let's call it Vega.",
        "Okay, Vega.",
        "stickers are printed with the old name, so we're using the original one",
        "Okay, the original codename stays.",
    )
    assert out.pinned_decisions == [orion]


def test_a_return_takes_the_echoes_of_what_it_drops() -> None:
    """The middle option said three times (a view, an instruction, the assistant's echo):
    the return drops every one, as any change takes its echoes."""
    tailwind = "Styling in the new app: Tailwind."
    out = fold(
        tailwind,
        "Okay, Tailwind.",
        "hmm, the designers prefer plain CSS. use CSS modules",
        "Okay, switching to CSS modules.",
        "two weeks later and it's a mess lol. go back to Tailwind",
        "Back to Tailwind then.",
    )
    assert out.pinned_decisions == [tailwind]
    assert not [p for p in out.pinned_decisions if "CSS" in p]


async def test_a_return_reaches_a_decision_replaced_in_an_earlier_fold(db_url: str) -> None:
    from aimind_memory.memory import open_memory

    from .helpers import new_token, turn

    token = new_token()
    filler = [(f"How long does build {i} take?", f"About {i} minutes.") for i in range(4)]
    async with open_memory(db_url) as mem:
        for user, answer in [
            ("We decided to use Tailwind for styling.", "Okay, Tailwind."),
            ("Actually, switch the styling to CSS modules.", "Okay, switching to CSS modules."),
            *filler,
            ("It's a mess. Go back to Tailwind.", "Back to Tailwind then."),
            *filler,
        ]:
            await mem.append_turn(token, turn(user, answer))
        state = await mem.load(token)
    pinned = " ".join(state.pinned_decisions)
    assert "Tailwind" in pinned and "CSS modules" not in pinned
    (back,) = [r for r in state.replaced if "CSS modules" in r.text]
    assert back.why == "a return to an earlier option: 'Go back to'"


def test_an_acknowledgement_at_the_end_takes_a_statement_on() -> None:
    # "Orion, noted.": the answer repeats the thing and then says it took it on
    out = fold("Release codename: Orion.", "Orion, noted.")
    assert out.pinned_decisions == ["Release codename: Orion."]


def test_the_same_thing_named_with_a_new_value_replaces_it_however_long_ago() -> None:
    old = "The image-resize lambda runs on Python 3.11."
    out = fold(
        old,
        "Okay, Python 3.11 runtime.",
        "and give it 1 GB of memory",
        "Done.",
        "yes 3.12, my bad",
        "No problem, Python 3.12 it is.",
    )
    assert out.pinned_decisions[-1] == "No problem, Python 3.12 it is."
    assert old not in out.pinned_decisions
    assert out.replaced_why[old] == "the same thing named with a new value: 'Python'"
    # a decision with words of its own is about its own thing: both stay
    two = fold("The API runs on Python 3.11.", "Noted.", "The worker runs on Python 3.12.", "OK.")
    assert two.superseded == []


def test_an_answer_acting_on_a_statement_takes_it_on() -> None:
    # the answerer's own next step on it: agreed, whether or not it repeats its words
    out = fold("短信服务用腾讯云的", "好的，我去申请签名和模板。")
    assert out.pinned_decisions == ["短信服务用腾讯云的"]
    assert fold("Beta invites go out tomorrow.", "Okay, I'll draft them.").pinned_decisions == [
        "Beta invites go out tomorrow."
    ]
    # an acknowledgement alone with other words of its own takes on nothing
    assert fold("Beta invites go out tomorrow.", "Okay, nice weather.").pinned_decisions == []


def test_a_chinese_old_value_named_in_the_decision_s_words_replaces_it() -> None:
    old = "短信服务用腾讯云的"
    out = fold("腾讯云那个太贵了，不用腾讯云了，换阿里云短信", "好的，短信改用阿里云。", pins=[old])
    assert out.replaced_decisions == [old]
    assert out.replaced_why[old] == "更正：「不用腾讯云了」"
    # the answer saying the change back confirms it: the change stays pinned
    assert out.pinned_decisions == ["腾讯云那个太贵了，不用腾讯云了，换阿里云短信"]


def test_a_change_said_back_is_no_further_change() -> None:
    pins = ["商品服务连接池最大50", "订单服务连接池最大100"]
    out = fold("订单服务连接池改成200", "好的，订单服务改为200。", pins=pins)
    assert out.replaced_decisions == ["订单服务连接池最大100"]
    assert out.pinned_decisions == ["订单服务连接池改成200"]


def test_a_reversal_naming_all_a_decision_is_about_drops_it_however_long_ago() -> None:
    old = "下个月要做小程序版本"
    out = fold(
        "大概要多久",
        "一个多月。",
        "老板说先不搞了，小程序版本不做了",
        "好的，小程序版本取消。",
        pins=[old],
    )
    assert out.replaced_decisions == [old]
    assert out.pinned_decisions == ["老板说先不搞了，小程序版本不做了"]
    # naming only part of it drops nothing
    filler = ("大概要多久", "一个多月。", "谁来做", "小王。")
    kept = fold(*filler, "版本不做了", "好的。", pins=[old])
    assert kept.replaced_decisions == []


def test_a_clause_joined_by_buguo_is_no_no_longer() -> None:
    # 不过 ("but") before a clause ending in 了 gives nothing up: no pin, no pin dropped
    old = "周六我们去看《阿凡达》"
    seen = fold("推荐你看《狩猎》，口碑不错。", "谢谢，不过我看过了。", pins=[old])
    assert seen.pinned_decisions == []  # no new pin
    assert seen.replaced_decisions == []
    vague = fold("你还记得那部电影吗", "有印象，但是记得不是很清楚了。")
    assert vague.pinned_decisions == []
    # the verb 过 alone is given up: a reversal of the plan it names
    dropped = fold("今年春节我们不过了，在家休息。", "好的。", pins=["今年春节我们回老家过"])
    assert dropped.replaced_decisions == ["今年春节我们回老家过"]


def test_a_contradiction_asked_and_confirmed_replaces_the_decision() -> None:
    # the assistant asks whether the thing is actually another value; a yes takes it
    old = "Staging runs on Postgres 13."
    out = fold(
        old,
        "Noted.",
        "and prod?",
        "Prod too.",
        "Is staging actually on 14? The config says 14.",
        "oh you are right, it is 14",
        "Okay, staging is on Postgres 14.",
    )
    assert out.pinned_decisions == ["Is staging actually on 14?"]
    assert out.replaced_why[old] == "an offer accepted: 'actually' + '14'"
    zh = fold(
        "线上Node版本是16",
        "好的，按Node 16来。",
        "可以用fetch吗",
        "不过我看Dockerfile里基础镜像是node:18，线上是不是已经是Node 18了？",
        "对，去年就升了，是18",
        "好的。",
    )
    assert zh.superseded == ["线上Node版本是16"]
    # not asked about it: another thing's number changes nothing
    kept = fold(old, "Noted.", "Is the demo actually on 14?", "yes")
    assert kept.superseded == []


def test_the_same_slot_set_again_long_after_replaces_it_without_a_change_word() -> None:
    filler = ("who approves?", "Maya does.", "what about hotfixes?", "Any day.")
    out = fold("We deploy on Fridays.", "Noted.", *filler, "We deploy on Tuesdays.", "Noted.")
    assert out.pinned_decisions == ["We deploy on Tuesdays."]
    assert out.replaced_why["We deploy on Fridays."] == "a new value for the same thing: 'Tuesdays'"
    zh = fold(
        "发版日期定在周五",
        "好的。",
        "谁来审批",
        "老王。",
        "热修复呢",
        "随时。",
        "发版日期定在周二",
        "好的。",
    )
    assert zh.pinned_decisions == ["发版日期定在周二"]


def test_a_number_in_the_same_unit_is_a_new_value_of_one_setting() -> None:
    filler = ("who asked?", "Sales.", "any risk?", "No.")
    out = fold(
        "The API timeout is 30 seconds.", "Noted.", *filler, "API timeout: 60 seconds", "Noted."
    )
    assert out.pinned_decisions == ["API timeout: 60 seconds"]
    assert (
        out.replaced_why["The API timeout is 30 seconds."] == "a new value for the same thing: '60'"
    )
    zh = fold("接口超时设为30秒", "好的。", "谁提的", "销售。", "接口超时60秒", "好的，60秒。")
    assert zh.pinned_decisions == ["接口超时60秒"]
    # a bare number is another item
    first = "We decided to order 2 extra chairs for room 1."
    second = "We decided to order 3 extra chairs for room 2."
    assert fold(second, "Noted.", pins=[first]).replaced_decisions == []


def test_only_another_thing_of_the_decision_s_kind_replaces_it() -> None:
    filler = ("who owns it?", "Maya.", "any risks?", "Fees.")
    old = "Payments go through Stripe."
    out = fold(old, "Noted.", *filler, "Fine, Adyen it is.", "Okay, Adyen.")
    assert out.pinned_decisions == ["Fine, Adyen it is."]
    assert out.replaced_why[old] == "the same thing named with a new value: 'Adyen'"
    # a thing of another kind is another decision
    kept = fold(old, "Noted.", *filler, "Fine, Kafka it is.", "Okay, Kafka.")
    assert old in kept.pinned_decisions


def test_out_of_a_release_is_a_reversal() -> None:
    old = "Dark mode ships in 3.0."
    out = fold(old, "Noted.", "who asked?", "Sales.", "dark mode is out of 3.0", "Okay.")
    assert out.superseded == [old]
    assert out.replaced_why[old] == "a reversal: 'is out of'"


def test_a_verb_in_ing_is_about_its_stem() -> None:
    old = "The launch date is May 5."
    out = fold(old, "Noted.", "who owns it?", "Maya.", "We're launching on May 12 now.", "OK.")
    assert out.superseded == [old]
    assert out.replaced_why[old] == "a new value for the same thing: 'May'"


def test_a_thing_of_no_known_kind_in_the_slot_of_a_known_one_replaces_it() -> None:
    old = "Let's use Redis for the cache."
    filler = ("who owns it?", "Maya.", "any risks?", "No.")
    out = fold(old, "Okay.", *filler, "Use Memcached for the cache instead.", "Okay, Memcached.")
    assert out.superseded == [old]
    assert out.replaced_why[old] == "a correction: 'instead'"
    # another place for it is another decision
    kept = fold(old, "Okay.", *filler, "Use Memcached for the sessions instead.", "Okay.")
    assert kept.superseded == []


def test_two_parallel_decisions_each_naming_its_own_thing_both_stay() -> None:
    filler = ("who owns it?", "Maya.")
    out = fold("iOS ships on May 5.", "Noted.", *filler, "Android ships on May 12.", "Noted.")
    assert out.pinned_decisions == ["iOS ships on May 5.", "Android ships on May 12."]
    out = fold(
        "The API timeout is 30 seconds.",
        "Noted.",
        *filler,
        "The DB timeout is 5 seconds.",
        "Noted.",
    )
    assert len(out.pinned_decisions) == 2


def test_a_setting_named_again_takes_a_bare_number_as_its_new_value() -> None:
    filler = ("who asked for it?", "The mobile team.", "any risk?", "None I can see.")
    out = fold(
        "the batch size for the nightly export job is 500",
        "Noted.",
        *filler,
        "nightly export batch size: 2000",
        "Okay, 2000 per batch.",
    )
    assert out.pinned_decisions == ["nightly export batch size: 2000"]
    assert out.replaced_why["the batch size for the nightly export job is 500"] == (
        "a new value for the same thing: '2000'"
    )
    # a number naming which one is no value: "item 7" after "item 6" is another item
    items = fold(
        "Rule: we must keep crate 6 sealed.", "Noted.", "Rule: we must keep crate 7 sealed."
    )
    assert len(items.pinned_decisions) == 2, items.pinned_decisions
    # one word shared names no setting: another item
    first = "We decided to order 2 extra chairs for room 1."
    second = "We decided to order 3 extra desks for room 2."
    assert fold(second, "Noted.", pins=[first]).replaced_decisions == []


def test_a_day_and_a_time_moved_together_are_one_slot() -> None:
    out = fold(
        "the vendor call is tuesday 9am",
        "Noted, Tuesday at 9 am.",
        "who joins?",
        "Lea and Sam.",
        "vendor call friday 4pm, room 2C",
        "Okay, Friday at 4 pm in 2C.",
    )
    assert out.pinned_decisions == ["vendor call friday 4pm, room 2C"]
    assert "the vendor call is tuesday 9am" in out.replaced_decisions + out.superseded


def test_a_unit_or_zone_after_a_number_is_no_name() -> None:
    from aimind_memory.memory.compaction.analysis.statements import said

    assert "name" not in said("The backup runs at 03:00 UTC.").values
    assert "name" not in said("Bump the cache to 512 MB.").values
    assert "name" not in said("The standup is in room 3F.").values
    assert said("We host it on AWS.").values["cloud"] == frozenset({"aws"})


def test_an_echo_in_the_same_unit_goes_with_the_value_it_repeats() -> None:
    out = fold(
        "Log retention is 7 days.",
        "Noted.",
        "who reads them?",
        "Mostly on-call.",
        "7 days is not enough for audits. make it 30 days",
        "Okay, 30 days.",
    )
    assert out.pinned_decisions == ["make it 30 days"]
    assert "Log retention is 7 days." in out.replaced_decisions + out.superseded


def test_what_was_put_forward_is_the_decision_when_the_answer_takes_it_all_on() -> None:
    advice = "Batch the emails every 10 minutes and send a digest after 20 alerts."
    out = fold("alerts are flooding people, ideas?", advice, "great, do it", "Okay.")
    assert out.pinned_decisions == [advice]
    assert out.why[advice].startswith("a proposal accepted")
    zh = "日志保留30天，超过的转到冷存储。"
    assert fold("日志留多久合适", zh, "行，听你的", "好的。").pinned_decisions == [zh]
    # a bare "ok" takes on an offer, not a statement; "don't do it" takes on nothing
    assert fold("alerts are flooding people", advice, "ok", "Okay.").pinned_decisions == []
    assert fold("alerts?", advice, "no, don't do it", "Okay.").pinned_decisions == []
    # negated in Chinese too (the negation words are data); 不错 ("not bad") negates nothing
    assert fold("日志留多久合适", zh, "不行，别听你的那套", "好的。").pinned_decisions == []
    assert fold("日志留多久合适", zh, "不错，就这么办", "好的。").pinned_decisions == [zh]


def test_an_offer_pointing_back_offers_the_sentence_before_it() -> None:
    out = fold(
        "when can we hold the retro?",
        "Everyone is free Thursday at 4 pm. Shall I book that?",
        "yes, book it",
        "Booked.",
    )
    assert out.pinned_decisions == ["Everyone is free Thursday at 4 pm. Shall I book that?"]


def test_an_accepted_offer_of_another_time_replaces_the_decision_it_moves() -> None:
    out = fold(
        "We run the data backfill Friday night.",
        "Okay, Friday night for the backfill.",
        "anything in the way?",
        "Friday night clashes with the vendor's upgrade. Monday 01:00 UTC is free. "
        "Want to move it there?",
        "Yes, let's do that.",
        "Done.",
    )
    assert "We run the data backfill Friday night." in out.superseded
    assert any("Monday 01:00 UTC" in p for p in out.pinned_decisions)


def test_an_accepted_thing_of_no_known_kind_replaces_a_known_one_and_its_echo() -> None:
    out = fold(
        "Sessions live in Redis like the other services.",
        "Okay, I'll point the session store at Redis.",
        "the licence worries legal",
        "You could keep sessions in Valkey instead: same protocol, open licence.",
        "ok yes let's do that",
        "Okay.",
    )
    assert not any("Redis" in p for p in out.pinned_decisions), out.pinned_decisions
    assert any("Valkey" in p for p in out.pinned_decisions)


def test_the_old_value_dropped_by_name_replaces_it_without_a_decision() -> None:
    out = fold(
        "build artifacts go to the shared nexus server from now on",
        "Okay, artifacts go to the shared Nexus server.",
        "who owns it?",
        "Platform.",
        "security says no more nexus for artifacts, they get pushed to Artifactory",
        "Understood: artifacts get pushed to Artifactory.",
    )
    assert not any("nexus" in p.lower() and "Artifactory" not in p for p in out.pinned_decisions)
    # a weak "no"/"not" naming a word is no drop, nor is a question
    kept = "the weekly report goes out on mondays from now on"
    assert fold("not sure, mondays are busy", "Okay.", pins=[kept]).replaced_decisions == []
    assert fold("no more mondays for it?", "Hm.", pins=[kept]).replaced_decisions == []


def test_another_thing_of_the_same_kind_with_a_weak_change_word_changes_the_decision() -> None:
    out = fold(
        "运营后台重做，前端用Vue",
        "Vue 3 加 Vite 就够了。",
        "要不试试Svelte？",
        "可以，那就用Svelte。",
        "团队会的人多吗",
        "只有一个人写过。",
        "那别纠结了，还是Vue吧",
        "好的。",
    )
    assert not any("Svelte" in p and "Vue" not in p for p in out.pinned_decisions)
    assert any("Vue" in p for p in out.pinned_decisions)


def test_a_return_to_the_very_first_option_said_in_other_words_brings_it_back() -> None:
    out = fold(
        "值班通知用邮件发",
        "好的，值班通知走邮件。",
        "邮件没人看，换成短信吧",
        "好的，换成短信。",
        "短信太贵了，还是按最初的来吧",
        "好的。",
    )
    assert any("邮件" in p for p in out.pinned_decisions), out.pinned_decisions
    assert not any("短信" in p and "邮件" not in p for p in out.pinned_decisions)


def test_an_answer_opening_with_set_takes_the_setting_on_and_a_parallel_one_stays() -> None:
    out = fold(
        "cache TTL for the catalog service: 90 seconds",
        "Set: a TTL of 90 seconds on the catalog cache.",
        "how is the load test going?",
        "Halfway through, no errors so far.",
        "refresh interval on that same cache is 10 seconds",
        "Okay, refresh every 10 seconds on that cache.",
    )
    assert out.pinned_decisions == [
        "cache TTL for the catalog service: 90 seconds",
        "refresh interval on that same cache is 10 seconds",
    ]


def test_a_change_of_one_of_two_parallel_decisions_replaces_its_own_slot() -> None:
    # two slots of one kind (a date), told apart by what each is about (iOS, Android): a
    # change naming one, in either order of the pins, replaces that one only
    ios, android = "We ship the iOS app on May 5.", "We ship the Android app on May 12."
    for pins in ([ios, android], [android, ios]):
        out = fold("Actually, make the Android app May 20.", "OK.", pins=pins)
        assert out.replaced_decisions == [android]
        assert out.replaced_why[android] == (
            "a change of one of two parallel decisions: 'Actually' + 'Android'"
        )
    # the other one named in other words than its pin's ("goes out", "releasing")
    pins = ["Android goes out on May 12.", "We're releasing iOS on May 5."]
    out = fold("Okay, Android moves to May 20.", "OK.", pins=pins)
    assert out.replaced_decisions == ["Android goes out on May 12."]
    # Chinese: two modules' dates
    pins = ["iOS版15号提审", "安卓版18号上架"]
    assert fold("iOS改到20号", "好的。", pins=pins).replaced_decisions == ["iOS版15号提审"]


def test_a_clause_keeping_the_other_slot_is_not_what_changes() -> None:
    staging, prod = "Staging uses m5.large nodes.", "Prod uses m5.2xlarge nodes."
    change = "Switch staging to t3.medium nodes, prod stays as it is."
    for pins in ([staging, prod], [prod, staging]):
        out = fold(change, "OK.", pins=pins)
        assert out.replaced_decisions == [staging]
        assert out.pinned_decisions == [change]
        assert out.replaced_why[staging] == (
            "a change of one of two parallel decisions: 'switch staging to nodes'"
        )
    # Chinese: 生产不动 keeps production where it is
    pins = ["预发环境放华东1", "生产放华东2"]
    out = fold("华东1要做机房维护，预发挪到华北2，生产不动", "好的。", pins=pins)
    assert out.replaced_decisions == ["预发环境放华东1"]
    assert out.replaced_why["预发环境放华东1"] == "并列两项中一项的更改：「挪到」"
    # an answer saying the change back with the kept slot beside it is no further change
    out = fold(
        "安卓上架改到22号吧",
        "好的，安卓改为22号上架，iOS不变。",
        pins=["iOS版15号提审", "安卓版18号上架"],
    )
    assert out.pinned_decisions == ["安卓上架改到22号吧"]
    assert out.replaced_decisions == ["安卓版18号上架"]


def test_an_accepted_proposal_of_another_thing_of_the_kind_replaces_the_decision() -> None:
    # another CI system proposed and taken on ("听你的", "do that"): the held CI goes, and
    # the confirmation after it takes no replacement meant for the held one
    zh = fold(
        "持续集成用Jenkins",
        "好的，我来搭Jenkins。",
        "又挂了？",
        "是的。我建议换GitHub Actions，不用自己维护。",
        "行，听你的",
        "好的。",
    )
    assert zh.pinned_decisions == ["我建议换GitHub Actions，不用自己维护。"]
    assert zh.superseded == ["持续集成用Jenkins"]
    assert zh.replaced_why["持续集成用Jenkins"].startswith("接受的提议")
    en = fold(
        "We use Jenkins for CI, like the last project.",
        "Okay, I'll set up the Jenkins pipeline.",
        "it broke again?",
        "Yes, the plugin update broke it. I suggest CircleCI: hosted, no plugins to maintain.",
        "makes sense, do that",
        "Okay, moving CI to CircleCI this week.",
    )
    assert not any("Jenkins" in p for p in en.pinned_decisions)
    assert "Okay, moving CI to CircleCI this week." in en.pinned_decisions
