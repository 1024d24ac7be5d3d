"""Stock LangGraph clients, unchanged, against a real ``langgraph dev`` (contract §8, §8a).

The Python SDK with ``api_key=``, raw HTTP with ``Authorization: Bearer``, the
cookie beside malformed cookies, agent-chat-ui's exact requests (``agent_chat_ui``),
the official JS SDK from npm (``tests/node``), and LangGraph Studio's own user.
Runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from harness.langgraph_server import LangGraphServer, langgraph_server
from tests.chat.helpers import raw_storage_bytes
from tests.conftest import fresh_database
from tests.server import forks
from tests.server.agent_chat_ui import MARK_AS_RESOLVED, AgentChatUI, decide, edit, text_of
from tests.support.deployment import SESSION_COOKIE, SESSION_HEADER, Deployment

pytestmark = pytest.mark.e2e

TIMEOUT = httpx.Timeout(120.0)
NODE_TESTS = Path(__file__).resolve().parents[1] / "node"
NODE_TIMEOUT_S = 600
STUDIO = {"x-auth-scheme": "langsmith"}
"""How LangGraph Studio calls ``langgraph dev``: the server authenticates it itself."""
JUNK_COOKIES = 'theme={"a":1}; x=a b; '
"""Cookies that ``http.cookies.SimpleCookie`` chokes on (it then drops every cookie)."""
CREDENTIAL_HEADERS = ("x-aimind-session", "authorization", "x-api-key", "cookie")


def api_key_client(url: str, token: str | None, **headers: str) -> LangGraphClient:
    """The Python SDK as its users call it: the session token is the API key."""
    return get_client(url=url, api_key=token, headers=headers or None, timeout=TIMEOUT)


def channels(token: str) -> dict[str, dict[str, str]]:
    """Every way a client may present ``token``."""
    return {
        "x-aimind-session": {SESSION_HEADER: token},
        "bearer": {"Authorization": f"Bearer {token}"},
        "x-api-key": {"X-Api-Key": token},
        # the chat page's: its own origin, as the browser marks it (no cross-site writes)
        "cookie": {
            "Cookie": f"{JUNK_COOKIES}{SESSION_COOKIE}={token}",
            "Sec-Fetch-Site": "same-origin",
        },
    }


def human(text: str, message_id: str | None = None) -> dict[str, Any]:
    message = {"role": "user", "content": text}
    if message_id:
        message["id"] = message_id
    return {"messages": [message]}


async def request(url: str, method: str, path: str, headers: dict[str, str], body: Any = None):
    async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as client:
        return await client.request(method, path, headers=headers, json=body)


async def chat_turn(url: str, token: str, text: str) -> str:
    client = api_key_client(url, token)
    thread = await client.threads.create()
    await client.runs.wait(thread["thread_id"], "chat", input=human(text))
    return thread["thread_id"]


# --- auth channels --------------------------------------------------------------------------


async def test_every_channel_reaches_the_same_session(deployment: Deployment) -> None:
    token = deployment.token()
    thread_id = await chat_turn(deployment.url, token, "Reached through the API key.")
    for name, headers in channels(token).items():
        found = await request(deployment.url, "POST", "/threads/search", headers, {})
        assert found.status_code == 200, (name, found.text)
        assert [t["thread_id"] for t in found.json()] == [thread_id], name
        dto = await request(deployment.url, "GET", "/api/chat/thread", headers)
        assert dto.status_code == 200, (name, dto.text)
        assert dto.json()["messages"][0]["text"] == "Reached through the API key."
        assert "set-cookie" not in dto.headers, f"{name}: the page would mint a new session"


MALFORMED = {
    "x-aimind-session": ({SESSION_HEADER: "short"}, "X-AIMind-Session"),
    "basic-auth": ({"Authorization": "Basic dXNlcjpwYXNz"}, "Authorization"),
    "bearer-without-token": ({"Authorization": "Bearer"}, "Authorization"),
    "bearer-bad-token": ({"Authorization": "Bearer not*a*token!"}, "Authorization"),
    "x-api-key": ({"X-Api-Key": "lsv2 has spaces"}, "X-Api-Key"),
    "empty-x-api-key": ({"X-Api-Key": ""}, "X-Api-Key"),
}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
async def test_a_malformed_header_is_401_and_never_falls_through(
    deployment: Deployment, kind: str
) -> None:
    """A valid token in a later source (the cookie) is not used when an earlier header is bad."""
    token = deployment.token()
    await chat_turn(deployment.url, token, "Only the cookie is valid.")
    bad, named = MALFORMED[kind]
    headers = {**bad, "Cookie": f"{SESSION_COOKIE}={token}"}
    if "x-api-key" not in kind:
        headers["X-Api-Key"] = token  # a valid later header does not rescue it either
    for method, path in (("POST", "/threads/search"), ("GET", "/api/chat/thread")):
        response = await request(deployment.url, method, path, headers, {})
        assert response.status_code == 401, (kind, path, response.text)
        detail = response.json().get("detail") or response.json().get("error")
        assert named in detail, detail
        assert "set-cookie" not in response.headers
        assert token not in response.text


async def test_a_second_token_sees_nothing_of_the_first_through_any_channel(
    deployment: Deployment,
) -> None:
    first, second = deployment.token(), deployment.token()
    thread_id = await chat_turn(deployment.url, first, "The first session's secret plan.")
    for name, headers in channels(second).items():
        found = await request(deployment.url, "POST", "/threads/search", headers, {})
        assert found.status_code == 200 and found.json() == [], name
        state = await request(deployment.url, "GET", f"/threads/{thread_id}/state", headers)
        assert state.status_code == 404, name
        dto = await request(deployment.url, "GET", "/api/chat/thread", headers)
        assert dto.status_code == 200 and "secret plan" not in dto.text, name
        run = await request(
            deployment.url,
            "POST",
            "/runs/wait",
            headers,
            {"assistant_id": "chat", "input": human(f"What do you know? ({name})")},
        )
        assert "secret plan" not in run.text, name
        assert run.json()["memory_context"]["recentTurns"] == list(channels(second)).index(name)


async def test_credentials_never_reach_run_config_or_thread_metadata(
    deployment: Deployment,
) -> None:
    """``langgraph.json`` keeps every credential header out of run config (and logs)."""
    token = deployment.token()
    headers = {
        SESSION_HEADER: token,
        "Authorization": f"Bearer {token}",
        "X-Api-Key": token,
        "Cookie": f"{SESSION_COOKIE}={token}",
    }
    thread = (await request(deployment.url, "POST", "/threads", headers, {})).json()
    base = f"/threads/{thread['thread_id']}"
    body = {"assistant_id": "chat", "input": human("Where do my headers go?")}
    ran = await request(deployment.url, "POST", f"{base}/runs/wait", headers, body)
    assert ran.status_code == 200, ran.text
    runs = (await request(deployment.url, "GET", f"{base}/runs", headers)).json()
    state = (await request(deployment.url, "GET", f"{base}/state", headers)).json()
    configurable = runs[0]["kwargs"]["config"]["configurable"]
    assert configurable["langgraph_auth_user_id"]  # the identity (a hash) is there
    for seen in (json.dumps(runs), json.dumps(state)):
        assert token not in seen
        assert not any(f'"{name}"' in seen.lower() for name in CREDENTIAL_HEADERS)
    assert token not in deployment.server.log_tail(200_000)


# --- the chat thread shows the conversation -------------------------------------------------


async def test_chat_thread_ids_are_stable_across_stream_values_and_state(
    deployment: Deployment,
) -> None:
    token = deployment.token()
    client = api_key_client(deployment.url, token)
    thread_id = (await client.threads.create())["thread_id"]
    answers = []
    for n in (1, 2):
        out = await client.runs.wait(thread_id, "chat", input=human(f"turn {n}", f"py-q{n}"))
        answers.append(out["messages"][-1]["id"])
    streamed: dict[str, set[str]] = {}
    last_values: dict[str, Any] = {}
    async for part in client.runs.stream(
        thread_id, "chat", input=human("turn 3", "py-q3"), stream_mode=["messages-tuple", "values"]
    ):
        if part.event == "messages":
            message, meta = part.data
            streamed.setdefault(message["id"], set()).add(meta["langgraph_node"])
        elif part.event == "values":
            assert part.data["messages"], "a values event never empties the client's list"
            last_values = part.data
    state = (await client.threads.get_state(thread_id))["values"]
    answer_id = state["messages"][-1]["id"]
    assert answer_id in streamed and "agent" in streamed[answer_id]
    assert last_values["messages"] == state["messages"]
    ids = [m["id"] for m in state["messages"]]
    assert ids == ["py-q1", answers[0], "py-q2", answers[1], "py-q3", answer_id]
    # a reload (a new client reading the thread) shows the same conversation
    reread = await api_key_client(deployment.url, token).threads.get_state(thread_id)
    assert [m["id"] for m in reread["values"]["messages"]] == ids


# --- agent-chat-ui, its exact requests replayed (tests/server/agent_chat_ui.py) -------------

GOAL = "Plan the launch of our new recipe app next month"
VAGUE_GOAL = "launch it"
"""The offline model asks a clarifying question for a goal of fewer than 3 words."""
RECENT_TURNS_RE = re.compile(r"(\d+) recent turns?")


async def test_agent_chat_ui_shows_a_threads_whole_conversation(deployment: Deployment) -> None:
    """8 turns: 16 messages with the ids the UI gave and stable answer ids; a new thread
    shows only its own 2, while its model still gets the session's memory (contract §7)."""
    ui = AgentChatUI(deployment.url, "chat", deployment.token())
    thread = await ui.new_thread()
    for n in range(1, 9):
        await ui.send(thread, f"turn {n}: the venue holds {n * 10} people", f"acui-q{n}")
    state = await ui.state(thread)
    messages = state["values"]["messages"]
    assert len(messages) == 16
    assert [m["id"] for m in messages[::2]] == [f"acui-q{n}" for n in range(1, 9)]
    assert [m["type"] for m in messages] == ["human", "ai"] * 8
    assert [text_of(m) for m in messages[::2]] == [
        f"turn {n}: the venue holds {n * 10} people" for n in range(1, 9)
    ]
    reread = (await ui.history(thread))[0]["values"]["messages"]  # a reload reads the same
    assert [(m["id"], m["content"]) for m in reread] == [(m["id"], m["content"]) for m in messages]

    fresh = await ui.new_thread()
    await ui.send(fresh, "What do you remember?")
    shown = (await ui.state(fresh))["values"]["messages"]
    assert [m["type"] for m in shown] == ["human", "ai"]
    found = RECENT_TURNS_RE.search(text_of(shown[1]))
    assert found and int(found[1]) > 0, shown[1]  # the session's memory, not an empty one
    assert await ui.thread_list() == [  # the thread list: newest first, by first message
        (fresh, "What do you remember?"),
        (thread, "turn 1: the venue holds 10 people"),
    ]


