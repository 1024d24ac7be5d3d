"""The LLM compactor's prompt over ChatOpenAI's real wire path (the loopback OpenAI stub).

It asks for what the extractive compactor keeps — decisions and constraints from
either side, durable facts, no pleasantries, in the conversation's language — and
the structured output it gets back lands in memory as the new summary and pins.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from memory import LLMCompactor, open_memory
from memory.compaction import CompactionRequest
from memory.model_config import compaction_model
from memory.models import ChatThreadMessage, utcnow
from tests.support.openai_stub import OpenAIStub, Reply, json_reply, running_stub

from .helpers import new_token, turn

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
    assert output.model_dump() == {**REPLY, "replaced_decisions": []}  # lands as it came
    (body,) = stub.requests
    assert body["temperature"] == 0
    system, human = body["messages"]
    prompt = system["content"]
    for asked in (
        "either side, the user or the assistant",
        "names, dates, times, numbers, places",
        "Drop greetings, thanks, compliments, small talk",
        "Not suggestions, hedges, open questions, pleasantries or sympathy",
        "you must be tired",
        "别担心",
        "in the language the conversation is in",
        "never the newest facts",
        "2500 characters",
        "at most 20 items, each at most 300 characters",
    ):
        assert asked in prompt, asked
    payload = json.loads(human["content"])
    assert payload["previous_summary"] == "Earlier: venue search."
    assert [m["text"] for m in payload["fold"]] == [m.text for m in folded()]


async def test_the_model_s_summary_and_pins_land_in_memory(stub: OpenAIStub, db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:  # compactor=None: the configured model
        assert isinstance(mem.compactor, LLMCompactor)
        for i in range(5):
            result = await mem.append_turn(token, turn(f"第{i}个问题", f"第{i}个回答"))
        state = await mem.load(token)  # waits for the compaction the fifth turn started
        last = (await mem.snapshot(token)).last_compaction
    assert result.pending and last["compactor"] == "llm" and last["status"] == "succeeded"
    assert state.summary == REPLY["summary"]
    assert state.pinned_decisions == REPLY["pinned_decisions"]
