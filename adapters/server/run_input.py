"""The shape a graph run's input must have, checked before a run is queued.

LangGraph reports a graph that choked on its input as a finished run with an
``__error__`` body, and a run with no user message simply ends with no reply;
a client that sent the wrong thing deserves a 422 with a sentence instead.
Any run's input must be an object whose ``messages`` (if any) are chat
messages. A run of one of our graphs (``TURN_GRAPHS``) must also carry the
turn — ``messages`` whose latest user message has text, or (the delivery
chain's shortcut) a non-empty ``requirement``; another graph served beside
them keeps its own input schema. A run that carries a ``command`` is a resume
whatever its input (agent-chat-ui sends ``{"input": {}, "command": …}``), and a
run without input (a continue) is not checked either.

``is_resume`` is the one place that decides what a resume is; the graphs never see
the command (LangGraph applies it before any node runs). What they see is its effect:
a ``resume`` value is ``interrupt()``'s answer, and a command without one
(``{"goto": "__end__"}``, agent-chat-ui's "Mark as Resolved") runs the waiting node
again with no answer, which tasklist-agent takes as closing the question
(``graphs/tasklist_agent/nodes._ask``). A run with input on a thread whose review
waits is not a resume: the graph starts anew and takes the message as the answer.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from aimind_memory.adapters.chat_memory.runtime import SessionContext
from aimind_memory.adapters.errors import RunInputError
from aimind_memory.adapters.server.request_limits import MAX_INPUT_MESSAGES, MESSAGES_LIMIT_ENV

__all__ = [
    "CHAT_GRAPH",
    "GRAPH_ASSISTANT_NAMESPACE",
    "TURN_GRAPHS",
    "check_run_input",
    "graph_names",
    "is_resume",
]

CHAT_GRAPH = "chat"
TURN_GRAPHS = frozenset({CHAT_GRAPH, "tasklist-agent", "delivery-chain", "agent"})
"""The graphs (``langgraph.json``) whose input is a user's turn."""
GRAPH_ASSISTANT_NAMESPACE = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")
"""The namespace both servers derive a graph's own assistant id from (``uuid5(ns, graph)``):
``langgraph_api.graph.NAMESPACE_GRAPH`` and ``aegra_api.constants.ASSISTANT_NAMESPACE_UUID``."""


def graph_names(*graphs: str) -> frozenset[str]:
    """How a client names one of ``graphs``: the graph id (what Aegra passes on, and what a
    client may send) or the id of the graph's own assistant. An assistant a user made of
    one of them has a random id."""
    return frozenset({*graphs, *(str(uuid.uuid5(GRAPH_ASSISTANT_NAMESPACE, g)) for g in graphs)})


MessageKind = Literal["human", "user", "ai", "assistant", "system", "tool"]
USER_KINDS = frozenset({"human", "user"})
TOOL_KIND = "tool"
EXAMPLE = '{"messages": [{"role": "user", "content": "Hello"}]}'
TOOL_CALL_EXAMPLE = '{"name": "calculator", "args": {"expression": "2+2"}, "id": "call_1"}'
MESSAGES_SENTENCE = (
    "The run input's messages must be a list of chat messages, each with a role "
    f"(human, user, ai, assistant, system or tool) and text content, e.g. {EXAMPLE}."
)
TOOL_CALLS_SENTENCE = (
    "The run input's tool_calls must each have a name and an args object (or OpenAI's id "
    f"and function with a name and JSON arguments), e.g. {TOOL_CALL_EXAMPLE}."
)
TEXT_FIELDS = ("id", "name", "tool_call_id")
TEXT_FIELDS_SENTENCE = "The run input's message id, name and tool_call_id must be text."
TOOL_MESSAGE_SENTENCE = (
    "A tool message in the run input needs the tool_call_id of the call it answers."
)
CONTEXT_SENTENCE = "The run's context must be a JSON object whose session_id, if any, is text."
COMMAND_SENTENCE = (
    "The run's command must be an object with resume (any value), goto (a node name, "
    'or {"node", "input"}, or a list of them) or update (an object), e.g. '
    '{"resume": {"decisions": [{"type": "approve"}]}}.'
)


class ToolCall(BaseModel):
    """LangChain's tool call, which an ``ai`` message's ``tool_calls`` must hold."""

    model_config = ConfigDict(extra="allow")

    name: str
    args: dict[str, Any]
    id: str | None = None
    type: Literal["tool_call"] | None = None


class OpenAIFunction(BaseModel):
    name: str
    arguments: str | dict[str, Any]

    @field_validator("arguments")
    @classmethod
    def json_object(cls, value: str | dict[str, Any]) -> str | dict[str, Any]:
        """LangChain parses a string with ``json.loads`` into the call's ``args`` object."""
        if isinstance(value, str) and not isinstance(_json_or_none(value), dict):
            raise ValueError("arguments must be a JSON object")
        return value


class OpenAIToolCall(BaseModel):
    """OpenAI's tool call (``{"id", "function": {"name", "arguments"}}``): LangChain
    converts any tool call with a ``function`` to its own."""

    model_config = ConfigDict(extra="allow")

    id: str
    function: OpenAIFunction
    type: Literal["function"] | None = None


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


class SendTo(BaseModel):
    node: str
    input: Any = None


class RunCommand(BaseModel):
    """LangGraph's ``Command`` as both servers take it from a client; an unknown key (a
    typo such as ``resum``) would otherwise be a run that silently ignores it."""

    model_config = ConfigDict(extra="forbid")

    resume: Any = None
    goto: str | SendTo | list[str | SendTo] | None = None
    update: dict[str, Any] | list[tuple[str, Any]] | None = None


