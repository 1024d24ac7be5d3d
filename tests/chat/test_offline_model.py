"""The offline model answers briefly whatever the question's size."""

from __future__ import annotations

from langchain_core.messages import HumanMessage

from aimind_memory.adapters.models.offline import OFFLINE_LATEST_CHARS, OfflineChatModel


async def test_offline_reply_to_a_huge_message_stays_short() -> None:
    reply = await OfflineChatModel().ainvoke([HumanMessage("x" * 1_000_000)])
    assert "x" * 100 in reply.text
    assert len(reply.text) < OFFLINE_LATEST_CHARS + 1_000
