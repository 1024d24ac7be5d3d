"""The chat graph's nodes: read memory and the question, call the model, run tools.

The nodes are methods of ``ChatNodes`` so a test can hand in its own model and
tools; without them each run asks the model provider and offers the local and
MCP tools.

``messages`` is the thread's transcript (contract §8a): each turn adds its question and
its answer, with stable ids; the turn's tool loop is shown while the turn runs and
is taken out when the answer comes, so what stays is user-visible text. At most
``TRANSCRIPT_MAX_MESSAGES`` stay, the oldest going first. What else a run's input
carries (history a client resends, placeholder tool results) is taken out too: only
the latest user message is the turn's. The model never reads that list: its context
is contract §7's, rebuilt from the session's memory, plus this turn's own tool loop.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, RemoveMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.graph import END
from langgraph.runtime import Runtime

from aimind_memory.adapters.chat_memory.final_turn import (
    FINAL_TURN_NODE,
    FinalTurn,
    ThreadState,
    build_context,
    latest_human,
    load_memory_state,
    memory_message_id,
    recall_for,
    recalled_kwargs,
    refuse_memory_thread,
    write_final_turn,
)
from aimind_memory.adapters.chat_memory.forks import account_after, replaced_turns
from aimind_memory.adapters.chat_memory.runtime import SessionContext
from aimind_memory.adapters.models import chat_model
from aimind_memory.adapters.tools.builtin import (
    MAX_TOOL_ROUNDS,
    TOOL_FAILED,
    TOOL_TIMED_OUT,
    TOOL_TIMEOUT_S,
    local_tools,
)
from aimind_memory.adapters.tools.mcp.client import cached_mcp_tools, is_mcp_tool
from aimind_memory.adapters.tools.resources import resolve_references
from aimind_memory.graphs.chat.prompts import SYSTEM_PROMPT
from aimind_memory.graphs.chat.state import (
    AUTO_ID_PREFIX,
    TRANSCRIPT_MAX_MESSAGES,
    ChatState,
    MemoryContext,
    Source,
)

log = logging.getLogger("aimind.chat")

AGENT_NODE, TOOLS_NODE = "agent", "tools"
_SOURCE_RANK: dict[Source, int] = {"chat": 0, "tool": 1, "mcp-resource": 2}


def _client_id(message_id: str | None) -> str | None:
    if message_id and message_id.startswith(AUTO_ID_PREFIX):
        return None
    return memory_message_id(message_id)


def this_turn(state: ChatState) -> list[BaseMessage]:
    """This turn's messages: its question, then the tool loop and answer (if any yet)."""
    messages: list[BaseMessage] = list(state.get("messages") or [])
    turn_id = state.get("turn_id")
    for index, message in enumerate(messages):
        if turn_id and message.id == turn_id:
            return messages[index:]
    return []


def after_transcript(state: ChatState) -> list[BaseMessage]:
    """The messages that came after the transcript's end: what this run's input added."""
    messages: list[BaseMessage] = list(state.get("messages") or [])
    end = state.get("transcript_end")
    if not end:
        return messages
    for index, message in enumerate(messages):
        if message.id == end:
            return messages[index + 1 :]
    return messages[-1:]  # the end is gone (a fork, an edit): only the newest is the turn's


def question_text(state: ChatState) -> str:
    """This turn's question as the user typed it ("" before a turn has one)."""
    turn = this_turn(state)
    return str(turn[0].text) if turn else ""


def _removals(messages: Sequence[BaseMessage]) -> list[RemoveMessage]:
    return [RemoveMessage(id=str(m.id)) for m in messages if m.id]


def trimmed(kept: int) -> int:
    """How many of the oldest messages go so that ``kept`` fit the transcript's bound."""
    return max(kept - TRANSCRIPT_MAX_MESSAGES, 0)


def memory_context(memory: ThreadState | None) -> MemoryContext:
    """The plain-JSON account of what memory gave the model, kept on the agent thread."""
    state = memory or ThreadState()
    return {
        "available": memory is not None,
        "summaryLength": len(state.summary),
        "pinnedDecisions": list(state.pinned_decisions),
        "recentTurns": sum(1 for m in state.messages if m.role == "user"),
    }


