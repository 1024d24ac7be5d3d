"""The HTTP edge's rules, in process: what a request may carry, run input, unhandled errors,
thread labels (contract §8, §8a, §15).

The same middleware on real servers: ``tests/reliability/test_http_security.py``
(``langgraph dev`` over PostgreSQL) and ``tests/production/test_edge.py`` (Aegra,
PostgreSQL, Redis). Here each rule is exercised on an echo app, quickly.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route, Router

from aimind_memory.adapters.errors import RunInputError
from aimind_memory.adapters.server.memory_threads import MEMORY_THREAD_REFUSED
from aimind_memory.adapters.server.request_guard import BAD_PATH, BAD_TEXT, RequestGuard
from aimind_memory.adapters.server.request_limits import RequestLimits, RequestLimitsError
from aimind_memory.adapters.server.run_input import GRAPH_ASSISTANT_NAMESPACE, check_run_input
from aimind_memory.adapters.server.server_errors import GENERIC_ERROR, UnhandledErrors
from aimind_memory.adapters.server.thread_labels import ThreadLabels, labelled

LIMITS = RequestLimits(max_body_bytes=64 * 1024, max_input_messages=50)
MEMORY_ID = "chat:" + "ab" * 32
CHAT_ASSISTANT = str(uuid.uuid5(GRAPH_ASSISTANT_NAMESPACE, "chat"))
SEEN: list[str] = []
"""Paths the echo app was reached with: a refused request never gets there."""


async def echo(request: Request) -> JSONResponse:
    SEEN.append(request.url.path)
    body = await request.body()
    return JSONResponse({"sha": hashlib.sha256(body).hexdigest(), "size": len(body)})


def guarded(limits: RequestLimits = LIMITS) -> RequestGuard:
    app = Starlette(routes=[Route("/{path:path}", echo, methods=["GET", "POST", "PATCH"])])
    return RequestGuard(app, limits)


async def send(
    app: Any, method: str, path: str, content: bytes | AsyncIterator[bytes] | None = None
) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        headers = {"content-type": "application/json"} if content is not None else {}
        return await client.request(method, path, content=content, headers=headers)


def refused(response: httpx.Response, status: int, sentence: str | None = None) -> None:
    assert response.status_code == status, response.text
    assert set(response.json()) == {"detail"}
    if sentence is not None:
        assert response.json()["detail"] == sentence


@pytest.mark.parametrize(
    "path",
    [
        f"/threads/{MEMORY_ID}",
        f"/threads/{MEMORY_ID}/history",
        f"/threads/{MEMORY_ID}/state/checkpoint",
        f"/threads/{MEMORY_ID}/runs/stream",
        "/threads/chat%3A" + "ab" * 32 + "/state",  # percent-encoded
        f"/threads/{MEMORY_ID}/",
    ],
)
async def test_a_path_naming_a_memory_thread_reaches_no_route(path: str) -> None:
    SEEN.clear()
    for method in ("GET", "POST"):
        refused(await send(guarded(), method, path, b"{}"), 403, MEMORY_THREAD_REFUSED)
    assert SEEN == []


@pytest.mark.parametrize(
    "body",
    [
        {"thread_id": MEMORY_ID},
        {"thread_id": MEMORY_ID, "if_exists": "do_nothing"},
        {"ids": ["0b2d6f42-0000-4000-8000-000000000000", MEMORY_ID]},
        {"thread_ids": [MEMORY_ID]},
        {"checkpoint": {"thread_id": MEMORY_ID, "checkpoint_id": "1"}},
        {"config": {"configurable": {"thread_id": MEMORY_ID}}},
        {"params": {"message": {"contextId": MEMORY_ID}}},
    ],
)
async def test_a_body_naming_a_memory_thread_reaches_no_route(body: dict[str, Any]) -> None:
    SEEN.clear()
    refused(await send(guarded(), "POST", "/threads", json.dumps(body).encode()), 403)
    escaped = json.dumps(body).replace('"chat:', '"\\u0063hat:').encode()  # same JSON
    refused(await send(guarded(), "POST", "/threads/search", escaped), 403)
    assert SEEN == []


@pytest.mark.parametrize(
    ("path", "sentence"),
    [
        ("/threads/ab%00cd", BAD_PATH),
        ("/threads/%ED%A0%80/state", BAD_PATH),  # a UTF-8-encoded lone surrogate
        ("/threads/%FF", BAD_PATH),
        ("/threads/x/history?before=%00", BAD_PATH),
    ],
)
async def test_a_path_or_query_that_cannot_be_stored_is_a_422(path: str, sentence: str) -> None:
    SEEN.clear()
    refused(await send(guarded(), "GET", path), 422, sentence)
    assert SEEN == []


@pytest.mark.parametrize(
    "body",
    [
        b'{"input": {"messages": [{"role": "user", "content": "a\\u0000b"}]}}',
        b'{"input": {"messages": [{"role": "user", "content": "x", "id": "m\\u0000"}]}}',
        b'{"input": {"messages": [{"role": "user", "content": "lone \\ud800 high"}]}}',
        b'{"input": {"messages": [{"role": "user", "content": "lone \\udc00 low"}]}}',
        b'{"metadata": {"k\\u0000": 1}}',
        b'{"command": {"resume": {"decisions": [{"type": "reject", "message": "\\u0000"}]}}}',
        b'{"context": {"session_id": "\\ud83d"}}',
        b'{"input": {"requirement": "deep ' + b"[" * 50 + b'\\u0000"}}',
    ],
)
async def test_unstorable_text_anywhere_in_a_body_is_a_422(body: bytes) -> None:
    SEEN.clear()
    if b"deep" in body:  # a NUL inside a string is a NUL wherever the string sits
        body = b'{"input": {"requirement": "deep", "x": ' + b"[" * 50 + b'"\\u0000"'
        body += b"]" * 50 + b"}}"
    refused(await send(guarded(), "POST", "/runs/wait", body), 422, BAD_TEXT)
    assert SEEN == []


@pytest.mark.parametrize(
    "body",
    [
        b'{"input": {"messages": [{"role": "user", "content": "chat: how are you?"}]}}',
        b'{"input": {"messages": [{"role": "user", "content": "emoji \\ud83d\\ude00 pair"}]}}',
        '{"input": {"messages": [{"role": "user", "content": "café 会话"}]}}'.encode(),
        b'{"metadata": {"topic": "chat:planning"}}',
        b"not json at all \\u0000",  # not JSON: the route answers it, as before
        b"",
    ],
)
async def test_everything_else_passes_unchanged(body: bytes) -> None:
    response = await send(guarded(), "POST", "/runs/wait", body)
    assert response.status_code == 200, response.text
    assert response.json() == {"sha": hashlib.sha256(body).hexdigest(), "size": len(body)}


async def test_a_body_over_the_limit_is_a_413_whether_announced_or_chunked() -> None:
    SEEN.clear()
    limit = LIMITS.max_body_bytes
    refused(await send(guarded(), "POST", "/runs/wait", b"x" * (limit + 1)), 413)

    async def chunks(count: int) -> AsyncIterator[bytes]:
        for _ in range(count):
            yield b"y" * 8192

    response = await send(guarded(), "POST", "/runs/wait", chunks(limit // 8192 + 1))
    refused(response, 413)
    assert "64 KB" not in response.json()["detail"] and "AIMIND_MAX_BODY_MB" in response.text
    assert SEEN == []
    response = await send(guarded(), "POST", "/runs/wait", chunks(limit // 8192))
    assert response.json()["size"] == limit  # at the limit: whole, in order


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"ttl": {"strategy": "keep_latest", "ttl": 60}}, "keep_latest"),
        ({"ttl": {"strategy": "keep_latest", "default_ttl": 5e-324}}, "keep_latest"),
        ({"ttl": {"strategy": "delete", "ttl": 5e-324}}, "at least 1 minute"),
        ({"ttl": {"ttl": 0.5}}, "at least 1 minute"),
        ({"metadata": {"graph_id": "chat"}, "ttl": {"ttl": 600}}, "chat thread takes no ttl"),
        (
            {"metadata": {"assistant_id": CHAT_ASSISTANT}, "ttl": {"ttl": 600}},
            "chat thread takes no ttl",
        ),
    ],
)
async def test_a_thread_ttl_that_would_lose_a_transcript_is_refused(
    body: dict[str, Any], words: str
) -> None:
    for method, path in (("POST", "/threads"), ("PATCH", "/threads/t-1")):
        response = await send(guarded(), method, path, json.dumps(body).encode())
        refused(response, 422)
        assert words in response.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [
        {"ttl": {"strategy": "delete", "ttl": 60}},
        {"ttl": {"ttl": 1}},
        {"metadata": {"graph_id": "tasklist-agent"}, "ttl": {"ttl": 30}},
        {"ttl": None},
    ],
)
async def test_a_delete_ttl_of_a_minute_or_more_stands(body: dict[str, Any]) -> None:
    response = await send(guarded(), "POST", "/threads", json.dumps(body).encode())
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("prefix", [None, [1], "a.b"])
async def test_a_store_search_langgraph_dev_would_crash_on_is_a_422(prefix: Any) -> None:
    body = json.dumps({"namespace_prefix": prefix}).encode()
    response = await send(guarded(), "POST", "/store/items/search", body)
    refused(response, 422)
    assert "namespace_prefix" in response.json()["detail"]
    fine = json.dumps({"namespace_prefix": ["a"]}).encode()
    assert (await send(guarded(), "POST", "/store/items/search", fine)).status_code == 200


async def test_a_values_filter_the_route_fails_on_is_a_422_and_works_otherwise() -> None:
    """``langgraph dev`` raises a ``TypeError`` on a values filter when the caller owns a
    thread without state, and answers it otherwise: only the failure becomes a 422."""
    stateless = {"yes": True}

    async def search(request: Request) -> JSONResponse:
        if (await request.json()).get("values") and stateless["yes"]:
            raise TypeError("argument of type 'NoneType' is not iterable")
        return JSONResponse([])

    routes = [
        Route(path, search, methods=["POST"]) for path in ("/threads/search", "/threads/count")
    ]
    app = RequestGuard(Router(routes=routes), LIMITS)
    for path in ("/threads/search", "/threads/count"):
        response = await send(app, "POST", path, b'{"values": {"status": "final"}}')
        refused(response, 422)
        assert "filtered by values" in response.json()["detail"]
        assert (await send(app, "POST", path, b'{"metadata": {}}')).status_code == 200
    stateless["yes"] = False
    response = await send(app, "POST", "/threads/search", b'{"values": {"status": "final"}}')
    assert response.status_code == 200 and response.json() == []


def test_request_limits_come_from_the_environment() -> None:
    assert RequestLimits.from_env({}) == RequestLimits()
    limits = RequestLimits.from_env({"AIMIND_MAX_BODY_MB": "0.5", "AIMIND_MAX_INPUT_MESSAGES": "7"})
    assert limits == RequestLimits(max_body_bytes=512 * 1024, max_input_messages=7)
    for name, raw in (
        ("AIMIND_MAX_BODY_MB", "lots"),
        ("AIMIND_MAX_BODY_MB", "-1"),
        ("AIMIND_MAX_BODY_MB", "nan"),
        ("AIMIND_MAX_INPUT_MESSAGES", "2.5"),
        ("AIMIND_MAX_INPUT_MESSAGES", "0"),
    ):
        with pytest.raises(RequestLimitsError, match=name):
            RequestLimits.from_env({name: raw})


def human(**extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": "Hello", **extra}


@pytest.mark.parametrize(
    ("run_input", "context", "words"),
    [
        ({"messages": [human(tool_calls=[{"bad": 1}])]}, None, "tool_calls"),
        ({"messages": [human(tool_calls=["call"])]}, None, "tool_calls"),
        (
            {"messages": [{"role": "ai", "content": "", "tool_calls": [{"name": "f"}]}]},
            None,
            "tool_calls",
        ),
        (
            {
                "messages": [
                    {
                        "role": "ai",
                        "content": "",
                        "tool_calls": [
                            {"id": "c1", "function": {"name": "f", "arguments": "{not json"}}
                        ],
                    },
                    human(),
                ]
            },
            None,
            "tool_calls",
        ),
        ({"messages": [human(id=5)]}, None, "message id, name and tool_call_id"),
        ({"messages": [human(name=["x"])]}, None, "message id, name and tool_call_id"),
        ({"messages": [{"role": "tool", "content": "42"}, human()]}, None, "tool_call_id"),
        ({"messages": [{"content": "no role"}]}, None, "each with a role"),
        ({"messages": [human()]}, {"session_id": 5}, "context"),
        ({"messages": [human()]}, ["session"], "context"),
        (None, {"session_id": {"token": "x"}}, "context"),
        ({"messages": ["hi"] * 51}, None, "at most 50 (AIMIND_MAX_INPUT_MESSAGES"),
    ],
)
def test_run_input_and_context_the_graphs_would_choke_on_are_refused(
    run_input: Any, context: Any, words: str
) -> None:
    with pytest.raises(RunInputError) as exc:
        check_run_input(run_input, context=context, max_messages=LIMITS.max_input_messages)
    assert words in str(exc.value)
    assert "Traceback" not in str(exc.value) and "input_value" not in str(exc.value)


@pytest.mark.parametrize(
    ("run_input", "context"),
    [
        ({"messages": [human(id="m-1", name="ada")]}, {"session_id": "library-session-01"}),
        (
            {
                "messages": [
                    human(),
                    {
                        "role": "ai",
                        "content": "",
                        "tool_calls": [
                            {"name": "calculator", "args": {"expression": "2+2"}, "id": "c1"},
                            {
                                "id": "c2",
                                "type": "function",
                                "function": {
                                    "name": "calculator",
                                    "arguments": '{"expression": "1"}',
                                },
                            },
                        ],
                    },
                    {"role": "tool", "content": "4", "tool_call_id": "c1"},
                    human(),
                ]
            },
            {},
        ),
        ({"messages": ["hi"] * 50}, None),
        (None, None),
    ],
)
def test_well_formed_runs_pass(run_input: Any, context: Any) -> None:
    check_run_input(run_input, context=context, max_messages=LIMITS.max_input_messages)


@pytest.mark.parametrize(
    "command",
    [
        {"resume": {"decisions": [{"type": "approve"}]}},  # agent-chat-ui's buttons
        {"goto": "__end__"},  # its Mark as Resolved
        {"resume": None, "goto": None, "update": None},
        {"goto": ["a", {"node": "b", "input": {"x": 1}}]},
        {"update": {"messages": []}},
        {"update": [["messages", []]]},
    ],
)
def test_the_commands_clients_send_pass(command: dict[str, Any]) -> None:
    check_run_input({}, command=command)


@pytest.mark.parametrize(
    "command",
    [{"goto": 5}, {"resum": {"decisions": []}}, {"update": "messages"}, ["resume"]],
)
def test_a_command_the_run_would_choke_on_is_refused(command: Any) -> None:
    with pytest.raises(RunInputError, match="The run's command must be an object"):
        check_run_input({}, command=command)


async def test_an_unhandled_error_is_one_log_line_and_a_json_500(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = "the user's words: my card is 4111"

    async def fails(request: Request) -> Response:
        raise RuntimeError(secret)

    async def fails_late(request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            yield b"partial"
            raise RuntimeError(secret)

        return StreamingResponse(body())

    # a bare router: in the servers the app's own error middleware is outside ours
    app = UnhandledErrors(Router(routes=[Route("/a", fails), Route("/b", fails_late)]))
    with caplog.at_level(logging.DEBUG):
        response = await send(app, "GET", "/a")
        assert response.status_code == 500 and response.json() == {"detail": GENERIC_ERROR}
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            await asyncio.Event().wait()  # the client stays: nothing to receive
            raise AssertionError("unreachable")

        async def collect(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": "/b", "headers": [], "query_string": b""}
        await app(scope, receive, collect)  # the response had started: it ends there, no raise
        assert [m.get("body") for m in sent[1:]] == [b"partial"]
    lines = [r.getMessage() for r in caplog.records]
    assert sum("unhandled error in a request (RuntimeError" in line for line in lines) == 2
    assert not any(secret in line or "Traceback" in line for line in lines)
    assert all(r.exc_info is None for r in caplog.records)


def test_a_thread_without_values_is_labelled_with_its_name() -> None:
    threads = [
        {"thread_id": "a", "metadata": {"thread_name": "Plan my trip to Kyoto"}},
        {"thread_id": "b", "metadata": {"thread_name": ""}},
        {"thread_id": "c", "metadata": {"thread_name": "x"}, "values": {"messages": []}},
        {"thread_id": "d", "metadata": {}, "values": None},
    ]
    out = labelled(json.loads(json.dumps(threads)))
    assert out is not None
    assert out[0]["values"] == {"messages": [{"type": "human", "content": "Plan my trip to Kyoto"}]}
    assert out[1:] == threads[1:]
    assert labelled(threads[1:]) is None and labelled({"not": "a list"}) is None


async def test_thread_labels_rewrite_only_a_search_response() -> None:
    threads = [{"thread_id": "a", "metadata": {"thread_name": "Bonjour à tous"}}]

    async def search(request: Request) -> JSONResponse:
        return JSONResponse(threads)

    routes = [Route("/threads/search", search, methods=["POST"]), Route("/threads", search)]
    app = ThreadLabels(Starlette(routes=routes))
    response = await send(app, "POST", "/threads/search", b"{}")
    assert response.json()[0]["values"]["messages"][0]["content"] == "Bonjour à tous"
    assert int(response.headers["content-length"]) == len(response.content)
    assert "values" not in (await send(app, "GET", "/threads")).json()[0]
