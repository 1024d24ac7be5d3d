"""Scripted fake chat models for graph logic: tool calling and structured output.

``langchain_core``'s fake models lack ``bind_tools``; this one supports it and
``with_structured_output``, replays a script, and records what it was sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, ConfigDict, Field

Step = AIMessage | str | dict | BaseModel | Exception | Callable[[list[BaseMessage]], Any]


class ScriptedChatModel(BaseChatModel):
    """Replays ``script`` one step per call; an Exception step raises, a callable computes.

    ``calls`` holds the exact message lists the model received.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[Any] = Field(default_factory=list)
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    offered: list[list[str]] = Field(default_factory=list)
    """The names of the tools each call was offered (bound with ``bind_tools``)."""
    bound_tools: list[Any] = Field(default_factory=list)
    loop_last: bool = False

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    def _next(self, messages: list[BaseMessage]) -> Any:
        self.calls.append(list(messages))
        if not self.script:
            raise RuntimeError("scripted model ran out of steps")
        step = self.script[0] if (self.loop_last and len(self.script) == 1) else self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        if callable(step) and not isinstance(step, BaseModel | AIMessage):
            step = step(list(messages))
        return step

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.offered.append(list(kwargs.get("tools") or []))
        step = self._next(messages)
        message = step if isinstance(step, AIMessage) else AIMessage(content=str(step))
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages, stop, None, **kwargs)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable:
        self.bound_tools = list(tools)
        return self.bind(tools=[getattr(t, "name", str(t)) for t in tools])

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Runnable:
        def run(value: Any) -> Any:
            messages = value if isinstance(value, list) else [value]
            step = self._next(messages)
            if isinstance(schema, type) and issubclass(schema, BaseModel):
                return step if isinstance(step, schema) else schema.model_validate(step)
            return step

        return RunnableLambda(run)


def answering(rule: Callable[[list[BaseMessage]], Any]) -> ScriptedChatModel:
    """A model that answers every call by ``rule(messages)`` (and records each request)."""
    return ScriptedChatModel(script=[rule], loop_last=True)


def calling(name: str, args: dict[str, Any], call_id: str = "call-1") -> AIMessage:
    """The model's message asking for one tool call."""
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])
