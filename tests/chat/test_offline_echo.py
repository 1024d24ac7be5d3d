"""The quick start's offline model quotes the user's message back; memory pins the user's
words, never the quote (it once pinned 'Your latest message: "Let's book …"' in their place,
then the next reply's list of pins around it), and names the user's message as the source."""

from __future__ import annotations

from adapters.chat_memory.runtime import get_memory
from adapters.models.offline import OfflineChatModel
from graphs.chat import build_graph
from tests.chat.helpers import TOKEN, user

CONVERSATION = [
    "Hi! I'm planning our team offsite.",
    "Let's book the table at Marco's for 4 people on Friday at 7 pm.",
    "We decided to use PostgreSQL for the booking app.",
    "What do we have so far?",
    "Actually, make it 6 people.",
    "不对，数据库改成 MySQL 吧。",
    "Anything else I should know?",
    "Thanks, that's all.",
]


async def test_the_offline_models_quotes_are_never_pinned(memory_url: str) -> None:
    graph = build_graph(model=OfflineChatModel(), tools=[])
    memory = await get_memory()
    for text in CONVERSATION:
        await graph.ainvoke({"messages": [user(text)]}, context={"session_id": TOKEN})
    state = await memory.load(TOKEN)
    assert state.pinned_decisions == ["Actually, make it 6 people.", "不对，数据库改成 MySQL 吧。"]
    # each came from the user's message alone: the answer quoting it back said nothing
    assert [[s.role for s in p.sources] for p in state.pins] == [["user"], ["user"]]
