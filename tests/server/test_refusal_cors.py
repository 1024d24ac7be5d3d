"""Our middleware's own answers and CORS, in process, in both servers' layouts (contract §8).

``langgraph dev`` lists its ``CORSMiddleware`` after the custom app's middleware (ours
answer outside it); Aegra adds its own before ours (ours answer inside it). In both, a
refusal of ours — and an unhandled error's 500 — must carry the CORS headers a route's
error gets, exactly once, and a preflight must be answered as for any path. On the real
servers: ``tests/server/test_cross_origin.py`` and ``tests/production/test_edge.py``.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse

from aimind_memory.adapters.server.identity_guard import IdentityGuard
from aimind_memory.adapters.server.refusals import skipped_cors
from aimind_memory.adapters.server.request_guard import RequestGuard
from aimind_memory.adapters.server.request_limits import RequestLimits
from aimind_memory.adapters.server.server_errors import UnhandledErrors
from tests.support.edge_requests import CROSS_ORIGIN, FOREIGN_ORIGIN, cors_headers, preflight

LIMIT = 1024
CORS = {
    "allow_origins": [CROSS_ORIGIN],
    "allow_credentials": True,
    "allow_methods": ["*"],
    "allow_headers": ["*"],
    "expose_headers": ["x-pagination-total"],
}
MEMORY_PATH = "/threads/chat:" + "ab" * 32 + "/state"
TOKEN, OTHER = "t" * 20, "o" * 20


async def boom(request: Request) -> JSONResponse:
    raise RuntimeError("a bug")


async def echo(request: Request) -> JSONResponse:
    return JSONResponse({"ok": True})


def served(layout: str) -> FastAPI:
    """Our middleware as ``adapters.server.app`` adds it, the server's CORS where that
    server puts it."""
    app = FastAPI()
    app.add_api_route("/boom", boom, methods=["GET"])
    app.add_api_route("/threads/{rest:path}", echo, methods=["GET", "POST"])
    app.add_middleware(IdentityGuard)
    app.add_middleware(RequestGuard, limits=RequestLimits(max_body_bytes=LIMIT))
    app.add_middleware(UnhandledErrors)
    if layout == "langgraph dev":  # langgraph_api: custom middleware + its global middleware
        app.user_middleware = [*app.user_middleware, Middleware(CORSMiddleware, **CORS)]
    elif layout == "aegra":  # aegra_api: add_middleware after the custom app's
        app.add_middleware(CORSMiddleware, **CORS)
    return app


async def call(app: FastAPI, method: str, path: str, **kwargs: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        return await client.request(method, path, **kwargs)


REFUSALS = [
    ("GET", "/threads/x", {"X-AIMind-Session": TOKEN, "X-Api-Key": OTHER}, None, 401),
    ("GET", MEMORY_PATH, {}, None, 403),
    ("POST", "/threads/search", {}, b" " * (LIMIT + 1), 413),
    ("POST", "/threads", {"content-type": "application/json"}, b'{"a": "\\u0000"}', 422),
    ("GET", "/boom", {}, None, 500),
]


@pytest.mark.parametrize("layout", ["langgraph dev", "aegra"])
@pytest.mark.parametrize("origin", [CROSS_ORIGIN, FOREIGN_ORIGIN])
@pytest.mark.parametrize(("method", "path", "headers", "content", "status"), REFUSALS)
async def test_a_refusal_carries_the_cors_headers_of_a_routes_error(
    layout: str,
    origin: str,
    method: str,
    path: str,
    headers: dict[str, str],
    content: bytes | None,
    status: int,
) -> None:
    app = served(layout)
    route_error = await call(app, "GET", "/nowhere", headers={"Origin": origin})
    assert route_error.status_code == 404
    answer = await call(app, method, path, headers={**headers, "Origin": origin}, content=content)
    assert answer.status_code == status and set(answer.json()) == {"detail"}
    assert cors_headers(answer) == cors_headers(route_error)
    allowed = answer.headers.get_list("access-control-allow-origin")
    assert allowed == ([CROSS_ORIGIN] if origin == CROSS_ORIGIN else [])
    plain = await call(app, method, path, headers=headers, content=content)  # no Origin
    plain_error = await call(app, "GET", "/nowhere")
    assert plain.status_code == status and cors_headers(plain) == cors_headers(plain_error)


@pytest.mark.parametrize("layout", ["langgraph dev", "aegra"])
async def test_a_preflight_is_answered_as_for_any_path_and_responses_get_one_origin(
    layout: str,
) -> None:
    app = served(layout)
    for origin in (CROSS_ORIGIN, FOREIGN_ORIGIN):
        usual = await call(app, "OPTIONS", "/threads/x", headers=preflight(origin))
        refused = await call(app, "OPTIONS", MEMORY_PATH, headers=preflight(origin))
        assert (refused.status_code, cors_headers(refused)) == (
            usual.status_code,
            cors_headers(usual),
        )
    ok = await call(app, "GET", "/threads/x", headers={"Origin": CROSS_ORIGIN})
    assert ok.status_code == 200
    assert ok.headers.get_list("access-control-allow-origin") == [CROSS_ORIGIN]
    assert ok.headers.get_list("vary") == ["Origin"]


def test_only_a_cors_layer_inside_ours_is_one_our_answers_skip() -> None:
    assert [m.kwargs for m in skipped_cors({"app": served("langgraph dev")})] == [CORS]
    assert skipped_cors({"app": served("aegra")}) == []
    assert skipped_cors({"app": served("none")}) == []
    assert skipped_cors({}) == []  # a bare middleware, no app
