"""The quick start's offline model quotes the user's message back; memory pins the user's
words, never the quote (it once pinned 'Your latest message: "Let's book …"' in their place,
then the next reply's list of pins around it), and names the user's message as the source."""

from __future__ import annotations

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.models.offline import OfflineChatModel
from aimind_memory.graphs.chat import build_graph
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


WALK = [
    "Let's book the table at Marco's for 4 people on Friday at 7 pm.",
    "Can you recommend a wine for that dinner?",
    "What about dessert?",
    "Actually, make it 6 people, two more friends are coming.",
    "Also, we decided to use PostgreSQL for the booking app.",
    "不对，数据库改成 MySQL 吧。",
    "What have we decided so far?",
    "Thanks! List the pinned decisions one more time.",
]


async def test_the_offline_models_quotes_do_not_hide_what_changed(memory_url: str) -> None:
    """Each offline answer lists the pins it was given, the replaced one too: the summary
    still says what held before each change, a line each, and never the offline model's
    account of what it was given."""
    graph = build_graph(model=OfflineChatModel(), tools=[])
    memory = await get_memory()
    for text in WALK:
        await graph.ainvoke({"messages": [user(text)]}, context={"session_id": TOKEN})
    state = await memory.load(TOKEN)
    assert state.pinned_decisions == [WALK[3], WALK[5]]
    lines = state.summary.splitlines()  # each change its own line
    assert f"- Since changed: {WALK[0]}" in lines
    assert f"- Since changed: {WALK[4]}" in lines
    assert "[offline model]" not in state.summary  # the model's account of its context


CHINESE_CHATTER = [
    "我们决定用 PostgreSQL 作为数据库。",
    "别动 我先看看",
    "不要把密码写进代码仓库。",
    "别别别 先听我说",
    "周会定在周二上午十点。",
    "别解释了 吃饭去",
    "你别动啊 别动了",
    "好的，就这样。",
]


async def test_the_offline_models_quote_of_a_short_message_is_not_the_summary(
    memory_url: str,
) -> None:
    """A short Chinese message ("别动 我先看看", seven characters) quoted back whole by the
    offline model is an echo like a long one: the summary was three of the model's 'Your
    latest message: "…"' lines. Commands of the moment are not pinned either."""
    graph = build_graph(model=OfflineChatModel(), tools=[])
    memory = await get_memory()
    for text in CHINESE_CHATTER:
        await graph.ainvoke({"messages": [user(text)]}, context={"session_id": TOKEN})
    state = await memory.load(TOKEN)
    assert state.pinned_decisions == [CHINESE_CHATTER[i] for i in (0, 2, 4)]
    assert state.summary and "Your latest message" not in state.summary
    assert "- Assistant:" not in state.summary  # the answers said nothing of their own
