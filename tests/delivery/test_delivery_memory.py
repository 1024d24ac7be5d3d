"""The delivery chain plans on the session's chat memory, like every planner (contract §7)."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver

from aimind_memory.graphs.chat import build_graph as build_chat
from aimind_memory.graphs.delivery_chain import build_graph
from aimind_memory.graphs.delivery_chain.schemas import REQUIREMENT_HEADER
from aimind_memory.graphs.delivery_chain.stages import PLAN, TASK
from tests.delivery.scripts import new_session, stage_models
from tests.support.fakes import ScriptedChatModel

DECISION = "We decided to host the exporter on Postgres 16 in Frankfurt, never in the US."
AGREED = "Agreed: Postgres 16 in Frankfurt it is."
REQUIREMENT = "Add CSV export to the monthly reports page."


async def chat_turn(session: str, user: str, answer: str) -> None:
    chat = build_chat(model=ScriptedChatModel(script=[AIMessage(answer)]), tools=[])
    await chat.ainvoke(
        {"messages": [{"role": "user", "content": user}]}, context={"session_id": session}
    )


def texts(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.text) for m in messages)


async def test_a_decision_from_an_earlier_chat_turn_reaches_the_planner(memory_url: str) -> None:
    session = new_session()
    await chat_turn(session, DECISION, AGREED)
    models = stage_models()

    out = await build_graph(models=models).ainvoke(
        {"requirement": REQUIREMENT}, context={"session_id": session}
    )

    assert out["status"] == "completed"
    (plan_input,) = models[PLAN].calls
    assert isinstance(plan_input[0], SystemMessage)
    assert DECISION in texts(plan_input) and AGREED in texts(plan_input)
    latest = plan_input[-1]  # the requirement is the latest user message: it wins
    assert isinstance(latest, HumanMessage) and REQUIREMENT in str(latest.text)
    assert DECISION not in str(latest.text)
    assert DECISION not in texts(models[TASK].calls[0])  # later stages work from the plan


async def test_another_session_s_memory_does_not_reach_the_planner(memory_url: str) -> None:
    await chat_turn(new_session(), DECISION, AGREED)
    models = stage_models()

    await build_graph(models=models).ainvoke(
        {"requirement": REQUIREMENT}, context={"session_id": new_session()}
    )

    assert DECISION not in texts(models[PLAN].calls[0])


async def test_offline_plans_quote_this_run_s_requirement_not_an_earlier_one(
    memory_url: str,
) -> None:
    """The earlier offline report (in memory, so in the plan's context) quotes its own."""
    session, config = new_session(), {"configurable": {"thread_id": "delivery-offline-1"}}
    offline = build_graph(checkpointer=InMemorySaver())
    for requirement in ("Ship SSO", "Ship audit logs"):
        out = await offline.ainvoke(
            {"requirement": requirement}, config, context={"session_id": session}
        )
        assert f"{REQUIREMENT_HEADER} {requirement}" in out["report"]
        plan = (await offline.aget_state(config)).values["artifacts"][PLAN]["content"]
        assert plan["summary"].endswith(f"plan for: {requirement}")
