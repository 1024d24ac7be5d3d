"""The LLM compactor: any LangChain chat model with structured output, at temperature 0."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from aimind_memory.memory.compaction.protocol import CompactionRequest
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.models import ChatThreadMessage, CompactionOutput

if TYPE_CHECKING:  # langchain's model package costs a process a second of imports
    from langchain_core.language_models import BaseChatModel

INSTRUCTIONS = (
    "You maintain the short-term memory of one chat conversation.\n"
    'Fold the messages under "fold" into the memory and return JSON with these keys:\n'
    '- "summary": the background facts of the whole conversation so far (at most '
    "{summary_chars} characters), merging the previous summary with the folded messages: "
    "names, dates, times, numbers, places, amounts, facts, choices made and questions still "
    "open. Drop greetings, thanks, compliments, small talk and text a side repeats every "
    "turn. When space runs out, drop the least informative older details first, never the "
    'newest facts. It may keep how a decision changed ("moved from March 3 to April 10").\n'
    '- "pinned_decisions": the complete list of durable decisions, constraints, rules and '
    "commitments stated or agreed by either side, the user or the assistant (at most "
    "{pinned_max} items, each at most {pin_chars} characters, each one self-contained "
    "sentence with its concrete details), as they hold now. Not suggestions, hedges, open "
    'questions, pleasantries or sympathy that merely use such words ("you must be tired", '
    '"I always enjoy our chats", "别担心"), nor encouragement or advice to the other side, '
    "promises with no concrete object, compliments, feelings, opinions or platitudes, "
    'whoever says them ("I won\'t quit on my dreams", "let\'s catch up soon", "you '
    'should eat slower", "你得先练练"): a decision has a concrete object (a thing, place, '
    "person, date, time, number or a specific choice); a rule the user sets for the "
    'assistant ("answer in English from now on") is one. Narrated events and personal '
    "facts go to the summary, not the pins. Keep every previous pin unless a newer decision "
    "replaces it; add new ones.\n"
    '- "replaced_decisions": the previous pins, copied verbatim from '
    '"previous_pinned_decisions", that a newer decision replaces: a new value for the same '
    'thing ("make it 6 people", "we moved the launch to April 10"), a correction '
    '("actually", "instead", "scratch that", "不对", "改成", "换成", "还是…吧") or a reversal '
    '("we\'re not using AWS after all", "取消", "不再…"). Pin the new decision as it holds '
    "now and name the old pin here; [] when nothing changed. A previous pin you leave out "
    "without naming it here is kept. Never name a pin about something else: two decisions "
    "of the same kind (two dates, two tools, an outbound and a return trip) both stay.\n"
    "Write the summary and new pins in the language the conversation is in.\n"
    'The messages under "kept (do not repeat)" stay verbatim in memory: do not summarise them.\n'
    "Copy every name, number, date, time and amount exactly as the messages or the previous "
    "memory say it; never add one they do not say (no year, currency, product or place "
    "nobody named), and leave out what you are unsure of.\n"
    "Write plain sentences only: no markup, tags, JSON, code, tool calls or error messages, "
    "and never these instructions or the input handed back; no tool data, prompts or "
    "internal state."
)
PAYLOAD_KEYS = ("previous_summary", "previous_pinned_decisions", "fold", "kept (do not repeat)")
"""The keys of the model's input (``compaction_messages``): an output that hands them back
is the request echoed (``memory.compaction.gate``)."""


def _lines(messages: list[ChatThreadMessage]) -> list[dict[str, str]]:
    return [{"role": m.role, "text": m.text} for m in messages]


def compaction_messages(request: CompactionRequest, limits: MemoryLimits) -> list[BaseMessage]:
    """The model's whole input: old summary, old pins, folded and kept messages."""
    values = (
        request.summary,
        request.pinned_decisions,
        _lines(request.folded),
        _lines(request.kept),
    )
    payload = dict(zip(PAYLOAD_KEYS, values, strict=True))
    return [
        SystemMessage(
            INSTRUCTIONS.format(
                summary_chars=limits.summary_chars,
                pinned_max=limits.pinned_max,
                pin_chars=limits.pin_chars,
            )
        ),
        HumanMessage(json.dumps(payload, ensure_ascii=False, indent=1)),
    ]


class LLMCompactor:
    """Structured output validated by ``CompactionOutput`` (extra keys are rejected)."""

    name = "llm"

    def __init__(self, model: BaseChatModel, limits: MemoryLimits | None = None) -> None:
        if "temperature" in type(model).model_fields:
            model = model.model_copy(update={"temperature": 0})
        self.model = model
        self.limits = limits or MemoryLimits()
        self._structured = model.with_structured_output(CompactionOutput)

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        result = await self._structured.ainvoke(compaction_messages(request, self.limits))
        return CompactionOutput.model_validate(
            result.model_dump() if isinstance(result, CompactionOutput) else result
        )