def extract_final_turn(state: ChatState) -> FinalTurn | None:
    """The turn memory keeps: the user's own text and the final answer, nothing else."""
    messages = this_turn(state)
    user_text = question_text(state)
    if not messages or not user_text:
        return None
    final = messages[-1]
    if not isinstance(final, AIMessage) or final.tool_calls:
        return None
    user_id = _client_id(messages[0].id)
    return FinalTurn(
        user_text=user_text,
        assistant_text=str(final.text),
        status="completed",
        source=state.get("source") or "chat",
        user_message_id=user_id,
        assistant_message_id=_client_id(final.id) if user_id else None,
    )


async def turn_memory(
    memory: ThreadState | None, state: ChatState, config: RunnableConfig
) -> tuple[ThreadState | None, list[str]]:
    """Memory as this turn's model sees it, and the messages the turn replaces: a run from
    an earlier checkpoint (Regenerate, Edit) leaves out what the thread said after it
    (``adapters/chat_memory/forks.py``)."""
    if memory is None:
        return None, []
    replaced = await replaced_turns(memory, config, account=state.get("memory_ids"))
    return memory.without_turns(replaced), replaced


async def final_turn(
    state: ChatState, config: RunnableConfig, runtime: Runtime[SessionContext]
) -> dict[str, Any]:
    """The final-turn adapter (contract §4): the turn goes to memory, in place of the turns it
    replaces, and the thread's account of what it wrote grows by it."""
    result = await write_final_turn(
        lambda: extract_final_turn(state),
        config,
        runtime,
        replaces=state.get("replaced_ids") or (),
    )
    account = await account_after(state.get("memory_ids"), result)
    return {} if account is None else {"memory_ids": account}


def _tool_error(call: dict[str, Any], content: str) -> ToolMessage:
    """A tool failure as the model and the client see it: a fixed sentence, never the
    exception's text (it can carry paths, hosts or data the user must not get)."""
    return ToolMessage(
        content=content,
        name=call.get("name"),
        tool_call_id=call.get("id") or "",
        status="error",
    )


async def _run_tool(tool: BaseTool | None, call: dict[str, Any]) -> ToolMessage:
    if tool is None:
        return _tool_error(call, f"error: there is no tool named {call.get('name')!r}"[:300])
    try:
        result = await asyncio.wait_for(tool.ainvoke(dict(call, type="tool_call")), TOOL_TIMEOUT_S)
    except asyncio.CancelledError:
        raise
    except TimeoutError:
        return _tool_error(call, TOOL_TIMED_OUT)
    except Exception as exc:
        log.warning("tool %r failed (%s)", tool.name, type(exc).__name__)
        return _tool_error(call, TOOL_FAILED)
    if isinstance(result, ToolMessage):
        return result
    return ToolMessage(content=str(result), name=tool.name, tool_call_id=call.get("id") or "")