@pytest.mark.parametrize("assistant", ["chat", "agent"])
async def test_agent_chat_ui_regenerate_replaces_the_answer_in_memory(
    deployment: Deployment, assistant: str
) -> None:
    """Issue 30: the re-run's model had one past turn, not the answer it replaces; memory
    then holds the answer on the screen (``tests/server/forks.py``)."""
    await forks.regenerate_replaces_the_answer([deployment.url], deployment.token(), assistant)


@pytest.mark.parametrize("assistant", ["chat", "agent"])
async def test_agent_chat_ui_edit_replaces_the_question_in_memory(
    deployment: Deployment, assistant: str
) -> None:
    """Issue 30: an edited question replaces the old question and answer in memory; another
    thread's turn written in between stays."""
    await forks.edit_replaces_the_question_and_keeps_other_threads_turns(
        [deployment.url], deployment.token(), assistant
    )


def _card(value: dict[str, Any] | None) -> dict[str, Any]:
    assert value is not None, "a review card is shown"
    [request] = value["action_requests"]
    for arg in request["args"].values():  # agent-chat-ui shows other values as raw JSON
        assert isinstance(arg, str | int | float | bool), request["args"]
    return request


async def _review(ui: AgentChatUI) -> tuple[str, dict[str, Any]]:
    thread = await ui.new_thread()
    await ui.send(thread, GOAL)
    request = _card(await ui.interrupt(thread))
    assert request["name"] == "review_tasklist"
    lines = request["args"]["tasks"].splitlines()
    assert len(lines) == 3 and lines[1].startswith("T2: ") and "after: T1" in lines[1]
    return thread, request


