"""The offline model (contract §11): deterministic, clearly labelled, no network.

It answers by stating what context it received (summary length, pins, recent
turns, the latest question), so memory behaviour is visible without a provider.
It supports ``bind_tools`` (it calls the calculator once for an arithmetic
question) and ``with_structured_output`` (a schema's ``offline_example`` when it
has one, else a minimal valid instance labelled ``[offline]``), and it streams.
"""

from __future__ import annotations

import ast
import re
import types
import typing
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import UTC, date, datetime
from enum import Enum
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel

from aimind_memory.adapters.tools.resources import REFERENCES_HEADER, RESOURCE_BLOCK_OPEN
from aimind_memory.memory.views.context import PINS_HEADER, SUMMARY_HEADER

OFFLINE_LABEL = "[offline model]"
OFFLINE_PLACEHOLDER = "[offline]"
OFFLINE_QUOTE_CHARS = 200
"""How much of a tool result the offline reply quotes."""
OFFLINE_LATEST_CHARS = 2_000
"""How much of the latest message the offline reply quotes: a 10 MB question, a short answer."""
CALCULATOR_TOOL = "calculator"
_ARITHMETIC_RE = re.compile(r"[\d(][\d\s.+\-*/%^()]*[\d)]")
_DATE_RE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")
_OPERATOR_RE = re.compile(r"[\d)]\s*(?:[-+*/%^]|\*\*)\s*[\d(]")


def _text(message: BaseMessage) -> str:
    return str(message.text)


