"""Start-up rules of the served runtime (SPEC §8, §12.6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.langgraph_server import ServerStartError, langgraph_server

pytestmark = pytest.mark.e2e


def test_production_without_a_secret_refuses_to_start_with_a_clear_message(
    tmp_path: Path,
) -> None:
    with (
        pytest.raises(ServerStartError) as refused,
        langgraph_server(
            f"sqlite:///{tmp_path / 'db' / 'aimind.sqlite'}",
            tmp_path / "data",
            env={"AIMIND_ENV": "production"},
        ),
    ):
        pass
    message = str(refused.value)
    assert "exited early" in message
    assert "AIMIND_SESSION_SECRET is not set" in message
    assert not (tmp_path / "data" / "session-secret").exists()  # no dev secret in production
