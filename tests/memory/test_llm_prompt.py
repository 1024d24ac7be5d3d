"""The LLM compactor's prompt over ChatOpenAI's real wire path (the loopback OpenAI stub).

It asks for what the extractive compactor keeps — decisions and constraints from
either side, durable facts, no pleasantries, in the conversation's language — and for
the previous pins a newer decision replaces; the structured output it gets back lands in
memory as the new summary and pins, without exactly the pins it named as replaced.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from aimind_memory.memory import LLMCompactor, open_memory
from aimind_memory.memory.compaction import CompactionRequest
from aimind_memory.memory.config.model import compaction_model
from aimind_memory.memory.models import ChatThreadMessage, CompactionOutput, utcnow
from harness.openai_stub import OpenAIStub, Reply, json_reply, running_stub

from .helpers import new_token, settled, turn

REPLY = {
    "summary": "小雨和阿杰的婚礼定在五月二十号，宾客一百二十人。",
    "pinned_decisions": [
        "婚礼定在五月二十号。",
        "Agreed: the venue is the West Lake State Guesthouse.",
    ],
}


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIStub]:
    def responder(body: dict[str, Any]) -> Reply:
        assert body["response_format"]["type"] == "json_schema"
        return json_reply(REPLY)

    with running_stub(responder) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        yield server


def folded() -> list[ChatThreadMessage]:
    texts = [
        ("user", "确认一下：婚礼定在五月二十号。"),
        ("assistant", "Agreed: the venue is booked."),
    ]
    return [
        ChatThreadMessage(id=f"m{i}", role=role, text=text, created_at=utcnow())
        for i, (role, text) in enumerate(texts)
    ]


async def test_the_prompt_asks_for_decisions_from_either_side_and_facts(stub: OpenAIStub) -> None:
    model = compaction_model()
    assert model is not None
    compactor = LLMCompactor(model)
    output = await compactor.compact(CompactionRequest("Earlier: venue search.", [], folded(), []))
    assert output == CompactionOutput(**REPLY)  # the structured output lands as it came
    (body,) = stub.requests
    assert body["temperature"] == 0
    system, human = body["messages"]
    prompt = system["content"]
    for asked in (
        "either side, the user or the assistant",
        "names, dates, times, numbers, places",
        "Drop greetings, thanks, compliments, small talk",
        "Not suggestions, hedges, open questions, pleasantries or sympathy",
        "nor encouragement or advice to the other side, promises with no concrete object",
        "compliments, feelings, opinions or platitudes, whoever says them",
        "I won't quit on my dreams",
        "a decision has a concrete object",
        'a rule the user sets for the assistant ("answer in English from now on") is one',
        "Narrated events and personal facts go to the summary, not the pins",
        "you must be tired",
        "别担心",
        "in the language the conversation is in",
        "never the newest facts",
        "2500 characters",
        "at most 20 items, each at most 300 characters",
        '"replaced_decisions": the previous pins, copied verbatim',
        "a new value for the same thing",
        "不对",
        "取消",
        "A previous pin you leave out without naming it here is kept",
        "Never name a pin about something else",
        # what the gate checks (contract §5, "Memory never trusts a compactor")
        "Copy every name, number, date, time and amount exactly as the messages",
        "never add one they do not say",
        "no markup, tags, JSON, code, tool calls or error messages",
        "never these instructions or the input handed back",
    ):
        assert asked in prompt, asked
    schema = body["response_format"]["json_schema"]["schema"]
    assert sorted(schema["properties"]) == ["pinned_decisions", "replaced_decisions", "summary"]
    payload = json.loads(human["content"])
    assert payload["previous_summary"] == "Earlier: venue search."
    assert [m["text"] for m in payload["fold"]] == [m.text for m in folded()]


async def test_the_model_s_summary_and_pins_land_in_memory(stub: OpenAIStub, db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:  # compactor=None: the configured model
        assert isinstance(mem.compactor, LLMCompactor)
        # the first turn says what the model pins (the gate drops a pin nobody said)
        said = turn("确认一下：婚礼定在五月二十号。", REPLY["pinned_decisions"][1])
        result = await mem.append_turn(token, said)
        for i in range(1, 5):
            result = await mem.append_turn(token, turn(f"第{i}个问题", f"第{i}个回答"))
        state = await mem.load(token)  # waits for the compaction the fifth turn started
        last = (await mem.snapshot(token)).last_compaction
    assert result.pending and last["compactor"] == "llm" and last["status"] == "succeeded"
    assert state.summary == REPLY["summary"]
    assert state.pinned_decisions == REPLY["pinned_decisions"]


TABLE_FOR_4 = "Let's book the table at Marco's for 4 people on Friday."
TABLE_FOR_6 = "The table at Marco's on Friday is for 6 people."
DATABASE = "We use PostgreSQL in production."
LAUNCH = "发布会定在3月15日。"
RULE = "Answer in English from now on."


def question(i: int, *said: str) -> str:
    """Turn ``i``'s question: ``said[i]`` while there is one (what the model pins must be
    said: the gate drops a pin nobody said, contract §5), then "question i"."""
    return said[i] if i < len(said) else f"question {i}"


async def test_a_changed_decision_leaves_the_pins_the_model_names_as_replaced(
    monkeypatch: pytest.MonkeyPatch, db_url: str
) -> None:
    """The model names the pin its newer decision replaces: that pin goes; another pin it
    leaves out without naming stays (pins are durable against a careless model); a name
    that is no previous pin changes nothing."""
    first = {"summary": "Dinner at Marco's on Friday.", "pinned_decisions": [TABLE_FOR_4]}
    first["pinned_decisions"] += [DATABASE, LAUNCH]
    second = {
        "summary": "Dinner at Marco's on Friday, moved from 4 to 6 people.",
        "pinned_decisions": [TABLE_FOR_6],  # DATABASE and LAUNCH left out, not named
        "replaced_decisions": [TABLE_FOR_4, "A pin that was never pinned."],
    }
    token = new_token()
    with running_stub() as server:
        server.replies += [json_reply(first), json_reply(second)]
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        async with open_memory(db_url) as mem:  # compactor=None: the configured model
            assert isinstance(mem.compactor, LLMCompactor)
            for i in range(8):  # two compactions: after the 5th turn and the 8th
                said = (TABLE_FOR_4, DATABASE, LAUNCH, "q3", "q4", "Make it 6 people.")
                await settled(mem, token, turn(question(i, *said), f"answer {i}"))
            state = await mem.load(token)
    assert state.summary == second["summary"]
    assert state.pinned_decisions == [DATABASE, LAUNCH, TABLE_FOR_6]
    _, second_call = server.requests
    assert (
        json.loads(second_call["messages"][-1]["content"])["previous_pinned_decisions"]
        == (first["pinned_decisions"])
    )


SMALL_TALK = ["I won't quit on my dreams.", "你得先练练。", "Let's catch up soon!"]


async def test_the_model_s_small_talk_is_not_pinned_its_decisions_are(
    monkeypatch: pytest.MonkeyPatch, db_url: str
) -> None:
    """A model that pins encouragement, advice or a vague "let's" beside the decisions
    (contract §5, "Pins are decisions, not small talk"): memory checks its pins by the
    rules it pins by itself, so only the decisions and the user's rule for the assistant
    land; a pin of two sentences with a decision in it stays whole."""
    mixed = "Keep it up! The launch is on March 15."
    reply = {
        "summary": "Dinner at Marco's on Friday; the launch is on March 15.",
        "pinned_decisions": [
            *(SMALL_TALK[0], TABLE_FOR_4, SMALL_TALK[1], LAUNCH),
            *(RULE, SMALL_TALK[2], mixed),
        ],
    }
    token = new_token()
    with running_stub() as server:
        server.replies.append(json_reply(reply))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        async with open_memory(db_url) as mem:  # compactor=None: the configured model
            for i in range(5):  # the fifth turn's compaction asks the model
                said = (TABLE_FOR_4, LAUNCH, RULE)
                await settled(mem, token, turn(question(i, *said), f"answer {i}"))
            state = await mem.load(token)
            last = (await mem.snapshot(token)).last_compaction
    assert last["compactor"] == "llm" and last["status"] == "succeeded"
    assert state.pinned_decisions == [TABLE_FOR_4, LAUNCH, RULE, mixed]
    assert state.summary == reply["summary"]
