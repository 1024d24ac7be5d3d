"""Clearing a session's memory on one replica while turns are written on both never
corrupts it (contract §10: a clear is one transaction under the thread's lock; a turn
racing it is either kept or cleared, never half).

Each round writes a marker turn, then races turns through both replicas against a
clear through one of them. The clear started after the marker was answered, so the
marker (and everything before it) must be gone; the memory must load, keep its
bounds, and hold only whole turns of this round.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from aimind_memory.memory import open_memory
from aimind_memory.memory.session import new_token
from harness.faults import assert_bounded
from tests.production.conftest import Cluster, human

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROUNDS = 10
RACERS = 4
SEED = 20_261_201


async def test_a_clear_racing_turns_on_both_replicas_never_corrupts_memory(
    memory_env: Cluster,
) -> None:
    rng = random.Random(SEED)
    token = new_token()
    clients = [memory_env.client(i, token) for i in (0, 1)]

    async def clear(index: int, delay: float) -> None:
        await asyncio.sleep(delay)
        async with memory_env.http(index) as client:
            response = await client.delete("/api/chat/thread", headers={"X-AIMind-Session": token})
        assert response.status_code == 200, response.text

    async def racer(index: int, text: str, delay: float) -> None:
        await asyncio.sleep(delay)
        result = await clients[index].runs.wait(None, "chat", input=human(text))
        assert "__error__" not in result, result

    async with open_memory() as mem:
        for r in range(ROUNDS):
            marker = f"Round {r} marker: the old plan was Z{r}."
            await clients[r % 2].runs.wait(None, "chat", input=human(marker))
            racing = [f"Round {r} racer {i}: the new plan is A{r}{i}." for i in range(RACERS)]
            await asyncio.gather(
                clear(rng.randrange(2), rng.uniform(0, 0.15)),
                *(racer(i % 2, text, rng.uniform(0, 0.15)) for i, text in enumerate(racing)),
            )
            state = await mem.load(token)  # loads: no checkpoint left without its blobs
            assert_bounded(state)
            roles = [m.role for m in state.messages]
            assert roles == ["user", "assistant"] * (len(roles) // 2), "a turn was cut in half"
            users = [m.text for m in state.messages if m.role == "user"]
            assert set(users) <= set(racing), f"round {r}: cleared turns came back: {users}"
