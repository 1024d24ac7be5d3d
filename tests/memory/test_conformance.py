"""The server's checkpointer passes LangGraph's own conformance suite (contract §10).

``langgraph.json`` names ``memory.storage.checkpointer.server_checkpointer``: the stock
saver of each backend plus the capabilities the LangGraph server asks for that
it lacks. Every capability, base and extended (prune, delete_for_runs,
copy_thread), must be detected and pass, on a real SQLite file, a real
PostgreSQL (directly, and through PgBouncer in transaction pooling) and in process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES

from aimind_memory.memory import open_checkpointer


@pytest.fixture(params=["sqlite", "postgres", "pgbouncer", "memory"])
def saver_url(request: pytest.FixtureRequest) -> str:
    if request.param == "memory":
        return "memory"
    fixture = {"sqlite": "sqlite_url", "postgres": "pg_url", "pgbouncer": "bouncer_url"}
    return request.getfixturevalue(fixture[request.param])


async def test_server_checkpointer_passes_the_conformance_suite(saver_url: str) -> None:
    async def factory() -> AsyncIterator[BaseCheckpointSaver]:
        async with open_checkpointer(saver_url) as saver:
            yield saver

    registered = checkpointer_test(name=f"server checkpointer ({saver_url.split(':')[0]})")(factory)
    report = await validate(registered)
    missing = sorted(c.value for c in ALL_CAPABILITIES if not report.results[c.value].detected)
    failures = {
        name: result.failures
        for name, result in report.results.items()
        if result.detected and not result.passed
    }
    assert missing == [], f"capabilities not implemented: {missing}"
    assert failures == {}, failures
    assert all(r.tests_passed > 0 for r in report.results.values())
