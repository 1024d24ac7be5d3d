"""``ChatMemoryMiddleware``: this project's chat memory in any LangChain v1 agent (contract §13a).

::

    agent = create_agent(model, tools, middleware=[ChatMemoryMiddleware()])
    await agent.ainvoke({"messages": [...]}, context={"session_id": token})

It uses two of the hooks LangChain documents (``langchain.agents.middleware.types``):

- ``awrap_model_call`` rewrites each model *request*: the model gets contract §7's
  context — the agent's system prompt, memory's summary and pinned decisions, what the
  session's archive recalls for the latest user message (contract §5a), its recent
  turns, the latest user message — plus this turn's own tool loop, and none
  of the older history in the agent's state. Only the request changes: the state,
  which a UI shows and the agent's checkpointer keeps, stays the user's own
  conversation. (``SummarizationMiddleware`` uses ``before_model`` instead and
  replaces the state's history with its summary.) Memory is read here, once per
  model call — no node of its own, so no extra checkpoint per run, and a run
  resumed after an interrupt reads it again like any other.
- ``aafter_agent`` runs once, after the agent has finished: it writes the turn —
  the latest user message's text and the final answer's text, never tool calls or
  results. A run that fails never gets there, and an interrupted one pauses before
  it, so neither writes anything. With ``trim_state=True`` it also drops the agent
  state's turns older than memory's window, so a checkpointed thread's state (and
  each checkpoint of it) stays the same size however long the conversation runs.

A run from an earlier checkpoint (agent-chat-ui's Regenerate and Edit) replaces what
the thread said after it, as the ``chat`` graph does (``adapters/chat_memory/forks.py``):
the agent's state keeps the memory ids of the turns it wrote (``memory_ids``, private
to the middleware), the turn's first model call works out what it replaces, leaves it
out of the model's context and hands it to the state with the model's answer (an
``ExtendedModelResponse`` command: no node of its own), and the write replaces it.

The session is the authenticated user under a LangGraph server, else run context
``session_id``, else ``configurable.session_id`` (``adapters/chat_memory/session.py``);
without one a script's agent runs without memory and nothing is written, and a served
run whose server has no auth fails with ``MemoryNotServedError``, which says what to add
to ``langgraph.json``. A memory failure never fails the agent: the
turn runs without memory, or is not written, and a ``thread-memory-status``
``failed`` event says so on the custom stream (where compactions report too).
The service is the graphs' (``adapters.chat_memory.runtime.get_memory``): opened once
per process, event loop and set of options, closed at shutdown. With
``recall_tool=True`` the agent also gets the ``recall_memory`` tool
(``adapters/chat_memory/recall_tool.py``) to search the archive itself.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, NotRequired, cast

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse, PrivateStateAttr
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    ToolMessage,
)
from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.types import Command

from aimind_memory.adapters.chat_memory.final_turn import (
    load_memory_state,
    memory_message_id,
    recall_for,
    refuse_memory_thread,
    write_final_turn,
)
from aimind_memory.adapters.chat_memory.forks import account_after, replaced_turns
from aimind_memory.adapters.chat_memory.recall_tool import recall_memory_tool
from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.settings import warn_unknown_settings
from aimind_memory.memory import Compactor, FinalTurn, MemoryLimits, ThreadState, memory_messages
from aimind_memory.memory.config.settings import memory_settings

__all__ = ["ChatMemoryMiddleware", "ChatMemoryState", "finished_turn", "older_turns"]

ModelHandler = Callable[[ModelRequest], Awaitable[ModelResponse]]


def _turn_start(messages: Sequence[BaseMessage]) -> int | None:
    """Where this turn starts: the latest user message (its tool loop follows it)."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return index
    return None


def finished_turn(messages: Sequence[BaseMessage]) -> FinalTurn | None:
    """The turn memory keeps: the latest user message's text and the final answer's
    (the last message, an AI message without tool calls), nothing of the tool loop."""
    start = _turn_start(messages)
    if start is None:
        return None
    human, final = messages[start], messages[-1]
    if final is human or not isinstance(final, AIMessage) or final.tool_calls:
        return None
    used_tools = any(isinstance(m, ToolMessage) for m in messages[start:])
    return FinalTurn(
        user_text=str(human.text),
        assistant_text=str(final.text),
        status="completed",
        source="tool" if used_tools else "chat",
        user_message_id=memory_message_id(human.id),
        assistant_message_id=memory_message_id(final.id),
    )


def older_turns(messages: Sequence[BaseMessage], keep_turns: int) -> list[RemoveMessage]:
    """Removals of everything before the newest ``keep_turns`` turns (whole turns)."""
    starts = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    if len(starts) <= keep_turns:
        return []
    return [RemoveMessage(id=m.id) for m in messages[: starts[-keep_turns]] if m.id]


class ChatMemoryState(AgentState[Any]):
    """The agent's state, plus what the middleware keeps on the agent's thread."""

    memory_ids: NotRequired[Annotated[list[str], PrivateStateAttr]]
    """The memory ids of the turns this thread wrote on its branch, their questions'
    (``forks.MEMORY_IDS``)."""
    replaced_ids: NotRequired[Annotated[list[str], PrivateStateAttr]]
    """Memory's messages this turn replaces (a regenerated answer, an edited question)."""


