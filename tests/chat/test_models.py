"""The offline model: labelled, deterministic, states its context, tools, structured output."""

from __future__ import annotations

from langchain_core.messages import AIMessageChunk, HumanMessage, ToolMessage
from pydantic import BaseModel

from aimind_memory.adapters.models.provider import OFFLINE_LABEL, OfflineChatModel, chat_model
from aimind_memory.adapters.tools.builtin import calculator, current_time
from aimind_memory.memory import CompactionOutput, ThreadState, build_context
from aimind_memory.memory.config.model import compaction_model
from aimind_memory.memory.models import ChatThreadMessage, utcnow


def _state() -> ThreadState:
    now = utcnow()
    return ThreadState(
        summary="Earlier we planned the launch.",
        pinned_decisions=["We will use PostgreSQL.", "不做移动端。"],
        messages=[
            ChatThreadMessage(id="u1", role="user", text="first?", created_at=now),
            ChatThreadMessage(id="a1", role="assistant", text="first!", created_at=now),
        ],
    )


def test_no_key_means_offline_and_no_compaction_model() -> None:
    assert isinstance(chat_model(), OfflineChatModel)
    assert compaction_model() is None


async def test_offline_reply_states_its_context_deterministically() -> None:
    context = build_context(_state(), system_prompt="sys", latest_user_text="What did we pick?")
    model = OfflineChatModel()
    first, second = await model.ainvoke(context), await model.ainvoke(context)
    assert first.content == second.content
    text = str(first.content)
    assert text.startswith(OFFLINE_LABEL)
    assert "summary of 30 characters" in text
    assert '2 pinned decisions: "We will use PostgreSQL."; "不做移动端。"' in text
    assert "1 recent turn." in text
    assert 'Your latest message: "What did we pick?"' in text


async def test_offline_streams_token_by_token() -> None:
    context = build_context(None, system_prompt="sys", latest_user_text="hello")
    chunks = [c async for c in OfflineChatModel().astream(context)]
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    pieces = [str(c.content) for c in chunks if c.content]
    assert len(pieces) > 10
    assert "".join(pieces) == str(OfflineChatModel().invoke(context).content)


async def test_offline_calls_calculator_once_then_answers() -> None:
    model = OfflineChatModel().bind_tools([calculator, current_time])
    question = build_context(None, system_prompt="sys", latest_user_text="What is 12 * (3 + 4)?")
    call = await model.ainvoke(question)
    assert call.tool_calls[0]["name"] == "calculator"
    assert call.tool_calls[0]["args"] == {"expression": "12 * (3 + 4)"}
    result = ToolMessage("84", tool_call_id=call.tool_calls[0]["id"], name="calculator")
    answer = await model.ainvoke([*question, call, result])
    assert not answer.tool_calls and "Tool calculator returned: 84" in str(answer.content)
    plain = await model.ainvoke([HumanMessage("no numbers here")])
    assert not plain.tool_calls


class Verdict(BaseModel):
    label: str
    score: int
    tags: list[str]


class WithExample(BaseModel):
    answer: str

    @classmethod
    def offline_example(cls, prompt_text: str) -> WithExample:
        return cls(answer=f"offline saw {len(prompt_text)} chars")


async def test_offline_structured_output() -> None:
    model = OfflineChatModel()
    generic = await model.with_structured_output(Verdict).ainvoke("judge this")
    assert generic == Verdict(label="[offline]", score=0, tags=[])
    hooked = await model.with_structured_output(WithExample).ainvoke([HumanMessage("12345")])
    assert hooked.answer == "offline saw 5 chars"
    compaction = await model.with_structured_output(CompactionOutput).ainvoke("x")
    assert CompactionOutput.model_validate(compaction.model_dump())
    raw = await model.with_structured_output(Verdict, include_raw=True).ainvoke("x")
    assert raw["parsed"].label == "[offline]" and raw["parsing_error"] is None