def _clip_quote(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


def describe_context(messages: Sequence[BaseMessage]) -> str:
    """What the model was given, in words: summary, pins, recent turns, latest question."""
    summary = ""
    pins: list[str] = []
    dialogue: list[BaseMessage] = []
    tool_results: list[ToolMessage] = []
    for message in messages:
        text = _text(message)
        if isinstance(message, SystemMessage):
            if text.startswith(SUMMARY_HEADER):
                summary = text[len(SUMMARY_HEADER) :].strip()
            elif text.startswith(PINS_HEADER):
                pins = [
                    line[2:].strip()
                    for line in text[len(PINS_HEADER) :].splitlines()
                    if line.startswith("- ")
                ]
        elif isinstance(message, ToolMessage):
            tool_results.append(message)
        elif isinstance(message, HumanMessage | AIMessage):
            dialogue.append(message)
    humans = [i for i, m in enumerate(dialogue) if isinstance(m, HumanMessage)]
    latest = _text(dialogue[humans[-1]]) if humans else ""
    earlier = dialogue[: humans[-1]] if humans else dialogue
    recent_turns = sum(1 for m in earlier if isinstance(m, HumanMessage))
    attached = 0
    if REFERENCES_HEADER in latest:  # quote the user's words, never resource contents
        latest, _, blocks = latest.partition(REFERENCES_HEADER)
        attached = blocks.count(RESOURCE_BLOCK_OPEN)
    parts = [
        f"{OFFLINE_LABEL} No OPENAI_API_KEY is set, so this is a deterministic offline reply.",
        f"Context received: a summary of {len(summary)} characters;",
        f"{len(pins)} pinned decision{'s' if len(pins) != 1 else ''}"
        + (": " + "; ".join(f'"{p}"' for p in pins) if pins else "")
        + ";",
        f"{recent_turns} recent turn{'s' if recent_turns != 1 else ''}.",
        f'Your latest message: "{_clip_quote(latest, OFFLINE_LATEST_CHARS)}".',
    ]
    if attached:
        parts.append(f"({attached} referenced resource{'s' if attached != 1 else ''} attached.)")
    for result in tool_results:
        quoted = _text(result)[:OFFLINE_QUOTE_CHARS]
        parts.append(f"Tool {result.name or 'result'} returned: {quoted}")
    return " ".join(parts)


def _latest_turn(messages: Sequence[BaseMessage]) -> tuple[str, bool]:
    """The latest human text and whether a tool already ran after it."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            after = messages[index + 1 :]
            return _text(messages[index]), any(isinstance(m, ToolMessage) for m in after)
    return "", False


def _arithmetic(text: str) -> str | None:
    """The first arithmetic expression in ``text`` that parses, or None."""
    for match in _ARITHMETIC_RE.finditer(text):
        candidate = match.group(0).strip().replace("^", "**")
        if not _OPERATOR_RE.search(candidate) or _DATE_RE.fullmatch(candidate):
            continue
        try:
            ast.parse(candidate, mode="eval")
        except SyntaxError:
            continue
        return candidate
    return None


def _tool_names(tools: Any) -> set[str]:
    names = set()
    for tool in tools or []:
        function = tool.get("function", {}) if isinstance(tool, dict) else {}
        if name := function.get("name"):
            names.add(name)
    return names


def _split_tokens(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


def _prompt_text(value: Any) -> str:
    if isinstance(value, PromptValue):
        value = value.to_messages()
    if isinstance(value, str):
        return value
    if isinstance(value, BaseMessage):
        return _text(value)
    if isinstance(value, Sequence):
        return "\n".join(_prompt_text(v) for v in value)
    return str(value)


def _placeholder(annotation: Any) -> Any:
    """A minimal valid value for one field annotation."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _placeholder(args[0])
    if origin is Literal:
        return args[0]
    if origin in (typing.Union, types.UnionType):
        if type(None) in args:
            return None
        return _placeholder(args[0])
    if origin in (list, tuple, set, frozenset, Sequence) or annotation in (list, tuple, set):
        return []
    if origin is dict or annotation is dict:
        return {}
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return offline_instance(annotation, "")
        if issubclass(annotation, Enum):
            return next(iter(annotation))
        if issubclass(annotation, bool):
            return False
        if issubclass(annotation, int):
            return 0
        if issubclass(annotation, float):
            return 0.0
        if issubclass(annotation, datetime):
            return datetime(1970, 1, 1, tzinfo=UTC)
        if issubclass(annotation, date):
            return date(1970, 1, 1)
    return OFFLINE_PLACEHOLDER


def offline_instance(schema: type[BaseModel], prompt_text: str) -> BaseModel:
    """``schema.offline_example(prompt_text)`` if defined, else a minimal labelled instance."""
    example = getattr(schema, "offline_example", None)
    if callable(example):
        made: BaseModel = example(prompt_text)
        return made
    values = {
        name: _placeholder(field.annotation)
        for name, field in schema.model_fields.items()
        if field.is_required()
    }
    try:
        return schema.model_validate(values)
    except Exception:
        return schema.model_construct(**values)


def _json_schema_instance(schema: dict[str, Any]) -> dict[str, Any]:
    by_type = {
        "string": OFFLINE_PLACEHOLDER,
        "integer": 0,
        "number": 0.0,
        "boolean": False,
        "array": [],
        "object": {},
    }
    properties = schema.get("properties", {})
    return {
        name: by_type.get(properties.get(name, {}).get("type"), OFFLINE_PLACEHOLDER)
        for name in schema.get("required", list(properties))
    }


class OfflineChatModel(BaseChatModel):
    """Deterministic stand-in when no provider is configured; never reaches a network.

    It describes the context it received. With tools bound and an arithmetic
    question, it calls the calculator once and then answers with the result.
    """

    @property
    def _llm_type(self) -> str:
        return "aimind-offline"

    def _reply(self, messages: list[BaseMessage], tools: Any) -> AIMessage:
        latest, tool_ran = _latest_turn(messages)
        if CALCULATOR_TOOL in _tool_names(tools) and not tool_ran:
            expression = _arithmetic(latest)
            if expression is not None:
                call_id = "call_" + uuid.uuid5(uuid.NAMESPACE_URL, expression).hex[:16]
                return AIMessage(
                    content="",
                    tool_calls=[
                        {
                            "name": CALCULATOR_TOOL,
                            "args": {"expression": expression},
                            "id": call_id,
                            "type": "tool_call",
                        }
                    ],
                )
        return AIMessage(content=describe_context(messages))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self._reply(messages, kwargs.get("tools"))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _chunks(self, messages: list[BaseMessage], tools: Any) -> Iterator[ChatGenerationChunk]:
        message = self._reply(messages, tools)
        if message.tool_calls:
            call = message.tool_calls[0]
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {
                            "name": call["name"],
                            "args": _json(call["args"]),
                            "id": call["id"],
                            "index": 0,
                            "type": "tool_call_chunk",
                        }
                    ],
                )
            )
            return
        for token in _split_tokens(_text(message)):
            yield ChatGenerationChunk(message=AIMessageChunk(content=token))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        yield from self._chunks(messages, kwargs.get("tools"))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages, kwargs.get("tools")):
            yield chunk

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """Pydantic schemas get ``offline_example(prompt_text)`` or a minimal instance."""

        def run(value: Any) -> Any:
            text = _prompt_text(value)
            if isinstance(schema, type) and issubclass(schema, BaseModel):
                parsed: Any = offline_instance(schema, text)
            elif isinstance(schema, dict):
                parsed = _json_schema_instance(schema.get("schema", schema))
            else:
                parsed = {}
            if include_raw:
                raw = AIMessage(content=_json(parsed))
                return {"raw": raw, "parsed": parsed, "parsing_error": None}
            return parsed

        return RunnableLambda(run, name="OfflineStructuredOutput")


def _json(value: Any) -> str:
    import json

    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, ensure_ascii=False, default=str)
