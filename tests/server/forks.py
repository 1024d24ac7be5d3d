"""agent-chat-ui's Regenerate and Edit against a real server (issue 30): memory matches
the screen afterwards, and the re-run's model saw only the turns still on it.

Shared by ``langgraph dev`` (``tests/server/test_stock_clients.py``) and Aegra
(``tests/production/test_forks.py``), for the ``chat`` graph and the ``agent`` graph
(``create_agent`` with ``ChatMemoryMiddleware``: agent-chat-ui's default assistant);
``urls`` may name several replicas, taken in turn, as a load balancer would. The
offline model states how many recent turns its context held (and the ``chat``
graph's ``values.memory_context`` says it too).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import httpx

from tests.server.agent_chat_ui import TIMEOUT, AgentChatUI, text_of

RECENT_TURNS_RE = re.compile(r"(\d+) recent turns?")


async def memory_window(url: str, token: str) -> list[tuple[str, str]]:
    """Memory's recent window as the memory panel reads it: ``(id, text)`` per message."""
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as client:
        response = await client.get("/api/chat/thread", headers={"X-Api-Key": token})
    response.raise_for_status()
    return [(m["id"], m["text"]) for m in response.json()["messages"]]


async def _shown(ui: AgentChatUI, thread: str) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """The thread as the UI shows it, ``(id, text)`` per message, and its values."""
    values = (await ui.state(thread))["values"]
    return [(m["id"], text_of(m)) for m in values["messages"]], values


def _tabs(urls: list[str], token: str, assistant: str) -> itertools.cycle[AgentChatUI]:
    return itertools.cycle([AgentChatUI(url, assistant, token) for url in urls])


def _assert_past_turns(answer: str, values: dict[str, Any], turns: int) -> None:
    found = RECENT_TURNS_RE.search(answer)
    assert found and int(found[1]) == turns, answer
    if "memory_context" in values:
        assert values["memory_context"]["recentTurns"] == turns


async def regenerate_replaces_the_answer(
    urls: list[str], token: str, assistant: str = "chat"
) -> None:
    """Regenerate the second answer: the re-run's model had one past turn, not two, and
    memory holds the new answer, not the old."""
    tabs = _tabs(urls, token, assistant)
    ui = next(tabs)
    thread = await ui.new_thread()
    await ui.send(thread, "Which city should we visit in May?", "fork-q1")
    await next(tabs).send(thread, "Which hotel near the old town?", "fork-q2")
    before, _ = await _shown(ui, thread)
    old_answer = before[-1]
    assert await memory_window(urls[0], token) == before

    await next(tabs).regenerate(thread, old_answer[0])

    after, values = await _shown(ui, thread)
    assert after[:3] == before[:3] and after[3][0] != old_answer[0]
    _assert_past_turns(after[3][1], values, 1)
    window = await memory_window(urls[-1], token)
    assert window == after  # memory is what the screen shows
    assert old_answer[0] not in {i for i, _ in window}


async def edit_replaces_the_question_and_keeps_other_threads_turns(
    urls: list[str], token: str, assistant: str = "chat"
) -> None:
    """Edit the second question after another thread of the session wrote a turn: the old
    question and answer leave memory, the new ones come, the other thread's turn stays,
    and the re-run's model had the two turns still on either screen."""
    tabs = _tabs(urls, token, assistant)
    ui = next(tabs)
    thread = await ui.new_thread()
    await ui.send(thread, "Book a table for 4 people.", "fork-e1")
    await next(tabs).send(thread, "Make it at 7 pm.", "fork-e2")
    other_tab = next(tabs)
    other = await other_tab.new_thread()
    await other_tab.send(other, "What is the capital of Portugal?", "fork-x1")
    before, _ = await _shown(ui, thread)
    elsewhere, _ = await _shown(other_tab, other)

    await next(tabs).edit(thread, "fork-e2", "Make it at 8 pm.")

    after, values = await _shown(ui, thread)
    assert after[:2] == before[:2]
    assert after[2][1] == "Make it at 8 pm." and after[2][0] != "fork-e2"
    _assert_past_turns(after[3][1], values, 2)
    window = await memory_window(urls[-1], token)
    assert window == [*after[:2], *elsewhere, *after[2:]]
    gone = {i for i, _ in before[2:]}
    assert not gone & {i for i, _ in window}
