"""The extractive summary (contract §5): facts and choices kept, chatter and boilerplate dropped."""

from __future__ import annotations

from aimind_memory.adapters.models.offline import OfflineChatModel
from aimind_memory.memory import build_context, open_memory
from aimind_memory.memory.compaction.analysis.summary import merge_summary
from aimind_memory.memory.config.limits import SUMMARY_CHARS
from aimind_memory.memory.models import ChatThreadMessage, utcnow

from .helpers import assert_bounds, new_token, turn


def messages(*texts: str) -> list[ChatThreadMessage]:
    """User and assistant messages, alternating, starting with the user."""
    return [
        ChatThreadMessage(
            id=f"m{i}", role="user" if i % 2 == 0 else "assistant", text=t, created_at=utcnow()
        )
        for i, t in enumerate(texts)
    ]


def test_facts_stay_greetings_and_thanks_go() -> None:
    summary = merge_summary(
        "",
        messages(
            "Hey! Good morning!",
            "Good morning! How are you today?",
            "Thanks! My sister Ana lands in Lisbon on May 3 at 9:40.",
            "Wow, that's so exciting!",
            "我们的婚礼定在五月二十号，宾客一百二十人。",
            "太好了，恭喜恭喜！",
        ),
        known=[],
        limit=SUMMARY_CHARS,
    )
    assert summary == (  # one label for the user's run: the chatter between them is gone
        "- User: My sister Ana lands in Lisbon on May 3 at 9:40. "
        "我们的婚礼定在五月二十号，宾客一百二十人。"
    )


def test_the_previous_summary_is_merged_not_appended_to() -> None:
    first = merge_summary(
        "", messages("We booked Cedar Lodge for July 17.", "Cedar Lodge, nice."), [], 2_500
    )
    second = merge_summary(
        first,
        messages("Remember, we booked Cedar Lodge for July 17.", "Yes! Marco paid $4,800."),
        [],
        2_500,
    )
    assert second.count("Cedar Lodge for July 17") == 1  # said again: kept once, newest place
    assert second.splitlines()[-1] == "- Assistant: Marco paid $4,800."


def test_past_the_bound_the_least_salient_go_first_and_the_newest_facts_stay() -> None:
    summary = ""
    for week in range(40):
        summary = merge_summary(
            summary,
            messages(
                f"In week {week} I moved the Brightline standup to room {100 + week} at 9:15.",
                "That sounds like a good idea, honestly.",
            ),
            [],
            600,
        )
        assert len(summary) <= 600
    assert "room 139" in summary  # the newest fact
    assert "good idea" not in summary  # chatter never outranks a fact
    assert "room 100 " not in summary  # the oldest facts went first


def test_a_decision_in_the_second_sentence_reaches_the_summary() -> None:
    summary = merge_summary(
        "",
        messages(
            "谢谢！我们选定杭州作为团建地点。", "好的。", "Thanks! Let's book the Airbnb in Kyoto."
        ),
        [],
        SUMMARY_CHARS,
    )
    assert "我们选定杭州作为团建地点。" in summary
    assert "Let's book the Airbnb in Kyoto." in summary


async def test_the_offline_model_s_boilerplate_never_fills_the_summary(db_url: str) -> None:
    """The chat graph's way with no key: the offline model describes its context every turn."""
    model = OfflineChatModel()
    facts = [
        "Our landlord is called Mr. Zhou.",
        "The rent is 6,800 a month.",
        "We move on June 10.",
        "我们定了，下个月十号搬家。",
        "The school is Wenlan Primary.",
        "Pickup is at 4:30 every day.",
    ]
    token = new_token()
    async with open_memory(db_url) as mem:
        for i in range(24):
            user = facts[i] if i < len(facts) else f"Question {i}: anything else about the move?"
            state = await mem.load(token)
            context = build_context(state, system_prompt="S", latest_user_text=user)
            reply = (await model.ainvoke(context)).text
            await mem.append_turn(token, turn(user, reply))
        state = await mem.load(token)
    assert_bounds(state)
    for boilerplate in ("offline", "OPENAI_API_KEY", "Context received", "Your latest message"):
        assert boilerplate not in state.summary, state.summary
    pinned = "我们定了，下个月十号搬家。"
    for fact in facts[1:]:  # in the summary, or pinned (and then not repeated there)
        assert fact in state.summary or fact in state.pinned_decisions, fact
    assert pinned in state.pinned_decisions and pinned not in state.summary


def test_a_pinned_sentence_is_not_repeated_and_empty_clauses_go() -> None:
    pin = "We decided to host the reunion at Cedar Lodge on July 17."
    summary = merge_summary(
        "",
        messages(
            pin,
            "Great, the deposit is $400, would you like anything else?",
            "好的，谢谢，押金是四百块。",
            "Thanks, that is all.",
        ),
        known=[pin],
        limit=SUMMARY_CHARS,
    )
    assert pin not in summary
    assert "- Assistant: The deposit is $400." in summary.splitlines()
    assert "- User: 押金是四百块。" in summary.splitlines()


def test_what_the_kept_turns_say_takes_no_room() -> None:
    """The budget is characters: a sentence whose facts are all held already adds none."""
    summary = merge_summary(
        "",
        messages("The Acorn Guest House is at 154 Chesterton Road.", "Breakfast is at 7:30."),
        known=[],
        limit=SUMMARY_CHARS,
        kept=["So that's Acorn Guest House, 154 Chesterton Road, right?"],
    )
    assert summary == "- Assistant: Breakfast is at 7:30."


