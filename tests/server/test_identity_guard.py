"""One identity per request, and the edge that serves both servers, in process (contract §8, §15).

The servers' own behaviour is tested end to end in ``test_e2e.py`` (``langgraph dev``)
and ``tests/production`` (Aegra); here are the rules themselves, quickly.
"""

from __future__ import annotations

import uuid

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from aimind_memory.adapters.server.aegra import runs as aegra_runs
from aimind_memory.adapters.server.aegra import start as aegra_start
from aimind_memory.adapters.server.auth import run_request
from aimind_memory.adapters.server.cross_site import CROSS_SITE_REFUSED
from aimind_memory.adapters.server.identity_guard import IdentityGuard
from aimind_memory.adapters.server.run_input import GRAPH_ASSISTANT_NAMESPACE
from aimind_memory.adapters.server.session_token import conflicting_tokens
from aimind_memory.memory.session import new_token

A, B = new_token(), new_token()


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ([("x-aimind-session", A)], None),
        ([("x-aimind-session", A), ("x-aimind-session", A)], None),
        ([("x-aimind-session", A), ("authorization", f"Bearer {A}"), ("x-api-key", A)], None),
        ([("x-aimind-session", A), ("authorization", "Basic dXNlcjpwYXNz")], None),
        ([("x-aimind-session", A), ("cookie", f"theme=dark; aimind_session={A}")], None),
        ([("x-aimind-session", A), ("x-aimind-session", B)], "X-AIMind-Session twice"),
        ([("authorization", f"Bearer {A}"), ("authorization", f"Bearer {B}")], "twice"),
        ([("cookie", f"aimind_session={A}; aimind_session={B}")], "cookie twice"),
        ([("cookie", f"aimind_session={A}"), ("cookie", f"aimind_session={B}")], "cookie twice"),
        ([("x-aimind-session", A), ("authorization", f"Bearer {B}")], "X-AIMind-Session and"),
        ([("x-aimind-session", A), ("cookie", f"aimind_session={B}")], "the aimind_session"),
        ([("x-api-key", B), ("x-aimind-session", A)], "LANGSMITH_API_KEY"),
    ],
)
def test_a_request_carries_one_session_token(
    headers: list[tuple[str, str]], refused: str | None
) -> None:
    found = conflicting_tokens(headers)
    if refused is None:
        assert found is None
    else:
        assert found is not None and refused in found
        assert A not in found and B not in found  # the sentence never echoes a token


def echo_app() -> Starlette:
    async def echo(request: Request) -> JSONResponse:
        return JSONResponse({"headers": [k for k, _ in request.headers.items()]})

    methods = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]
    return Starlette(routes=[Route("/{path:path}", echo, methods=methods)])


async def call(app: object, headers: list[tuple[str, str]], path: str = "/x") -> httpx.Response:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        return await client.get(path, headers=headers)


async def test_the_guard_refuses_before_any_route_or_handler() -> None:
    from aimind_memory.adapters.server.app import app

    repeated = [("X-AIMind-Session", A), ("X-AIMind-Session", B)]
    for path in ("/api/chat/thread", "/threads/search", "/no-such-route"):
        response = await call(app, repeated, path)
        assert response.status_code == 401
        assert set(response.json()) == {"detail"} and "twice" in response.json()["detail"]
        assert "set-cookie" not in response.headers
    assert (await call(app, [("X-AIMind-Session", A)], "/api/chat/thread")).status_code == 200


COOKIE = ("cookie", f"aimind_session={A}")
JSON = ("content-type", "application/json")
OWN = ("origin", "http://testserver")


