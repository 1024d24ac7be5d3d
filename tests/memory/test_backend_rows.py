"""Memory's own writes store exactly the rows the stock savers' ``aput`` stores.

Memory threads are written by memory's compare-and-put (its own SQL, per
backend) into the stock savers' tables. If that drifted from the stock format
after an upstream release, ``aget_state`` would misread memory threads: each
test writes the same checkpoints both ways on a real database and compares the
stored rows and what the stock saver reads back.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import psycopg
import pytest

from aimind_memory.memory.storage import UNCHANGED, Head, backend_of, open_backend, sqlite_path
from aimind_memory.memory.storage.store import next_head, thread_config

STATES = [
    {
        "messages": [{"id": "u1", "role": "user", "text": "hi"}],
        "summary": "",
        "pinned_decisions": [],
        "last_compacted_at": None,
    },
    {
        "messages": [{"id": "u2", "role": "user", "text": "它 'quoted' \\ text"}],
        "summary": "a summary with 'quotes'",
        "pinned_decisions": ["pin"],
        "last_compacted_at": "2026-11-30T12:00:00+00:00",
    },
]


def _rows(url: str, thread_id: str) -> dict[str, list[Any]]:
    if backend_of(url) == "sqlite":
        with sqlite3.connect(sqlite_path(url)) as conn:
            return {
                "checkpoints": conn.execute(
                    "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata "
                    "FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id",
                    (thread_id,),
                ).fetchall()
            }
    with psycopg.connect(url) as conn:
        return {
            table: conn.execute(
                f"SELECT {columns} FROM {table} WHERE thread_id = %s ORDER BY 1, 2", (thread_id,)
            ).fetchall()
            for table, columns in (
                ("checkpoints", "checkpoint_id, parent_checkpoint_id, checkpoint, metadata"),
                ("checkpoint_blobs", "channel, version, type, blob"),
            )
        }


async def test_memory_writes_the_stock_rows(db_url: str) -> None:
    async with open_backend(db_url) as backend:
        saver, previous = backend.saver, None
        for values in STATES:
            head, versions = next_head(saver, values, previous, {"note": "ours"})
            parent = previous.id if previous else None
            assert await backend.threads.put("chat:ours", head, parent, versions, prune=False)
            config = {"configurable": {**thread_config("chat:stock")["configurable"]}}
            if parent:
                config["configurable"]["checkpoint_id"] = parent
            await saver.aput(config, head.checkpoint, head.metadata, versions)
            previous = head
        ours = await saver.aget_tuple(thread_config("chat:ours"))
        stock = await saver.aget_tuple(thread_config("chat:stock"))
        assert ours.checkpoint == stock.checkpoint
        assert ours.checkpoint["channel_values"] == STATES[-1]
        assert ours.metadata == stock.metadata
        assert (
            ours.parent_config["configurable"]["checkpoint_id"]
            == stock.parent_config["configurable"]["checkpoint_id"]
        )
        read = await backend.threads.latest("chat:ours", None)
        assert isinstance(read, Head) and read.checkpoint == stock.checkpoint
    mine, theirs = _rows(db_url, "chat:ours"), _rows(db_url, "chat:stock")
    assert mine["checkpoints"] and mine == theirs


async def test_put_is_refused_when_the_thread_moved_on(db_url: str) -> None:
    """Two writers read the same latest checkpoint; the second one's put is refused and
    leaves the thread as the first left it, until it writes on top of the new latest."""
    async with open_backend(db_url) as backend:
        saver, threads = backend.saver, backend.threads
        first, v1 = next_head(saver, STATES[0], None)
        late, v2 = next_head(saver, STATES[1], None)  # built before `first` was written
        assert await threads.put("chat:cas", first, None, v1, prune=False)
        assert not await threads.put("chat:cas", late, None, v2, prune=False)
        latest = await threads.latest("chat:cas", None)
        assert isinstance(latest, Head) and latest.id == first.id
        assert latest.checkpoint["channel_values"]["messages"] == STATES[0]["messages"]
        assert await threads.latest("chat:cas", first.id) is UNCHANGED
        retry, v3 = next_head(saver, STATES[1], latest)
        assert await threads.put("chat:cas", retry, first.id, v3, prune=True)
        assert (await saver.aget_tuple(thread_config("chat:cas"))).checkpoint["id"] == retry.id
        kept = [t.checkpoint["id"] async for t in saver.alist(thread_config("chat:cas"))]
        assert kept == [retry.id]  # the prune left the new head only


@pytest.mark.parametrize("backend_name", ["memory"])
async def test_in_process_backend_compares_too(backend_name: str) -> None:
    async with open_backend(backend_name) as backend:
        first, v1 = next_head(backend.saver, STATES[0], None)
        late, v2 = next_head(backend.saver, STATES[1], None)
        assert await backend.threads.put("chat:cas", first, None, v1, prune=False)
        assert not await backend.threads.put("chat:cas", late, None, v2, prune=False)
