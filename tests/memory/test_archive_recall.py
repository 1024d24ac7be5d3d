"""``MemoryService.recall`` (contract §5a): the archived turns a question is about, best
first, within ``AIMIND_RECALL_CHARS``, never another session's nor the window's own, in
English and Chinese, ranked the same on SQLite, PostgreSQL and in memory."""

from __future__ import annotations

import pytest

from aimind_memory.memory import open_memory
from aimind_memory.memory.config.limits import MemoryLimits

from .helpers import new_token, turn

FILLER = [
    ("How was your day?", "Pretty good, thanks for asking."),
    ("I watched a movie last night.", "Nice, which one did you see?"),
    ("The weather has been rainy all week.", "Rainy weeks are the worst for going out."),
    ("I need to buy groceries later.", "Don't forget the milk this time."),
    ("My coffee went cold again.", "That happens when the day gets busy."),
]
FACTS = [
    ("My sister Anna moved to Porto last spring.", "Porto is a lovely city for her."),
    ("We booked the flight to Lisbon for May 3.", "Great, May 3 it is for Lisbon."),
    ("I adopted a beagle puppy and named him Biscuit.", "Biscuit is a great name."),
    ("The project budget is capped at 4,000 euros.", "Understood, 4,000 euros at most."),
    ("Our database will be PostgreSQL, not MySQL.", "PostgreSQL it is."),
]
QUESTIONS = {
    "Where does Anna live now?": "My sister Anna moved to Porto",
    "What is the puppy called?": "named him Biscuit",
    "When is the flight to Lisbon?": "flight to Lisbon for May 3",
    "How much is the project budget?": "budget is capped at 4,000",
    "Which database did we pick, MySQL or PostgreSQL?": "Our database will be PostgreSQL",
}
LATEST = [
    (f"Let's talk about something else ({i}).", "Sure, what's on your mind?") for i in range(4)
]


async def chat(mem, token: str, turns) -> None:
    for user, assistant in turns:
        await mem.append_turn(token, turn(user, assistant))


def conversation() -> list[tuple[str, str]]:
    """Each fact between filler turns, then enough small talk to fold them all away."""
    turns: list[tuple[str, str]] = []
    for fact in FACTS:
        turns += [*FILLER[:2], fact, *FILLER[2:]]
    return turns + LATEST


async def recalled(url: str, questions) -> dict[str, list[str]]:
    token = new_token()
    async with open_memory(url) as mem:
        await chat(mem, token, conversation())
        return {q: [h.text for h in await mem.recall(token, q)] for q in questions}


@pytest.mark.parametrize("backend", ["db", "memory"])
async def test_the_turn_that_answers_ranks_first(db_url: str, backend: str) -> None:
    hits = await recalled(db_url if backend == "db" else "memory", QUESTIONS)
    for question, answer in QUESTIONS.items():
        assert hits[question], question
        assert answer in hits[question][0], (question, hits[question][:3])


async def test_every_backend_ranks_alike(db_url: str) -> None:
    questions = [*QUESTIONS, "rainy movie coffee", "What did I say about groceries and milk?"]
    assert await recalled(db_url, questions) == await recalled("memory", questions)


async def test_chinese_is_cut_into_words_at_index_and_query_time(db_url: str) -> None:
    token = new_token()
    facts = [
        ("我们决定周六去海底捞吃火锅。", "好的，周六海底捞。"),
        ("我妹妹小雨下个月搬到成都。", "成都很适合她。"),
        ("项目预算最多四千欧元。", "明白，预算四千欧元。"),
    ]
    filler = [("今天天气怎么样？", "有点阴。"), ("我刚喝了一杯咖啡。", "提神不错。")]
    async with open_memory(db_url) as mem:
        for fact in facts:
            await chat(mem, token, [*filler, fact])
        await chat(mem, token, [(f"随便聊聊 {i}", "好呀。") for i in range(4)])
        cases = {
            "周六我们去哪里吃饭？": "海底捞",
            "小雨搬去哪个城市？": "成都",
            "预算是多少？": "预算",
            "火锅": "火锅",
        }
        for question, word in cases.items():
            hits = await mem.recall(token, question)
            assert hits and word in hits[0].text, (question, [h.text for h in hits])
        mixed = await mem.recall(token, "What about 海底捞 on Saturday?")
        assert mixed and "海底捞" in mixed[0].text


