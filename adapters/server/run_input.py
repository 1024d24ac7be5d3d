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

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = ["TURN_GRAPHS", "RunInputError", "check_run_input", "is_resume"]

TURN_GRAPHS = frozenset({"chat", "tasklist-agent", "delivery-chain", "agent"})
"""The graphs (``langgraph.json``) whose input is a user's turn."""

MessageKind = Literal["human", "user", "ai", "assistant", "system", "tool"]
USER_KINDS = frozenset({"human", "user"})
EXAMPLE = '{"messages": [{"role": "user", "content": "Hello"}]}'


class InputMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: MessageKind | None = None
    type: MessageKind | None = None
    content: str | list[dict[str, Any] | str]
    tool_calls: list[dict[str, Any]] | None = None

    @property
    def from_user(self) -> bool:
        return bool({self.role, self.type} & USER_KINDS)

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


class RunInputError(ValueError):
    """A run's input is malformed; the message is a sentence safe to return."""


def is_resume(command: Any) -> bool:
    """A run's ``command`` makes it a resume (``{"resume": …}``, ``{"goto": …}``,
    ``{"update": …}``): the one place that decides, for the HTTP check and the graphs."""
    return isinstance(command, dict) and bool(command)


def check_run_input(value: Any, *, turn: bool = True, command: Any = None) -> None:
    """Raise RunInputError unless the run is a resume (``command``), ``value`` (its
    ``input``) is None, or a well-formed object that, with ``turn``, carries the turn."""
    if value is None or is_resume(command):
        return
    if not isinstance(value, dict):
        raise RunInputError(f"The run input must be a JSON object, e.g. {EXAMPLE}.")
    try:
        run_input = RunInput.model_validate(value)
    except ValidationError as exc:
        if all(error["loc"][:1] == ("requirement",) for error in exc.errors()):
            raise RunInputError("The run input's requirement must be text.") from None
        raise RunInputError(
            "The run input's messages must be a list of chat messages, each with a role "
            f"(human, user, ai, assistant, system or tool) and text content, e.g. {EXAMPLE}."
        ) from None
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