def _written(memory: ThreadState, message_id: str | None) -> bool:
    return message_id is not None and any(m.id == message_id for m in memory.messages)


class ChatMemoryMiddleware(AgentMiddleware[ChatMemoryState, Any]):
    """Bounded, durable chat memory for ``create_agent`` (contract §13a).

    Each model call gets memory's context (summary, pins, recent turns) plus this turn's
    tool loop, never the agent state's older history; the finished turn (the user's text
    and the final answer's) is written once the agent is done. A memory failure never
    fails the agent. The session is the authenticated user under a LangGraph server,
    else the run context's ``session_id``, else ``configurable.session_id``.

    Args:
        database_url: ``sqlite:///path``, ``postgresql://…`` or ``memory``; None reads
            ``AIMIND_DATABASE_URL`` (default: the data folder's SQLite file).
        compactor: A ``Compactor``, or a LangChain chat model to compact with; None: the
            model compactor when a model is configured, else the extractive one.
        limits: The bounds memory keeps; None: the settings'.
        trim_state: Keep only memory's window of turns (``AIMIND_RECENT_TURNS``) in the
            agent's own state, so a checkpointed thread stays the same size.
        recall_tool: Add the ``recall_memory`` tool: the model may search the archive of
            folded turns itself.

    Raises:
        SettingsError: A memory setting is malformed (checked when it is made).
    """

    state_schema = ChatMemoryState

    def __init__(
        self,
        database_url: str | None = None,
        *,
        compactor: Compactor | BaseChatModel | None = None,
        limits: MemoryLimits | None = None,
        trim_state: bool = False,
        recall_tool: bool = False,
    ) -> None:
        super().__init__()
        self.database_url = database_url
        self.trim_state = trim_state
        warn_unknown_settings(stacklevel=3)  # a misspelt AIMIND_* variable is named, not ignored
        bounds = limits or memory_settings().limits  # validated now
        self._state_turns = bounds.recent_turns
        self._recall_chars = bounds.recall_chars
        self._open = functools.partial(get_memory, database_url, compactor=compactor, limits=limits)
        self.tools = [recall_memory_tool(self._open)] if recall_tool else []

    async def awrap_model_call(
        self, request: ModelRequest, handler: ModelHandler
    ) -> ModelResponse | AIMessage | ExtendedModelResponse:
        """LangChain's hook around each model call: the model sees memory's context and
        this turn, never the state's older history, nor what a run from an earlier
        checkpoint replaces.

        Args:
            request: The model request the agent built.
            handler: Calls the model (and the middleware after this one).

        Returns:
            The model's response; with the turns this one replaces, for the state.
        """
        config = get_config()
        refuse_memory_thread(config)
        state = cast(ChatMemoryState, request.state)  # ModelRequest types it as AgentState
        start = _turn_start(request.messages)
        if start is None:  # nothing from the user to answer: leave the request alone
            return await handler(request)
        human, loop = request.messages[start], request.messages[start + 1 :]
        memory = await load_memory_state(
            config, request.runtime, opener=self._open, report_landed=not loop
        )
        replaced: list[str] = list(state.get("replaced_ids") or ())
        found = None
        # The turn's first call works it out; a later one only when the turn was written
        # already (an answer regenerated after its tool calls).
        if not loop or (memory is not None and _written(memory, human.id)):
            found = replaced = await replaced_turns(
                memory, config, account=state.get("memory_ids"), opener=self._open
            )
        if memory is not None:
            memory = memory.without_turns(replaced)
        recalled = await recall_for(
            str(human.text), memory, config, request.runtime, opener=self._open, report=not loop
        )
        context = memory_messages(memory, recalled, recall_chars=self._recall_chars)
        # ModelRequest takes list[AnyMessage] (a union); memory's are BaseMessage of its kinds.
        messages: list[AnyMessage] = [*context, human, *loop]  # type: ignore[list-item]
        response = await handler(request.override(messages=messages))
        if found is None or found == list(state.get("replaced_ids") or ()):
            return response  # written only when it changes
        return ExtendedModelResponse(
            model_response=response, command=Command(update={"replaced_ids": found})
        )

    async def aafter_agent(
        self, state: ChatMemoryState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """LangChain's hook once the agent is done: write the finished turn once, in place
        of what it replaces; keep the thread's account of what it wrote; with
        ``trim_state``, drop turns past the window.

        Args:
            state: The agent's state at the end of the run.
            runtime: The run's runtime (its context, its stream).

        Returns:
            The state update (what was written, the turns dropped), or None.
        """
        messages = state["messages"]
        result = await write_final_turn(
            lambda: finished_turn(messages),
            get_config(),
            runtime,
            opener=self._open,
            replaces=state.get("replaced_ids") or (),
        )
        update: dict[str, Any] = {}
        account = await account_after(state.get("memory_ids"), result, opener=self._open)
        if account is not None:
            update["memory_ids"] = account
        if self.trim_state and (removals := older_turns(messages, self._state_turns)):
            update["messages"] = removals
        return update or None
