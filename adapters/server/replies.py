"""How our routes answer (contract §9, §9a): JSON that passed the field guard, never cached, and
errors in LangGraph's own shape, ``{"detail": "<one plain sentence>"}``, so a client reads
every error of either server the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.responses import JSONResponse

from aimind_memory.memory.views.guard import assert_no_forbidden_fields

__all__ = ["MEMORY_UNAVAILABLE", "NO_STORE", "error_reply", "json_reply"]

NO_STORE = {"Cache-Control": "no-store"}
"""Memory changes with every turn and belongs to one session: no cache keeps a copy."""
MEMORY_UNAVAILABLE = "Chat memory is unavailable right now. Please try again shortly."


def json_reply(
    body: dict[str, Any], status_code: int = 200, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """``body`` as JSON, after ``assert_no_forbidden_fields``."""
    assert_no_forbidden_fields(body)
    return JSONResponse(body, status_code=status_code, headers={**NO_STORE, **(headers or {})})


def error_reply(status_code: int, message: str) -> JSONResponse:
    return json_reply({"detail": message}, status_code)