class ChatNodes:
    """The nodes, bound to a model and tools (``None``: the provider's, local + MCP)."""

    def __init__(
        self, model: BaseChatModel | None = None, tools: Sequence[BaseTool] | None = None
    ) -> None:
        self._model = model
        self._tools = list(tools) if tools is not None else None

    async def toolset(self) -> list[BaseTool]:
        if self._tools is not None:
            return self._tools
        return [*local_tools(), *await cached_mcp_tools()]

    async def _start_turn(
        self, state: ChatState, config: RunnableConfig, runtime: Runtime[SessionContext]
    ) -> dict[str, Any]:
        """The run's first call: this turn's question (the latest human message the input
        added), the session's memory, and the input's other messages out of the transcript."""
        refuse_memory_thread(config)
        added = after_transcript(state)
        human = latest_human(added)
        memory = await load_memory_state(config, runtime)
        replaced: list[str] = []
        if human is not None:
            memory, replaced = await turn_memory(memory, state, config)
        update: dict[str, Any] = {
            "memory": memory,
            "memory_context": memory_context(memory),
            "turn_id": human.id if human is not None else "",
            "model_text": "",
            "tool_rounds": 0,
        }
        if replaced or state.get("replaced_ids"):  # written only when it changes
            update["replaced_ids"] = replaced
        if dropped := _removals([m for m in added if m is not human]):
            update["messages"] = dropped
        if human is None:  # nothing to answer (a continue): the transcript stays as it is
            return update
        update["recalled"] = await recall_for(str(human.text), memory, config, runtime)
        model_text, references = await resolve_references(str(human.text))
        return {
            **update,
            "model_text": model_text if references else "",
            "source": "mcp-resource" if references else "chat",
        }

    async def agent(
        self, state: ChatState, config: RunnableConfig, runtime: Runtime[SessionContext]
    ) -> dict[str, Any]:
        """One model call on contract §7's context plus this turn's own tool loop (the run's
        first call reads the question and memory first: one step, one checkpoint, less)."""
        started: dict[str, Any] = {}
        human = latest_human(after_transcript(state))
        if human is None or human.id != state.get("turn_id"):
            started = await self._start_turn(state, config, runtime)
            gone = {m.id for m in started.get("messages", [])}
            kept = [m for m in state.get("messages") or [] if m.id not in gone]
            state = cast(ChatState, {**state, **started, "messages": kept})  # ChatState's keys
        if not question_text(state):
            return started
        memory = state.get("memory")
        turn = this_turn(state)
        if memory is None and not started:  # resumed mid-turn: memory is never checkpointed
            memory, replaced = await turn_memory(
                await load_memory_state(config, runtime), state, config
            )
            started = {"replaced_ids": replaced}  # e.g. an answer regenerated after its tools
            recalled = await recall_for(question_text(state), memory, config, runtime, report=False)
            state = cast(ChatState, {**state, "recalled": recalled})
        context = build_context(
            memory,
            system_prompt=SYSTEM_PROMPT,
            latest_user_text=state.get("model_text") or question_text(state),
            recalled=state.get("recalled") or (),
        )
        loop = turn[1:]
        llm = self._model or chat_model()
        available = await self.toolset()
        bound = (
            llm.bind_tools(available)
            if available and state.get("tool_rounds", 0) < MAX_TOOL_ROUNDS
            else llm
        )
        response = await bound.ainvoke([*context, *loop], config)
        dropped = list(started.get("messages", []))
        if getattr(response, "tool_calls", None):  # more tools, or no answer within the limit
            return {**started, "messages": [*dropped, response]}
        answer = AIMessage(  # what the user sees: the text, under the model's id
            content=str(response.text),
            id=response.id or f"{AUTO_ID_PREFIX}{uuid.uuid4().hex}",
            additional_kwargs=recalled_kwargs(state.get("recalled") or ()),
        )
        kept = list(state.get("messages") or [])
        earlier = kept[: len(kept) - len(turn)]
        oldest = earlier[: trimmed(len(earlier) + 2)]
        return {  # the answer replaces the tool loop; the oldest go past the bound
            **started,
            "messages": [*dropped, *_removals(oldest), *_removals(loop), answer],
            "transcript_end": answer.id,
        }

    async def tools(self, state: ChatState) -> dict[str, Any]:
        """Run the model's tool calls concurrently; the turn's source follows the tools used."""
        last = state["messages"][-1]
        calls = list(getattr(last, "tool_calls", []) or [])
        by_name = {t.name: t for t in await self.toolset()}
        results = await asyncio.gather(*(_run_tool(by_name.get(c["name"]), c) for c in calls))
        used = [by_name[c["name"]] for c in calls if c["name"] in by_name]
        source: Source = "mcp-resource" if any(is_mcp_tool(t) for t in used) else "tool"
        current = state.get("source") or "chat"
        if _SOURCE_RANK[current] > _SOURCE_RANK[source]:
            source = current
        return {
            "messages": list(results),
            "source": source,
            "tool_rounds": state.get("tool_rounds", 0) + 1,
        }


def after_agent(state: ChatState) -> str:
    if not question_text(state):  # the input brought no question: nothing to answer
        return END
    last = state["messages"][-1]
    if getattr(last, "tool_calls", None) and state.get("tool_rounds", 0) < MAX_TOOL_ROUNDS:
        return TOOLS_NODE
    return FINAL_TURN_NODE
