"""The session cookie's flags via the ASGI app: HttpOnly, SameSite=Lax, Path=/, Secure on https."""

from __future__ import annotations

import httpx
import pytest

from aimind_memory.adapters.server.app import app
from aimind_memory.memory.session import TOKEN_RE

COOKIE = "aimind_session"


def attributes(set_cookie: str) -> tuple[str, dict[str, str]]:
    first, *rest = [part.strip() for part in set_cookie.split(";")]
    name, _, value = first.partition("=")
    assert name == COOKIE
    flags = {}
    for part in rest:
        key, _, val = part.partition("=")
        flags[key.lower()] = val.lower()
    return value, flags


@pytest.mark.parametrize(
    ("base_url", "headers", "secure"),
    [
        ("http://testserver", {}, False),
        ("https://testserver", {}, True),
        ("http://testserver", {"X-Forwarded-Proto": "https"}, True),
        ("http://testserver", {"X-Forwarded-Proto": "https, http"}, True),
        ("http://testserver", {"X-Forwarded-Proto": "http"}, False),
    ],
)
async def test_minted_cookie_flags(base_url: str, headers: dict[str, str], secure: bool) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=base_url) as client:
        response = await client.get("/api/chat/thread", headers=headers)
    assert response.status_code == 200
    cookies = response.headers.get_list("set-cookie")
    assert len(cookies) == 1
    token, flags = attributes(cookies[0])
    assert TOKEN_RE.fullmatch(token)
    assert "httponly" in flags
    assert flags.get("samesite") == "lax"
    assert flags.get("path") == "/"
    assert ("secure" in flags) is secure
    assert token not in response.text, "the raw token is only in the cookie"
    assert response.headers.get("cache-control") == "no-store"