def test_one_label_per_run_of_a_speaker_and_questions_that_name_nothing_go() -> None:
    summary = merge_summary(
        "",
        messages(
            "Oh, and my cat Pickles had a vet visit on Monday, it was 180 dollars.",
            "What did the vet say?",
            "Just an upset stomach. Also, I signed up for pottery at Clay Corner.",
            "Is that the place on Elm Street?",
        ),
        known=[],
        limit=SUMMARY_CHARS,
    )
    assert summary == (
        "- User: My cat Pickles had a vet visit on Monday, it was 180 dollars. "
        "Just an upset stomach. I signed up for pottery at Clay Corner.\n"
        "- Assistant: Is that the place on Elm Street?"
    )


def folded_days(days: list[tuple[str, str]], limit: int) -> str:
    """Each day's user and assistant message folded in turn into a summary of ``limit``."""
    summary = ""
    for user, assistant in days:
        summary = merge_summary(summary, messages(user, assistant), known=[], limit=limit)
        assert len(summary) <= limit
    return summary


def test_names_and_numbers_of_what_did_not_fit_are_listed_and_the_bound_holds() -> None:
    """A long trip of facts in a small summary: sentences that don't fit leave their names and
    numbers on the last line, which is read back and merged at the next fold."""
    summary = folded_days(
        [
            (
                f"On day {day + 1} we toured the {museum} and paid {20 + day} euros.",
                f"The guide was called {guide}, she said it lasts {60 + day} minutes.",
            )
            for day, (museum, guide) in enumerate(TRIP)
        ],
        limit=500,
    )
    prose, listed = summary.rsplit("\n", 1)
    assert listed.startswith("- Also mentioned: ")
    assert "Museo Picasso" in prose and "Elena" in prose  # the newest in full
    assert "Prado, 20 euros" in listed  # the oldest by name, with what its sentence said
    for mention in listed.removeprefix("- Also mentioned: ").replace(", ", "; ").split("; "):
        assert mention not in prose  # nothing said twice


TRIP = [
    ("Prado", "Lucia"),
    ("Reina Sofia", "Carmen"),
    ("Thyssen Museum", "Pilar"),
    ("Sorolla House", "Ines"),
    ("Royal Palace", "Rosa"),
    ("Naval Museum", "Marisol"),
    ("Cerralbo Museum", "Beatriz"),
    ("Museo Picasso", "Elena"),
]


def test_the_list_is_in_the_conversation_s_language() -> None:
    summary = folded_days(
        [
            (
                f"第{day + 1}天我们去了{place}，门票{60 + day}元。",
                f"导游说{place}要玩{2 + day}个小时。",
            )
            for day, place in enumerate(PLACES)
        ],
        limit=300,
    )
    assert summary.splitlines()[-1].startswith("- 还提到：")
    assert "9个小时" in summary or "8个小时" in summary  # a count keeps its unit


PLACES = [
    *("景山公园", "颐和园", "天坛公园", "北海公园"),
    *("香山公园", "圆明园", "中山公园", "日坛公园"),
]


DISHES = [
    ("兔爷", "干锅传奇", "拌山野菜"),
    ("湘爱", "老书虫", "香辣土豆丝"),
    ("分米鸡", "宝源饺子屋", "小煎猪肝"),
    ("花家怡园", "局气", "炒疙瘩"),
    ("四季民福", "护国寺小吃", "鸭架汤"),
    ("南门涮肉", "小吊梨汤", "芝麻烧饼"),
    ("姚记炒肝", "金鼎轩", "手掰肠"),
    ("方砖厂", "胡大饭馆", "孜然寸骨"),
]


def test_a_long_chinese_chat_lists_what_was_recommended_by_name() -> None:
    """Names with no suffix that says what they are (兔爷, 局气) and dishes are found by how
    they are offered (推荐…和…, 有…), and listed with full-width separators: a Chinese
    summary holds the handles of far more recommendations than its prose has room for."""
    summary = folded_days(
        [
            (
                f"第{day + 1}天想吃点好的，人均{80 + day}元左右，有推荐吗？",
                f"给您推荐{first}和{second}，都不错，他家有{dish}，营业时间是周一至周日"
                f" 10:00-2{day % 4}:00，电话是010-6{day}2754070。",
            )
            for day, (first, second, dish) in enumerate(DISHES)
        ],
        limit=500,
    )
    listed = summary.splitlines()[-1]
    assert listed.startswith("- 还提到：") and "；" in listed and "; " not in listed
    named = [name for trio in DISHES for name in trio]
    assert sum(name in summary for name in named) >= 0.75 * len(named)


def test_a_markdown_report_is_summarised_as_its_words() -> None:
    """A delivery report's table rows are layout, and its marks are not words."""
    report = "\n".join(
        [
            "# Delivery Chain Report",
            "",
            "**Status:** completed",
            "",
            "| Reviewer | Verdict |",
            "|---|---|",
            "| review | pass |",
            "",
            "The export ships as `reports.csv` with **UTF-8** headers on May 3.",
        ]
    )
    summary = merge_summary("", messages("Deliver CSV export.", report), known=[], limit=2_500)
    assert "The export ships as reports.csv with UTF-8 headers on May 3." in summary
    assert "Status: completed." in summary
    assert not any(mark in summary for mark in ("|", "#", "**", "`")), summary
