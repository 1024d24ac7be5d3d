"""A Postgres pool of one connection starts and serves (AIMIND_PG_POOL_MAX=1).

Start-up once held the migration lock on one pooled connection while ``setup()``
waited for a second: with a pool of one, the server never started.
"""

from __future__ import annotations

import asyncio

import pytest

from memory import open_checkpointer, open_memory
from memory.settings import MemorySettings
from memory.storage.store import thread_config

from .helpers import new_token, turn, user_texts


async def test_a_pool_of_one_connection_starts_and_serves(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MemorySettings.env_name("pg_pool_max"), "1")
    token = new_token()
    async with asyncio.timeout(60):
        async with open_memory(pg_url) as mem:
            for i in range(6):
                assert (await mem.append_turn(token, turn(f"q{i}", f"a{i}"))).written
            assert user_texts(await mem.load(token))[-1] == "q5"
            thread_id = mem.thread_id(token)
        async with open_checkpointer(pg_url) as saver:
            assert await saver.aget_tuple(thread_config(thread_id)) is not None