async def _outcome(ui: AgentChatUI, thread: str) -> dict[str, Any]:
    state = await ui.state(thread)
    assert not state["next"] and await ui.interrupt(thread) is None, "nothing waits any more"
    return dict(state["values"])


async def test_agent_chat_ui_approve(deployment: Deployment) -> None:
    ui = AgentChatUI(deployment.url, "tasklist-agent", deployment.token())
    thread, _ = await _review(ui)
    await ui.press(thread, decide({"type": "approve"}))
    values = await _outcome(ui, thread)
    assert values["status"] == "final" and "approved" in values["summary"]
    assert values["messages"][-1]["content"] == values["summary"]


async def test_agent_chat_ui_edit(deployment: Deployment) -> None:
    ui = AgentChatUI(deployment.url, "tasklist-agent", deployment.token())
    thread, request = await _review(ui)
    typed = request["args"]["tasks"].replace("Do the main work", "Write the launch post")
    await ui.press(thread, edit(request["name"], {**request["args"], "tasks": typed}))
    values = await _outcome(ui, thread)
    assert values["status"] == "final" and "finalised with your edits" in values["summary"]
    assert "T2 — [offline] Write the launch post" in values["artifact"]


async def test_agent_chat_ui_reject_with_a_reason(deployment: Deployment) -> None:
    ui = AgentChatUI(deployment.url, "tasklist-agent", deployment.token())
    thread, _ = await _review(ui)
    await ui.press(thread, decide({"type": "reject", "message": "add a press kit"}))
    revised = await ui.interrupt(thread)
    request = _card(revised)
    assert revised is not None and revised["revisionRound"] == 1
    assert "Apply the reviewer's request: add a press kit" in request["args"]["tasks"]


