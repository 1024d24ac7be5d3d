"""The hydration DTO (contract §9): exact keys, preview, restored flag, guarded."""

from __future__ import annotations

import json
from datetime import datetime

from aimind_memory.memory import assert_no_forbidden_fields, open_memory
from aimind_memory.memory.config.limits import SUMMARY_PREVIEW_CHARS
from aimind_memory.memory.models import ThreadState
from aimind_memory.memory.views.hydration import hydration_dto
from tests.support.fakes import ScriptedChatModel

from .helpers import new_token, turn

DTO_KEYS = {"threadId", "messages", "summaryPreview", "pinnedDecisions", "restored"}
MESSAGE_KEYS = {"id", "role", "text", "createdAt"}


async def test_empty_memory_gives_an_empty_dto_without_preview(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        dto = await mem.hydrate(token)
        thread_id = mem.thread_id(token)
    assert dto == {"threadId": thread_id, "messages": [], "pinnedDecisions": [], "restored": False}


async def test_dto_has_exactly_the_contract_keys(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(
            token,
            turn(
                "Hi, checkpoint this",
                "Sure",
                "completed",
                source="mcp-resource",
                user_id="u-1",
                assistant_id="a-1",
            ),
        )
        dto = await mem.hydrate(token)
    assert set(dto) == DTO_KEYS - {"summaryPreview"}  # no summary yet: omitted
    assert dto["restored"] is True
    assert [set(m) for m in dto["messages"]] == [MESSAGE_KEYS, MESSAGE_KEYS]
    user, assistant = dto["messages"]
    assert (user["id"], user["role"], user["text"]) == ("u-1", "user", "Hi, checkpoint this")
    assert (assistant["id"], assistant["role"], assistant["text"]) == ("a-1", "assistant", "Sure")
    assert datetime.fromisoformat(user["createdAt"]).tzinfo is not None
    json.dumps(dto)  # plain JSON
    assert_no_forbidden_fields(dto)


async def test_summary_preview_is_the_first_240_chars(db_url: str) -> None:
    summary = "".join(f"Sentence {i} of the background. " for i in range(40))
    model = ScriptedChatModel(script=[{"summary": summary, "pinned_decisions": ["Pin one."]}])
    token = new_token()
    async with open_memory(db_url, compactor=model) as mem:
        for i in range(5):
            await mem.append_turn(token, turn(f"q{i}", f"a{i}"))
        state = await mem.load(token)
        dto = await mem.hydrate(token)
    assert set(dto) == DTO_KEYS
    assert len(state.summary) > SUMMARY_PREVIEW_CHARS == 240
    assert dto["summaryPreview"] == state.summary[:240]
    assert dto["pinnedDecisions"] == ["Pin one."]
    assert [m["text"] for m in dto["messages"]] == ["q3", "a3", "q4", "a4"]


def test_restored_when_only_summary_or_only_pins_remain() -> None:
    assert hydration_dto("chat:x", ThreadState(summary="s"))["restored"] is True
    assert hydration_dto("chat:x", ThreadState(pinned_decisions=["p"]))["restored"] is True
    assert hydration_dto("chat:x", ThreadState())["restored"] is False
    assert hydration_dto("chat:x", None)["restored"] is False
    assert hydration_dto("chat:x", ThreadState(summary="short"))["summaryPreview"] == "short"


async def test_hydration_after_clear_is_empty(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("q", "a"))
        await mem.clear(token)
        dto = await mem.hydrate(token)
    assert dto["messages"] == [] and dto["restored"] is False