@pytest.mark.parametrize(
    ("method", "headers", "refused"),
    [
        # the chat page: JSON from its own origin, as Chromium sends it
        ("POST", [COOKIE, JSON, OWN, ("sec-fetch-site", "same-origin")], False),
        ("DELETE", [COOKIE, JSON, OWN], False),
        ("POST", [COOKIE, ("content-type", "application/json; charset=utf-8"), OWN], False),
        ("POST", [COOKIE, ("content-type", "application/merge-patch+json"), OWN], False),
        ("POST", [COOKIE, JSON, ("sec-fetch-site", "same-origin")], False),
        ("POST", [COOKIE, JSON, ("sec-fetch-site", "none")], False),
        # a reverse proxy in front (TLS ended there): the origin the browser saw
        (
            "POST",
            [
                COOKIE,
                JSON,
                ("origin", "https://chat.example"),
                ("x-forwarded-proto", "https"),
                ("x-forwarded-host", "chat.example"),
            ],
            False,
        ),
        # reads, preflights and header credentials are not this rule's
        ("GET", [COOKIE, ("origin", "http://evil.example")], False),
        ("OPTIONS", [COOKIE, ("origin", "http://evil.example")], False),
        ("POST", [("x-api-key", A), ("content-type", "text/plain")], False),
        ("POST", [("authorization", f"Bearer {A}"), ("origin", "http://localhost:3000")], False),
        ("POST", [("x-aimind-session", A), COOKIE, ("content-type", "text/plain")], False),
        # a malformed cookie is no session: auth answers it (401), as before
        ("POST", [("cookie", "aimind_session=bad"), ("content-type", "text/plain")], False),
        # another page: a simple request, a form, a foreign origin, another port
        ("POST", [COOKIE, ("content-type", "text/plain;charset=UTF-8"), OWN], True),
        ("POST", [COOKIE, ("content-type", "application/x-www-form-urlencoded"), OWN], True),
        ("POST", [COOKIE, ("content-type", "multipart/form-data; boundary=x"), OWN], True),
        ("POST", [COOKIE, OWN], True),
        ("POST", [COOKIE, JSON, ("origin", "http://testserver:8123")], True),
        ("POST", [COOKIE, JSON, ("origin", "https://testserver")], True),
        ("POST", [COOKIE, JSON, ("origin", "http://evil.example")], True),
        ("POST", [COOKIE, JSON, ("origin", "null")], True),
        ("POST", [COOKIE, JSON, OWN, ("sec-fetch-site", "same-site")], True),
        ("POST", [COOKIE, JSON, ("sec-fetch-site", "cross-site")], True),
        ("PUT", [COOKIE, JSON, ("origin", "http://127.0.0.1:9")], True),
        # no browser's page at all: told to send the session in a header
        ("POST", [COOKIE, JSON], True),
    ],
)
async def test_a_change_on_the_cookie_alone_is_json_from_the_pages_own_origin(
    method: str, headers: list[tuple[str, str]], refused: bool
) -> None:
    transport = httpx.ASGITransport(app=IdentityGuard(echo_app()))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        response = await client.request(method, "/runs/wait", headers=headers, content=b"{}")
    if refused:
        assert response.status_code == 403
        assert response.json() == {"detail": CROSS_SITE_REFUSED}
    else:
        assert response.status_code == 200, response.text


@pytest.mark.parametrize(("env", "kept"), [("production", False), ("development", True)])
async def test_production_has_no_studio_scheme(
    monkeypatch: pytest.MonkeyPatch, env: str, kept: bool
) -> None:
    """``x-auth-scheme: langsmith`` makes ``langgraph dev`` skip our auth (Studio's identity
    without a token): in production it never reaches the server."""
    monkeypatch.setenv("AIMIND_ENV", env)
    response = await call(IdentityGuard(echo_app()), [("x-auth-scheme", "langsmith")])
    assert ("x-auth-scheme" in response.json()["headers"]) is kept


def test_run_input_is_read_from_either_servers_create_run_value() -> None:
    turn = {"messages": [{"role": "user", "content": "Hi"}]}
    resume = {"resume": {"decisions": [{"type": "approve"}]}}
    assistant = uuid.uuid5(GRAPH_ASSISTANT_NAMESPACE, "chat")
    context = {"session_id": "library-session-0001"}
    langgraph_dev = {
        "assistant_id": assistant,
        "kwargs": {"input": turn, "command": None, "context": context},
    }
    aegra = {"assistant_id": "chat", "input": None, "command": resume, "thread_id": "t"}
    assert run_request(langgraph_dev) == (assistant, turn, None, context)
    assert run_request(aegra) == ("chat", None, resume, None)


def test_the_aegra_only_parts_stay_off_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    assert aegra_runs.inactive_reason() == "not Aegra with its Redis worker executor"
    monkeypatch.setenv(aegra_runs.SWITCH_ENV, "0")
    assert aegra_runs.inactive_reason() == f"{aegra_runs.SWITCH_ENV}=0"
    aegra_start.hold()  # not Aegra: takes no lock, opens no connection
    assert not aegra_start._held


async def test_auth_takes_header_names_and_values_as_bytes_or_str() -> None:
    """``langgraph dev`` hands the handler ``bytes``, Aegra ``str``: one identity either way."""
    from aimind_memory.adapters.server.auth import authenticate

    as_bytes = await authenticate({b"x-aimind-session": A.encode()})
    as_str = await authenticate({"X-AIMind-Session": A})
    assert as_bytes == as_str and len(as_bytes["identity"]) == 64