async def test_agent_chat_ui_mark_as_resolved(deployment: Deployment) -> None:
    ui = AgentChatUI(deployment.url, "tasklist-agent", deployment.token())
    thread, _ = await _review(ui)
    await ui.press(thread, MARK_AS_RESOLVED)
    values = await _outcome(ui, thread)
    assert values["status"] == "rejected" and "marked as resolved" in values["summary"]
    assert values["messages"][-1]["content"] == values["summary"]


async def test_agent_chat_ui_answers_the_clarifying_question(deployment: Deployment) -> None:
    ui = AgentChatUI(deployment.url, "tasklist-agent", deployment.token())
    thread = await ui.new_thread()
    await ui.send(thread, VAGUE_GOAL)
    value = await ui.interrupt(thread)
    request = _card(value)
    assert request["name"] == "answer_question" and request["args"]["answer"] == ""
    question = request["args"]["question"]
    assert question and request["description"].startswith(question)
    answer = {**request["args"], "answer": "the recipe app, in Spain, by June"}
    await ui.press(thread, edit(request["name"], answer))
    review = _card(await ui.interrupt(thread))
    assert review["name"] == "review_tasklist"
    assert "the recipe app, in Spain, by June" in json.dumps((await ui.state(thread))["values"])


TYPED_ANSWERS = [
    ("looks good", True),
    ("同意，谢谢", True),
    ("add a press kit", False),
    ("加一个新闻稿", False),
]


@pytest.mark.parametrize(("text", "approved"), TYPED_ANSWERS)
async def test_agent_chat_ui_a_message_answers_the_pending_review(
    deployment: Deployment, text: str, approved: bool
) -> None:
    """Typing into the composer while a card waits answers it (contract §8a)."""
    ui = AgentChatUI(deployment.url, "tasklist-agent", deployment.token())
    thread, _ = await _review(ui)
    await ui.send(thread, text)
    if approved:
        values = await _outcome(ui, thread)
        assert values["status"] == "final" and "approved" in values["summary"]
    else:
        revised = await ui.interrupt(thread)
        request = _card(revised)
        assert revised is not None and revised["revisionRound"] == 1 and revised["goal"] == GOAL
        assert f"Apply the reviewer's request: {text}" in request["args"]["tasks"]
    shown = [text_of(m) for m in (await ui.state(thread))["values"]["messages"]]
    assert text in shown  # the reviewer's message stays in the thread


TURNS = 100
MESSAGE_CHARS = 1_000
MAX_STORAGE_PER_TRANSCRIPT = 12
"""Checkpoints at most 10x the transcript, plus the archive of folded turns (contract §5a:
their text once more and its full-text index, ~2x; bench/archive.py measures it)."""


async def test_a_100_turn_chat_thread_grows_the_database_linearly(
    deployment: Deployment,
) -> None:
    """contract §8a: 100 turns of 1,000-character messages grow the server's database by at
    most 10x the thread's transcript (a full copy of the list per checkpoint: ~150x).

    The turns go as agent-chat-ui's composer words them, through ``runs.wait``: what a
    run stores does not depend on how the client reads it back, and agent-chat-ui's two
    ``history`` reads per turn (ten whole states each) would make this test minutes long.
    """
    ui = AgentChatUI(deployment.url, "chat", deployment.token())
    thread = await ui.new_thread()
    client = get_client(url=deployment.url, api_key=ui.api_key)
    before = len(raw_storage_bytes(deployment.database_url))
    for n in range(1, TURNS + 1):
        text = (f"turn {n}: " + "the venue and the menu " * 50)[:MESSAGE_CHARS]
        message = {"type": "human", "content": [{"type": "text", "text": text}]}
        await client.runs.wait(thread, "chat", input={"messages": [message]})
    grown = len(raw_storage_bytes(deployment.database_url)) - before
    messages = (await ui.state(thread))["values"]["messages"]
    assert len(messages) == 2 * TURNS
    transcript = sum(len(text_of(m).encode()) for m in messages)
    assert grown <= MAX_STORAGE_PER_TRANSCRIPT * transcript, (grown, transcript)


