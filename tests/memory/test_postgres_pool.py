"""A Postgres pool of one connection starts and serves (AIMIND_PG_POOL_MAX=1).

Start-up once held the migration lock on one pooled connection while ``setup()``
waited for a second: with a pool of one, the server never started.
"""

from __future__ import annotations

import asyncio
import logging
from urllib.parse import urlsplit

import pytest
from psycopg_pool import PoolTimeout

from aimind_memory.memory import open_checkpointer, open_memory
from aimind_memory.memory.config.settings import MemorySettings
from aimind_memory.memory.storage.pg_pool import open_pg_pool, opened
from aimind_memory.memory.storage.store import thread_config

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


async def test_the_pool_logs_a_failed_connection_without_the_server_s_words(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A database that is not there: psycopg's pool logs each failed attempt, and the real
    server's answer names the database, host and port. The log keeps the attempts and the
    error's type, not those words."""
    monkeypatch.setenv(MemorySettings.env_name("pg_reconnect_timeout_s"), "1")
    monkeypatch.setenv(MemorySettings.env_name("pg_pool_timeout_s"), "3")
    missing = "aimind_no_such_database_42"
    url = urlsplit(pg_url)._replace(path=f"/{missing}").geturl()
    caplog.set_level(logging.INFO, logger="psycopg.pool")
    async with asyncio.timeout(30), open_pg_pool(url) as pool:
        opened(pool)  # as after memory opened: an opening's own attempts are not logged
        with pytest.raises(PoolTimeout):
            async with pool.reachable_connection():
                pass
    said = [r.getMessage() for r in caplog.records if r.name.startswith("psycopg")]
    assert any("error connecting" in s and "OperationalError" in s for s in said), said
    host = urlsplit(pg_url).hostname or ""
    for text in said:
        assert missing not in text and "does not exist" not in text, text
        assert (not host or host not in text) and "FATAL" not in text, text
    assert all(r.exc_info is None for r in caplog.records if r.name.startswith("psycopg"))