class InputMessage(BaseModel):
    """A chat message as LangChain's ``convert_to_messages`` takes it, fields typed as the
    message classes want them, so a malformed one is a 422 here and not a ``TypeError`` or
    a ``ValidationError`` inside the run."""

    model_config = ConfigDict(extra="allow")

    role: MessageKind | None = None
    type: MessageKind | None = None
    content: str | list[dict[str, Any] | str]
    tool_calls: list[dict[str, Any]] | None = None
    id: str | None = None
    name: str | None = None
    tool_call_id: str | None = None

    @field_validator("tool_calls")
    @classmethod
    def tool_call_shapes(cls, calls: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        for call in calls or ():
            try:
                (OpenAIToolCall if "function" in call else ToolCall).model_validate(call)
            except ValidationError:
                raise ValueError("malformed tool call") from None
        return calls

    @property
    def kinds(self) -> set[str | None]:
        return {self.role, self.type}

    @property
    def from_user(self) -> bool:
        return bool(self.kinds & USER_KINDS)

    @property
    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "".join(
            part if isinstance(part, str) else str(part.get("text") or "")
            for part in self.content
            if isinstance(part, str) or part.get("type") == "text"
        )


class RunInput(BaseModel):
    model_config = ConfigDict(extra="allow")

    messages: list[InputMessage | str] | InputMessage | str | None = None
    requirement: str | None = None

    def latest_user_text(self) -> str | None:
        """The latest user message's text ("" when it has none); None with no user message.
        A bare string is a user message, as LangChain reads it."""
        messages = self.messages if isinstance(self.messages, list) else [self.messages]
        for message in reversed(messages):
            if isinstance(message, str):
                return message
            if isinstance(message, InputMessage) and message.from_user:
                return message.text
        return None


def is_resume(command: Any) -> bool:
    """A run's ``command`` makes it a resume (``{"resume": …}``, ``{"goto": …}``,
    ``{"update": …}``): the one place that decides, for the HTTP check and the graphs."""
    return isinstance(command, dict) and bool(command)


def check_command(command: Any) -> None:
    """A run's ``command``: a wrong ``goto`` or ``update`` failed inside the run."""
    if command is None:
        return
    if not isinstance(command, dict):
        raise RunInputError(COMMAND_SENTENCE)
    try:
        RunCommand.model_validate(command)
    except ValidationError:
        raise RunInputError(COMMAND_SENTENCE) from None


def check_context(context: Any) -> None:
    """A run's ``context`` is what every graph served here takes (``SessionContext``):
    a wrong one failed inside the run with a pydantic error quoting the value."""
    if context is None:
        return
    if not isinstance(context, dict):
        raise RunInputError(CONTEXT_SENTENCE)
    try:
        SessionContext.model_validate(context)
    except ValidationError:
        raise RunInputError(CONTEXT_SENTENCE) from None


def _sentence(exc: ValidationError) -> str:
    """The one sentence for what is wrong, from the first error's place."""
    errors = exc.errors()
    if all(error["loc"][:1] == ("requirement",) for error in errors):
        return "The run input's requirement must be text."
    for error in errors:
        if "tool_calls" in error["loc"]:
            return TOOL_CALLS_SENTENCE
        if error["loc"][-1:] and error["loc"][-1] in TEXT_FIELDS:
            return TEXT_FIELDS_SENTENCE
    return MESSAGES_SENTENCE


def _check_messages(run_input: RunInput) -> None:
    messages = run_input.messages if isinstance(run_input.messages, list) else [run_input.messages]
    for message in messages:
        if not isinstance(message, InputMessage):
            continue
        if message.kinds == {None}:
            raise RunInputError(MESSAGES_SENTENCE)
        if TOOL_KIND in message.kinds and not message.tool_call_id:
            raise RunInputError(TOOL_MESSAGE_SENTENCE)


def check_run_input(
    value: Any,
    *,
    turn: bool = True,
    command: Any = None,
    context: Any = None,
    max_messages: int = MAX_INPUT_MESSAGES,
) -> None:
    """Raise RunInputError unless the run's ``context`` and ``command`` are well-formed and
    the run is a resume (``command``), ``value`` (its ``input``) is None, or a well-formed
    object of at most ``max_messages`` messages that, with ``turn``, carries the turn."""
    check_context(context)
    check_command(command)
    messages = value.get("messages") if isinstance(value, dict) else None
    if isinstance(messages, list) and len(messages) > max_messages:
        raise RunInputError(
            f"The run input has {len(messages):,} messages; this server takes at most "
            f"{max_messages:,} ({MESSAGES_LIMIT_ENV} sets it)."
        )
    if value is None or is_resume(command):
        return
    if not isinstance(value, dict):
        raise RunInputError(f"The run input must be a JSON object, e.g. {EXAMPLE}.")
    try:
        run_input = RunInput.model_validate(value)
    except ValidationError as exc:
        raise RunInputError(_sentence(exc)) from None
    _check_messages(run_input)
    if not turn or (run_input.requirement is not None and run_input.requirement.strip()):
        return
    if not run_input.messages:
        raise RunInputError(
            "The run input has no messages: send the user's message in a 'messages' list, "
            f"e.g. {EXAMPLE}."
        )
    text = run_input.latest_user_text()
    if text is None:
        raise RunInputError(
            "The run input has no user message: the latest message with the role user "
            f"(or human) is the turn, e.g. {EXAMPLE}."
        )
    if not text.strip():
        raise RunInputError("The latest user message is empty: write something to send.")