# --- the official JS SDK ----------------------------------------------------------------------


def test_the_official_js_sdk_works_unchanged(deployment: Deployment) -> None:
    """``tests/node``: @langchain/langgraph-sdk from npm (installed by scripts/bootstrap.sh)."""
    assert (NODE_TESTS / "node_modules" / "@langchain" / "langgraph-sdk").is_dir(), (
        "tests/node has no node_modules: run `bash scripts/bootstrap.sh`"
    )
    node = shutil.which("node")
    assert node, "node is missing: install Node.js 20+"
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")
    }  # the SDK would send such a key when ours is missing
    env.update(
        AIMIND_TEST_URL=deployment.url,
        AIMIND_TEST_TOKEN_A=deployment.token(),
        AIMIND_TEST_TOKEN_B=deployment.token(),
    )
    done = subprocess.run(
        [node, "--test", "--test-reporter=spec"],
        cwd=NODE_TESTS,
        env=env,
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "pass 7" in done.stdout, done.stdout[-3000:]


# --- LangGraph Studio -------------------------------------------------------------------------


def studio_client(url: str) -> LangGraphClient:
    return get_client(url=url, api_key=None, headers=STUDIO, timeout=TIMEOUT)


async def test_studio_has_a_memory_of_its_own(deployment: Deployment) -> None:
    session = deployment.token()
    private = await chat_turn(deployment.url, session, "A browser session's own words.")
    studio = studio_client(deployment.url)
    marker = f"studio-{secrets.token_hex(4)}"
    first = await studio.runs.wait(None, "chat", input=human(f"First Studio turn {marker}"))
    thread = await studio.threads.create()
    second = await studio.runs.wait(thread["thread_id"], "chat", input=human("And again?"))

    assert first["memory_context"]["available"] is True
    shown = [m["content"] for m in second["messages"]]
    assert shown[0] == "And again?" and len(shown) == 2, "a new thread starts empty"
    found = RECENT_TURNS_RE.search(shown[1])  # ... but its model got the first turn
    assert found and int(found[1]) >= 1, shown[1]
    assert second["memory_context"]["recentTurns"] >= 1
    state = await studio.threads.get_state(thread["thread_id"])
    assert state["values"]["memory_context"] == second["memory_context"]

    # never mixed with a browser session, either way
    assert "A browser session's own words." not in json.dumps(second)
    dto = await request(deployment.url, "GET", "/api/chat/thread", channels(session)["cookie"])
    assert marker not in dto.text
    seen = {t["thread_id"] for t in await studio.threads.search(limit=100)}
    assert private not in seen and thread["thread_id"] in seen


@pytest.fixture(scope="module")
def production_server(
    tmp_path_factory: pytest.TempPathFactory, pg_server_url: str
) -> Iterator[LangGraphServer]:
    """``langgraph dev`` as production: a secret and memory on PostgreSQL, which production
    requires (``adapters.settings.check_served_database``)."""
    root = tmp_path_factory.mktemp("production")
    env = {"AIMIND_ENV": "production", "AIMIND_SESSION_SECRET": secrets.token_urlsafe(48)}
    with (
        fresh_database(pg_server_url) as url,
        langgraph_server(url, root / "data", workdir=root / "work", env=env) as server,
    ):
        yield server


async def test_studio_has_no_identity_of_its_own_in_production(
    production_server: LangGraphServer,
) -> None:
    """With ``AIMIND_ENV=production`` no credential-less identity exists (contract §8): Studio's
    scheme without a token is a 401; with a token the request is that session's."""
    studio = studio_client(production_server.base_url)
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await studio.runs.wait(None, "chat", input=human("Remember me, Studio?"))
    assert refused.value.response.status_code == 401
    with pytest.raises(httpx.HTTPStatusError) as listing:
        await studio.threads.search()
    assert listing.value.response.status_code == 401
    token = secrets.token_urlsafe(24)
    with_token = get_client(
        url=production_server.base_url, api_key=token, headers=STUDIO, timeout=TIMEOUT
    )
    await with_token.runs.wait(None, "chat", input=human("Remember me, Studio?"))
    second = await get_client(
        url=production_server.base_url, api_key=token, timeout=TIMEOUT
    ).runs.wait(None, "chat", input=human("Do you?"))
    assert second["memory_context"]["recentTurns"] == 1  # the token's own session