async def test_another_sessions_archive_is_never_searched(db_url: str) -> None:
    mine, theirs = new_token(), new_token()
    async with open_memory(db_url) as mem:
        await chat(mem, mine, conversation())
        secret = [("The vault code is ZEBRA-7781 and only I know it.", "Noted, ZEBRA-7781.")]
        await chat(mem, theirs, [*secret, *FILLER, *LATEST])
        assert any("ZEBRA" in h.text for h in await mem.recall(theirs, "vault code"))
        for query in ("vault code", "ZEBRA-7781", "What is the vault code?"):
            assert all("ZEBRA" not in h.text for h in await mem.recall(mine, query))
        assert await mem.recall(new_token(), "Where does Anna live now?") == []


async def test_recall_stays_within_its_character_budget(db_url: str) -> None:
    token = new_token()
    budget = 700
    long = "The harbour festival " + ("with boats and music and food stalls " * 60) + "ends late."
    turns = [
        (f"Harbour note {i}: the harbour opens at {i} am.", f"Harbour {i} noted.")
        for i in range(12)
    ]
    turns.append((long, "Sounds like a long harbour festival."))
    async with open_memory(db_url, limits=MemoryLimits(recall_chars=budget)) as mem:
        await chat(mem, token, [*turns, *LATEST])
        hits = await mem.recall(token, "When does the harbour festival open?")
        assert sum(len(h.text) for h in hits) <= budget
        assert len(hits) > 2  # many short ones, not one long message filling it
        assert all("harbour" in h.text.lower() for h in hits)
        for size in (1, 50, 200):
            small = await mem.recall(token, "harbour festival", budget=size)
            assert small and sum(len(h.text) for h in small) <= size
        assert await mem.recall(token, "harbour festival", budget=0) == []
        (cut,) = [h for h in await mem.recall(token, "festival stalls") if "stalls" in h.text]
        assert len(cut.text) < len(long) and "…" in cut.text


async def test_the_windows_own_turns_are_not_recalled(db_url: str) -> None:
    """What the window holds is in the model's context already; an id the client used
    again (a message archived, then written anew) is left out too."""
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(
            token, turn("The kayak is stored in the red shed.", "Red shed, got it.", user_id="k1")
        )
        await chat(mem, token, LATEST)
        hits = await mem.recall(token, "Where is the kayak?")
        assert hits and hits[0].message_ids == ("k1",)
        assert await mem.recall(token, "Where is the kayak?", exclude={"k1"}) == []
        await mem.append_turn(
            token, turn("Is the kayak in the shed?", "Yes, still there.", user_id="k1")
        )
        assert "k1" in {m.id for m in (await mem.load(token)).messages}
        assert all(h.message_ids != ("k1",) for h in await mem.recall(token, "kayak shed"))
        await chat(mem, token, [("Unrelated message about kayak paddles.", "Okay.")])
        window = {m.id for m in (await mem.load(token)).messages}
        for hit in await mem.recall(token, "kayak"):
            assert not set(hit.message_ids) & window


async def test_a_users_words_are_never_query_syntax(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await chat(mem, token, conversation())
        for query in (
            '"',
            'AND OR NOT ( ) " * ^ :',
            "owner : x",
            "NEAR(a b)",
            "terms:*",
            "' OR 1=1 --",
            "\\ backslash \\' quote",
            "a:1 b&c | !d <-> e:*",
            "\x00 nul",
            "😀 🎉",
            "Anna* -Porto +Lisbon",
        ):
            hits = await mem.recall(token, query)
            assert isinstance(hits, list)
        assert await mem.recall(token, "the and of to") == []  # function words only
