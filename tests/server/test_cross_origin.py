"""A browser client on another origin reads our refusals as it reads ``langgraph dev``'s own
errors (contract §8), on a real ``langgraph dev``: its default CORS policy (any origin) and an
allow-list (``CORS_ALLOW_ORIGINS``, with credentials).

Before: ``langgraph dev`` runs our middleware outside its CORS layer, so what that
middleware answers by itself (two tokens, a ``chat:`` thread, a NUL, a body too large, a
body rule) carried no ``Access-Control-*`` header, and agent-chat-ui on
``localhost:3000`` saw a network error. Each refusal must now carry exactly the CORS
headers of the server's own 404 for the same origin, preflights must be answered as for
any other path, and the server's responses keep exactly one ``Access-Control-Allow-Origin``.
The same on Aegra: ``tests/production/test_edge.py``; in Chromium:
``tests/browser/test_cross_origin.py``; in process: ``tests/server/test_refusal_cors.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from aimind_memory.memory.session import hash_token, memory_thread_id, new_token
from harness.langgraph_server import LangGraphServer, langgraph_server
from tests.support.edge_requests import (
    CROSS_ORIGIN,
    FOREIGN_ORIGIN,
    MB,
    SERVER_ERROR_PATH,
    cors_headers,
    edge_refusals,
    preflight,
)

pytestmark = pytest.mark.e2e

SECRET = "cross-origin-suite-secret-" + "c" * 24
BODY_LIMIT_MB = 1
POLICIES = {
    "default": {},
    "allow-list": {"CORS_ALLOW_ORIGINS": CROSS_ORIGIN},
}
"""langgraph dev's CORS configuration (its documented environment variable)."""


@pytest.fixture(scope="module", params=list(POLICIES))
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LangGraphServer]:
    root = tmp_path_factory.mktemp(f"cors-{request.param}")
    env = {
        "AIMIND_SESSION_SECRET": SECRET,
        "AIMIND_MAX_BODY_MB": str(BODY_LIMIT_MB),
        **POLICIES[request.param],
    }
    with langgraph_server(
        f"sqlite:///{root / 'db' / 'aimind.sqlite'}", root / "data", workdir=root / "work", env=env
    ) as running:
        yield running


def allow_origin(response: httpx.Response) -> list[str]:
    return response.headers.get_list("access-control-allow-origin")


@pytest.mark.parametrize("origin", [CROSS_ORIGIN, FOREIGN_ORIGIN])
def test_each_refusal_carries_the_cors_headers_of_the_servers_own_errors(
    server: LangGraphServer, origin: str
) -> None:
    token, other = new_token(), new_token()
    memory_thread = memory_thread_id(hash_token(token, SECRET.encode()))
    with httpx.Client(base_url=server.base_url, timeout=60) as client:
        own = client.get(SERVER_ERROR_PATH, headers={"Origin": origin, "X-AIMind-Session": token})
        assert own.status_code == 404
        expected = cors_headers(own)
        assert expected, "the server gives its own errors CORS headers"
        for refusal in edge_refusals(token, other, memory_thread, BODY_LIMIT_MB * MB):
            answer = client.request(
                refusal.method,
                refusal.path,
                headers={**refusal.headers, "Origin": origin},
                content=refusal.content,
            )
            assert answer.status_code == refusal.status, (refusal.name, answer.text)
            assert set(answer.json()) == {"detail"}, refusal.name
            assert cors_headers(answer) == expected, refusal.name

        # A route's failure answered with a 422 in its place (a values filter while one of
        # the caller's threads has no state): the answer of ours after the route ran.
        mine = {"Origin": origin, "X-AIMind-Session": token}
        assert client.post("/threads", json={}, headers=mine).status_code == 200
        failed = client.post("/threads/search", json={"values": {"x": 1}}, headers=mine)
        assert failed.status_code == 422, failed.text
        assert cors_headers(failed) == expected


def test_the_servers_own_responses_keep_one_set_of_cors_headers(server: LangGraphServer) -> None:
    token = new_token()
    headers = {"Origin": CROSS_ORIGIN, "X-AIMind-Session": token}
    with httpx.Client(base_url=server.base_url, timeout=60) as client:
        expected = cors_headers(client.get(SERVER_ERROR_PATH, headers=headers))
        answers = [
            client.get("/api/chat/memory", headers=headers),  # our route
            client.post("/threads/search", json={}, headers=headers),  # the server's route
            client.post("/api/chat/memory/pins", json={"text": ""}, headers=headers),  # our 422
            client.get("/api/chat/memory", headers={"Origin": CROSS_ORIGIN}),  # a fresh session
        ]
    for answer in answers:
        assert answer.status_code < 500, answer.text
        assert allow_origin(answer) == [CROSS_ORIGIN] or allow_origin(answer) == ["*"]
        assert cors_headers(answer) == expected, answer.request.url


def test_a_preflight_to_a_refused_path_is_answered_as_any_other(server: LangGraphServer) -> None:
    """The browser's preflight before reading a refusal: the same answer as for a path we
    do not refuse (so the request itself is sent, and its sentence read)."""
    memory_thread = memory_thread_id(hash_token(new_token(), SECRET.encode()))
    with httpx.Client(base_url=server.base_url, timeout=60) as client:
        for origin in (CROSS_ORIGIN, FOREIGN_ORIGIN):
            for method in ("GET", "POST"):
                usual = client.options(
                    f"{SERVER_ERROR_PATH}/state", headers=preflight(origin, method)
                )
                refused = client.options(
                    f"/threads/{memory_thread}/state", headers=preflight(origin, method)
                )
                assert (refused.status_code, refused.text) == (usual.status_code, usual.text)
                assert cors_headers(refused) == cors_headers(usual), (origin, method)
        allowed = client.options(f"/threads/{memory_thread}/state", headers=preflight(CROSS_ORIGIN))
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-private-network"] == "true"
