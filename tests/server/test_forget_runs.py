"""Forget waits for a session's runs to end (``adapters.server.forget``), as Aegra answers
while a cancelled stateless run ends: the run's re-read fails with a 500 while its row goes
with its thread (seen in a whole run: ``test_forget_in_flight`` got a 503 back), then a 404.
The server's answers are replayed here in order over httpx's transport; the real Aegra
replicas are ``tests/production/test_forget_in_flight.py``'s."""

from __future__ import annotations

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from aimind_memory.adapters.errors import ForgetIncompleteError
from aimind_memory.adapters.server import forget

THREAD, RUN = "t-1", "r-1"


def aegra(reads: list[int]) -> tuple[httpx.AsyncClient, list[str]]:
    """A server whose thread has one running run, which answers the run's re-reads with
    ``reads`` in turn (then 404: gone)."""
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(f"{request.method} {request.url.path}")
        if request.url.path == f"/threads/{THREAD}/runs":
            return httpx.Response(200, json=[{"run_id": RUN, "status": "running"}])
        if request.url.path.endswith("/cancel"):
            return httpx.Response(200, json={})
        status = reads.pop(0) if reads else 404
        body = {"run_id": RUN, "status": "running"} if status == 200 else {"detail": "x"}
        return httpx.Response(status, json=body)

    return httpx.AsyncClient(transport=httpx.MockTransport(answer), base_url="http://s"), asked


async def test_a_run_whose_re_read_fails_while_it_ends_is_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(forget, "RUN_POLL_S", 0.01)
    http, asked = aegra([500, 200])
    async with LangGraphClient(http) as client:
        await forget._stop_runs(client, THREAD)  # no ForgetIncompleteError
    reads = [a for a in asked if a == f"GET /threads/{THREAD}/runs/{RUN}"]
    assert len(reads) == 3  # 500, still running, gone


async def test_a_run_that_never_ends_still_stops_forget_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(forget, "RUN_POLL_S", 0.01)
    monkeypatch.setattr(forget, "RUN_END_WAIT_S", 0.2)
    http, _ = aegra([500] * 1_000)
    async with LangGraphClient(http) as client:
        with pytest.raises(ForgetIncompleteError):
            await forget._stop_runs(client, THREAD)
