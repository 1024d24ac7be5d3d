"""agent-chat-ui's Regenerate and Edit on Aegra (issue 30): two replicas on PostgreSQL,
Aegra's own ``AsyncPostgresSaver`` for the threads, each request to either replica.

The scenarios are ``tests/server/forks.py``'s, with agent-chat-ui's exact requests
(``tests/server/agent_chat_ui.py``): memory matches the screen afterwards, the re-run's
model saw only the turns still on it, and another thread's turn stays — for the
``chat`` graph and the ``agent`` graph (``ChatMemoryMiddleware``).
"""

from __future__ import annotations

import pytest

from aimind_memory.memory.session import new_token
from tests.production.conftest import Cluster
from tests.server import forks

pytestmark = pytest.mark.e2e


def urls(cluster: Cluster) -> list[str]:
    return [replica.base_url for replica in cluster.replicas]


@pytest.mark.parametrize("assistant", ["chat", "agent"])
async def test_agent_chat_ui_regenerate_on_aegra(cluster: Cluster, assistant: str) -> None:
    await forks.regenerate_replaces_the_answer(urls(cluster), new_token(), assistant)


@pytest.mark.parametrize("assistant", ["chat", "agent"])
async def test_agent_chat_ui_edit_on_aegra(cluster: Cluster, assistant: str) -> None:
    await forks.edit_replaces_the_question_and_keeps_other_threads_turns(
        urls(cluster), new_token(), assistant
    )
