"""The shape every graph run's input must have, checked before a run is queued.

LangGraph reports a graph that choked on its input as a finished run with an
``__error__`` body; a client that sent the wrong types deserves a 422 with a
sentence instead. This checks only what all three graphs share: an object,
whose ``messages`` (if any) are chat messages with text content.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

MessageKind = Literal["human", "user", "ai", "assistant", "system", "tool"]


class InputMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: MessageKind | None = None
    type: MessageKind | None = None
    content: str | list[dict[str, Any] | str]
    tool_calls: list[dict[str, Any]] | None = None


class RunInput(BaseModel):
    model_config = ConfigDict(extra="allow")

    messages: list[InputMessage | str] | InputMessage | str | None = None


class RunInputError(ValueError):
    """A run's input is malformed; the message is a sentence safe to return."""


def check_run_input(value: Any) -> None:
    """Raise RunInputError unless ``value`` (a run's ``input``) is None or a valid object."""
    if value is None:
        return
    if not isinstance(value, dict):
        raise RunInputError('The run input must be a JSON object, e.g. {"messages": [...]}.')
    try:
        RunInput.model_validate(value)
    except ValidationError:
        raise RunInputError(
            "The run input's messages must be a list of chat messages, each with a role "
            "(human, user, ai, assistant, system or tool) and text content, e.g. "
            '{"messages": [{"role": "user", "content": "Hello"}]}.'
        ) from None
