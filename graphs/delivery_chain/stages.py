"""Running one delivery-chain stage: progress events, failure capture, the subagent call."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, ValidationError

from aimind_memory.graphs.delivery_chain.prompts import REVIEWERS
from aimind_memory.graphs.errors import StageError, StructuredOutputUnsupportedError

log = logging.getLogger("aimind.delivery_chain")

LOAD, PLAN, TASK, SYNTHESIZE = "load", "plan", "task", "synthesize"
STAGES: tuple[str, ...] = (LOAD, PLAN, TASK, *REVIEWERS, SYNTHESIZE)
"""Every stage in order; a progress event's ``index`` is its 1-based position here."""
PROGRESS_EVENT = "workflow-progress"
NOSTREAM_TAG = "nostream"
"""Subagent calls are not streamed as chat tokens: their output is not the answer."""


def progress(runtime: Runtime[Any] | None, stage: str, status: str) -> None:
    """One ``workflow-progress`` event on the custom stream (no-op when nobody listens)."""
    writer = getattr(runtime, "stream_writer", None)
    if writer is None:
        return
    writer(
        {
            "type": PROGRESS_EVENT,
            "stage": stage,
            "status": status,
            "index": STAGES.index(stage) + 1,
            "total": len(STAGES),
        }
    )


async def run_stage(
    stage: str, runtime: Runtime[Any] | None, work: Callable[[], Awaitable[dict[str, Any]]]
) -> dict[str, Any]:
    """Run one stage between started/succeeded events; any exception marks it failed."""
    progress(runtime, stage, "started")
    try:
        update = await work()
    except StageError as exc:
        log.warning("delivery-chain stage %s failed: %s", stage, exc.reason)
        progress(runtime, stage, "failed")
        return {"stage_errors": {stage: {"reason": exc.reason, "detail": exc.detail}}}
    except ValidationError as exc:
        log.warning(
            "delivery-chain stage %s returned invalid output (%d errors)", stage, exc.error_count()
        )
        progress(runtime, stage, "failed")
        return {"stage_errors": {stage: {"reason": "invalid", "detail": None}}}
    except Exception as exc:
        log.warning("delivery-chain stage %s raised (%s)", stage, type(exc).__name__)
        progress(runtime, stage, "failed")
        return {"stage_errors": {stage: {"reason": "error", "detail": None}}}
    progress(runtime, stage, "succeeded")
    return update


async def ask[S: BaseModel](
    model: BaseChatModel, schema: type[S], messages: list[BaseMessage]
) -> S:
    """One subagent call: the model's structured output, validated against ``schema``."""
    try:
        structured = model.with_structured_output(schema)
    except Exception as exc:
        raise StructuredOutputUnsupportedError() from exc
    result = await structured.ainvoke(messages, config={"tags": [NOSTREAM_TAG]})
    return result if isinstance(result, schema) else schema.model_validate(result)
