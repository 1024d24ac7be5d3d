"""The delivery chain's stage nodes and the turn it hands to chat memory.

Progress reaches every client through ``values`` too, not only the custom
``workflow-progress`` stream our page reads: the sequential stages keep one AI
message (id ``progress_message_id``) saying which stages are done, and the
report — or the failure message — takes its place (the progress message is
removed in the same update). A stock client that streams ``values``
(agent-chat-ui, Studio, the SDKs) thus shows one message that turns into the
report; the report keeps an id of its own, so the ``messages`` stream sends it
too. (LangGraph's generative-UI ``ui`` messages would need a JavaScript component
bundle served with the graphs; plain text needs nothing.)
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime
from pydantic import BaseModel

from aimind_memory.adapters.chat_memory.final_turn import (
    FinalTurn,
    latest_human,
    load_memory_state,
    memory_message_id,
    recall_for,
    refuse_memory_thread,
)
from aimind_memory.adapters.chat_memory.runtime import SessionContext
from aimind_memory.adapters.models import chat_model
from aimind_memory.adapters.tools.resources import (
    REFERENCE_PREFIX,
    find_references,
    resolve_references,
)
from aimind_memory.graphs.delivery_chain.prompts import (
    REVIEWERS,
    load_rubrics,
    manager_messages,
    plan_messages,
    reviewer_messages,
    task_messages,
)
from aimind_memory.graphs.delivery_chain.report import (
    failure_message,
    overall_status,
    render_report,
)
from aimind_memory.graphs.delivery_chain.schemas import (
    DeliveryPlan,
    LoadedRequirement,
    ReportDraft,
    ReviewVerdict,
    RuntimeArtifact,
    TaskBreakdown,
)
from aimind_memory.graphs.delivery_chain.stages import (
    LOAD,
    PLAN,
    STAGES,
    SYNTHESIZE,
    TASK,
    ask,
    run_stage,
)
from aimind_memory.graphs.delivery_chain.state import DeliveryState, fresh
from aimind_memory.graphs.errors import RubricMissingError, StageError

GRAPH_NAME = "delivery-chain"
FAIL_NODE = "fail"
REPORT_ID_SUFFIX = ":delivery-report"
"""The report's message id is the requirement's plus this, so a page restoring memory
knows the turn was a ``/delivery`` (as the tasklist agent's ``:tasklist-summary``)."""


async def _resolve(text: str) -> str:
    """Expand ``@docs/…`` references through the resource reader; any unreadable one fails."""
    resolved, names = await resolve_references(text)
    missing = [name for name in find_references(text) if name not in names]
    if missing:
        raise StageError("resource", f"{REFERENCE_PREFIX}{missing[0]}")
    return resolved


def progress_message(message_id: str, done: tuple[str, ...], running: tuple[str, ...]) -> AIMessage:
    """The AI message that shows how far the chain is; the report later takes its id."""
    names = ", ".join(f"{stage} ✓" for stage in done)
    text = (
        f"Delivery chain running — {len(done)} of {len(STAGES)} stages done ({names}); "
        f"now: {', '.join(running)}. The report will replace this message."
    )
    return AIMessage(content=text, id=message_id)


def _without_progress(state: DeliveryState) -> list[Any]:
    """Removes the progress message, if it was shown (a failed ``load`` never shows it)."""
    progress_id = state.get("progress_message_id")
    shown = any(m.id == progress_id for m in state.get("messages") or [])
    return [RemoveMessage(id=progress_id)] if progress_id and shown else []


def _advanced(
    state: DeliveryState, result: dict[str, Any], done: tuple[str, ...], running: tuple[str, ...]
) -> dict[str, Any]:
    """``result`` plus the progress message, unless the stage failed (``fail`` says so)."""
    if result.get("stage_errors"):
        return result
    shown = progress_message(state["progress_message_id"], done, running)
    return {**result, "messages": [*result.get("messages", []), shown]}


def _artifact[S: BaseModel](state: DeliveryState, stage: str, schema: type[S]) -> S:
    return schema.model_validate(state["artifacts"][stage]["content"])


class DeliveryChain:
    """The stage nodes, bound to their models (per stage, a shared one, or the provider's)."""

    def __init__(
        self, model: BaseChatModel | None, models: Mapping[str, BaseChatModel] | None
    ) -> None:
        self._model = model
        self._models = dict(models or {})

    def model_for(self, stage: str) -> BaseChatModel:
        model = self._models.get(stage) or self._model
        return model if model is not None else chat_model()

    async def load(
        self, state: DeliveryState, config: RunnableConfig, runtime: Runtime[SessionContext]
    ) -> dict[str, Any]:
        """Take the requirement (input field or latest human message) and the rubrics."""
        refuse_memory_thread(config)

        async def work() -> dict[str, Any]:
            update: dict[str, Any] = {}
            given = state.get("requirement")
            if isinstance(given, str) and given.strip():
                human: HumanMessage | None = HumanMessage(
                    content=given.strip(), id=str(uuid.uuid4())
                )
                update["messages"] = [human]
            else:
                human = latest_human(state.get("messages"))
            text = str(human.text).strip() if human is not None else ""
            if human is None or not text:
                raise StageError("empty")
            resolved = await _resolve(text)
            try:
                rubrics = await load_rubrics()
            except RubricMissingError as exc:
                raise StageError("rubric") from exc
            loaded = LoadedRequirement(
                text=resolved, from_reference=resolved != text, rubrics=[*rubrics]
            )
            return {
                **update,
                "user_text": text,
                "user_message_id": memory_message_id(human.id),
                "requirement_text": resolved,
                "rubrics": rubrics,
                "artifacts": {LOAD: RuntimeArtifact.of(LOAD, loaded)},
            }

        result = await run_stage(LOAD, runtime, work)
        progress_id = str(uuid.uuid4())
        return {
            **_advanced({"progress_message_id": progress_id}, result, (LOAD,), (PLAN,)),
            "status": "running",
            "report": "",
            "progress_message_id": progress_id,
            "requirement": None,
            "artifacts": fresh(result.get("artifacts")),
            "stage_errors": fresh(result.get("stage_errors")),
        }

    async def plan(
        self, state: DeliveryState, config: RunnableConfig, runtime: Runtime[SessionContext]
    ) -> dict[str, Any]:
        """The plan subagent, on the session's chat memory like every planner (contract §7)."""

        async def work() -> dict[str, Any]:
            memory = await load_memory_state(config, runtime)
            requirement = state["requirement_text"]
            recalled = await recall_for(requirement, memory, config, runtime)
            messages = plan_messages(requirement, memory, recalled)
            plan = await ask(self.model_for(PLAN), DeliveryPlan, messages)
            return {"artifacts": {PLAN: RuntimeArtifact.of(PLAN, plan)}}

        return _advanced(state, await run_stage(PLAN, runtime, work), (LOAD, PLAN), (TASK,))

    async def task(self, state: DeliveryState, runtime: Runtime[SessionContext]) -> dict[str, Any]:
        async def work() -> dict[str, Any]:
            plan = _artifact(state, PLAN, DeliveryPlan)
            messages = task_messages(state["requirement_text"], plan)
            tasks = await ask(self.model_for(TASK), TaskBreakdown, messages)
            return {"artifacts": {TASK: RuntimeArtifact.of(TASK, tasks)}}

        result = await run_stage(TASK, runtime, work)
        return _advanced(state, result, (LOAD, PLAN, TASK), tuple(f"{r} review" for r in REVIEWERS))

    def reviewer(self, name: str) -> Callable[..., Awaitable[dict[str, Any]]]:
        async def review(state: DeliveryState, runtime: Runtime[SessionContext]) -> dict[str, Any]:
            async def work() -> dict[str, Any]:
                messages = reviewer_messages(
                    name,
                    state["rubrics"][name],
                    state["requirement_text"],
                    _artifact(state, PLAN, DeliveryPlan),
                    _artifact(state, TASK, TaskBreakdown),
                )
                verdict = await ask(self.model_for(name), ReviewVerdict, messages)
                return {"artifacts": {name: RuntimeArtifact.of(name, verdict)}}

            return await run_stage(name, runtime, work)

        review.__name__ = name
        return review

    async def synthesize(
        self, state: DeliveryState, runtime: Runtime[SessionContext]
    ) -> dict[str, Any]:
        """The manager: status from the verdicts, markdown report, shown as an AI message."""
        if state.get("stage_errors"):
            return {}

        async def work() -> dict[str, Any]:
            verdicts = {name: _artifact(state, name, ReviewVerdict) for name in REVIEWERS}
            labels = {name: v.verdict for name, v in verdicts.items()}
            status = overall_status(labels)
            messages = manager_messages(
                status,
                state["requirement_text"],
                _artifact(state, PLAN, DeliveryPlan),
                _artifact(state, TASK, TaskBreakdown),
                verdicts,
            )
            draft = await ask(self.model_for(SYNTHESIZE), ReportDraft, messages)
            report = render_report(status, labels, draft.markdown)
            asked = memory_message_id(state.get("user_message_id"), reserve=len(REPORT_ID_SUFFIX))
            message_id = f"{asked}{REPORT_ID_SUFFIX}" if asked else str(uuid.uuid4())
            return {
                "status": status,
                "report": report,
                "report_message_id": message_id,
                "messages": [*_without_progress(state), AIMessage(content=report, id=message_id)],
                "artifacts": {SYNTHESIZE: RuntimeArtifact.of(SYNTHESIZE, draft)},
            }

        return await run_stage(SYNTHESIZE, runtime, work)

    async def fail(self, state: DeliveryState) -> dict[str, Any]:
        """Tell the user which stage failed; the final-turn adapter then writes nothing."""
        errors = state.get("stage_errors") or {}
        stage = next((s for s in STAGES if s in errors), SYNTHESIZE)
        error = errors.get(stage, {})
        text = failure_message(stage, error.get("reason") or "error", error.get("detail"))
        message = AIMessage(content=text, id=str(uuid.uuid4()))
        return {"status": "failed", "report": "", "messages": [*_without_progress(state), message]}


def extract_turn(state: DeliveryState) -> FinalTurn | None:
    """Requirement + report; memory keeps it only on completed/blocked and caps it (§4, §6)."""
    return FinalTurn(
        user_text=state.get("user_text"),
        assistant_text=state.get("report"),
        status=state.get("status") or "unknown",
        source=GRAPH_NAME,
        user_message_id=state.get("user_message_id"),
        assistant_message_id=memory_message_id(state.get("report_message_id")),
    )
