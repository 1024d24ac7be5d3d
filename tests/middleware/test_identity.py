"""Whose memory a served run uses (``adapters.chat_memory.session``): the user objects are
Aegra's and ``langgraph dev``'s own classes where they can be imported outside a server,
else what a custom auth returns (``MinimalUserDict``). ``tests/server/test_own_agent.py``
runs the same through real servers.

- an auth of the user's own (a ``langgraph dev`` custom auth, an Aegra one): each of its
  users gets a memory of their own, derived from the identity with the session secret,
  never one a session token hashes to;
- a server without an auth (``langgraph dev``'s unauthenticated user, Aegra's
  ``anonymous``) and no ``session_id``: the run fails with ``MemoryNotServedError``,
  whose message says what to add to ``langgraph.json``; nothing is written;
- a library run without a ``session_id``: the agent runs without memory and the log
  says so once, with the fix.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from aegra_api.models.auth import User as AegraUser
from langgraph_api.auth.noop import UnauthenticatedUser

from aimind_memory.adapters.chat_memory import session as run_session
from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.adapters.errors import MemoryNotServedError
from aimind_memory.memory.session import hash_token, load_secret
from tests.chat.helpers import raw_storage_bytes
from tests.middleware.conftest import SYSTEM, agent, model, user

TOKEN = "middleware-identity-0001"
ALICE, BOB = "alice-of-own-auth", "bob-of-own-auth"
"""Identities an auth of the user's own gives, shaped like session tokens on purpose."""
FIX = '"auth": {"path": "aimind_memory.server:auth"}'


def served(user_object: Any) -> dict[str, Any]:
    """The run config a server gives a run of this user."""
    return {"configurable": {"langgraph_auth_user": user_object}}


@pytest.fixture(autouse=True)
def unsaid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a fresh process would: nothing said yet."""
    monkeypatch.setattr(run_session, "_said", set())


@pytest.mark.parametrize(
    "of_server",
    [
        pytest.param(
            lambda identity: {"identity": identity, "is_authenticated": True}, id="langgraph-dev"
        ),
        pytest.param(lambda identity: AegraUser(identity=identity), id="aegra"),
    ],
)
async def test_an_own_auths_users_each_have_a_memory(memory_url: str, of_server: Any) -> None:
    chat = model()
    graph = agent(chat)
    await graph.ainvoke(user("Alice: we ship on Friday."), served(of_server(ALICE)))
    await graph.ainvoke(user("Bob: we ship on Monday."), served(of_server(BOB)))
    await graph.ainvoke(user("Alice asks: when do we ship?"), served(of_server(ALICE)))
    prior = [m.text for m in chat.calls[-1]]
    assert prior[0] == SYSTEM and "Alice: we ship on Friday." in prior
    assert not any("Bob" in text for text in prior)

    memory = await get_memory()
    alice = await run_session.user_identity(ALICE)
    assert [m.text for m in (await memory.load(alice)).messages if m.role == "user"] == [
        "Alice: we ship on Friday.",
        "Alice asks: when do we ship?",
    ]
    # a caller who sends alice's identity as a session token does not get her memory
    assert alice != memory.identity(ALICE) == hash_token(ALICE, load_secret())
    assert (await memory.load(ALICE)).is_empty
    # a session token can never spell the label: ':' is outside the token alphabet
    assert (await memory.load(TOKEN)).is_empty


async def test_a_session_hash_identity_is_the_session_itself(memory_url: str) -> None:
    """What this project's auth hands a run: the caller's session hash, used as is."""
    memory = await get_memory()
    await agent(model()).ainvoke(
        user("Through our auth."), served({"identity": memory.identity(TOKEN)})
    )
    assert [m.text for m in (await memory.load(TOKEN)).messages][:1] == ["Through our auth."]


@pytest.mark.parametrize(
    "nobody",
    [
        # what langgraph dev hands a run when it has no auth: the user stored as None
        pytest.param(
            {"configurable": {"langgraph_auth_user": None, "langgraph_auth_user_id": None}},
            id="langgraph-dev-without-auth",
        ),
        pytest.param(served(UnauthenticatedUser()), id="langgraph-dev-unauthenticated-user"),
        pytest.param(
            served(AegraUser(identity="anonymous", is_authenticated=False)), id="aegra-anonymous"
        ),
    ],
)
async def test_a_server_without_auth_is_refused_with_the_fix(
    memory_url: str, nobody: dict[str, Any]
) -> None:
    chat = model()
    with pytest.raises(MemoryNotServedError) as refused:
        await agent(chat).ainvoke(user("Hello"), nobody)
    assert FIX in str(refused.value) and "aimind_memory.server:app" in str(refused.value)
    assert chat.calls == []  # refused before the model is asked anything
    await get_memory()
    assert raw_storage_bytes(memory_url) == b""  # nothing written, "anonymous" included


async def test_a_library_run_without_session_runs_without_memory_and_says_so_once(
    memory_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    chat = model()
    graph = agent(chat)
    with caplog.at_level(logging.INFO, logger="aimind"):
        for i in range(3):
            out = await graph.ainvoke(user(f"Hello {i}"))
            assert out["messages"][-1].text == f"Answer to «Hello {i}»."
    assert [m.text for m in chat.calls[-1]] == [SYSTEM, "Hello 2"]  # no memory
    await get_memory()
    assert raw_storage_bytes(memory_url) == b""
    said = [r for r in caplog.records if r.name == run_session.log.name]
    assert len(said) == 1 and said[0].levelno == logging.WARNING
    assert "session_id" in said[0].getMessage() and FIX in said[0].getMessage()


async def test_a_session_id_in_context_still_works_without_auth(memory_url: str) -> None:
    graph = agent(model())
    nobody = served(UnauthenticatedUser())
    await graph.ainvoke(user("By context."), nobody, context={"session_id": TOKEN})
    memory = await get_memory()
    assert [m.text for m in (await memory.load(TOKEN)).messages][:1] == ["By context."]
