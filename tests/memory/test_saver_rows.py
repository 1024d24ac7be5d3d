"""Memory's shortcut writes store exactly the rows the stock savers' ``aput`` stores.

The compare-and-puts (Postgres: lock, checkpoint, blobs and COMMIT in one round trip;
SQLite: one hop to the connection's thread) and the SQLite ``aput`` (one hop fewer)
are our own code over langgraph's tables: if
they drifted from the stock format, ``aget_state`` and Studio would misread
memory threads. Each test writes the same two checkpoints both ways, on a real
database, and compares the stored rows and what the stock saver reads back.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from memory.checkpointer import open_checkpointer, open_pg_pool, sqlite_path
from memory.store import next_checkpoint, thread_config

STATES = [
    {
        "messages": [{"id": "u1", "role": "user", "text": "hi"}],
        "summary": "",
        "pinned_decisions": [],
    },
    {
        "messages": [{"id": "u2", "role": "user", "text": "它 'quoted' \\ text"}],
        "summary": "a summary with 'quotes'",
        "pinned_decisions": ["pin"],
    },
]


async def _write_both(ours: Any, stock: Any, put_ours: Any) -> tuple[str, str]:
    """The same checkpoints on thread ``ours`` (our write) and ``stock`` (stock ``aput``)."""
    previous: dict[str, Any] = {}
    for values in STATES:
        for thread_id, saver, put in (
            ("chat:ours", ours, put_ours),
            ("chat:stock", stock, stock.aput),
        ):
            config, checkpoint, metadata, versions = next_checkpoint(
                ours, thread_id, values, previous.get(thread_id)
            )
            if thread_id == "chat:stock" and "chat:ours" in previous:
                # identical ids and versions on both threads, so the rows can be compared
                mine = previous["chat:ours"].checkpoint
                checkpoint = {**checkpoint, "id": mine["id"], "ts": mine["ts"]}
                checkpoint["channel_versions"] = dict(mine["channel_versions"])
                versions = {k: mine["channel_versions"][k] for k in versions}
            await put(config, checkpoint, metadata, versions)
            previous[thread_id] = await saver.aget_tuple(thread_config(thread_id))
    return "chat:ours", "chat:stock"


def _same_reads(a: Any, b: Any) -> None:
    assert a.checkpoint == b.checkpoint
    assert a.metadata == b.metadata
    assert (
        a.parent_config["configurable"]["checkpoint_id"]
        == (b.parent_config["configurable"]["checkpoint_id"])
    )


async def test_postgres_write_stores_the_stock_rows(pg_url: str) -> None:
    async with open_checkpointer(pg_url) as ours, open_pg_pool(pg_url) as pool:
        stock = AsyncPostgresSaver(pool)

        async def put_ours(*args: Any) -> None:
            assert await ours.aput_if_latest(*args)

        mine, theirs = await _write_both(ours, stock, put_ours)
        _same_reads(
            await stock.aget_tuple(thread_config(mine)),
            await stock.aget_tuple(thread_config(theirs)),
        )
    with psycopg.connect(pg_url) as conn:
        for table, columns in (
            ("checkpoints", "checkpoint_id, parent_checkpoint_id, checkpoint, metadata"),
            ("checkpoint_blobs", "channel, version, type, blob"),
        ):
            rows = {
                tid: conn.execute(
                    f"SELECT {columns} FROM {table} WHERE thread_id = %s ORDER BY 1, 2", (tid,)
                ).fetchall()
                for tid in (mine, theirs)
            }
            assert rows[mine] and rows[mine] == rows[theirs], table


@pytest.mark.parametrize("put", ["aput", "aput_if_latest"])
async def test_sqlite_writes_store_the_stock_row(sqlite_url: str, put: str) -> None:
    import aiosqlite

    async with (
        open_checkpointer(sqlite_url) as ours,
        aiosqlite.connect(sqlite_path(sqlite_url)) as conn,
    ):
        stock = AsyncSqliteSaver(conn)

        async def put_ours(*args: Any) -> None:
            assert await getattr(ours, put)(*args)  # a config, or True: written

        mine, theirs = await _write_both(ours, stock, put_ours)
        _same_reads(
            await stock.aget_tuple(thread_config(mine)),
            await stock.aget_tuple(thread_config(theirs)),
        )
        query = (
            "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata "
            "FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id"
        )
        rows = {tid: await conn.execute_fetchall(query, (tid,)) for tid in (mine, theirs)}
    assert rows[mine] and list(rows[mine]) == list(rows[theirs])


async def test_put_is_refused_when_the_thread_moved_on(db_url: str) -> None:
    """Two writers read the same latest checkpoint; the second one's put is refused and
    leaves the thread as the first left it, until it writes on top of the new latest."""
    async with open_checkpointer(db_url) as saver:
        first = next_checkpoint(saver, "chat:cas", STATES[0], None)
        late = next_checkpoint(saver, "chat:cas", STATES[1], None)  # read before `first`
        assert await saver.aput_if_latest(*first)
        assert not await saver.aput_if_latest(*late)
        latest = await saver.aget_tuple(thread_config("chat:cas"))
        assert latest.checkpoint["id"] == first[1]["id"]
        assert latest.checkpoint["channel_values"]["messages"] == STATES[0]["messages"]
        retry = next_checkpoint(saver, "chat:cas", STATES[1], latest)
        assert await saver.aput_if_latest(*retry)
        assert (await saver.alatest_checkpoint_id("chat:cas")) == retry[1]["id"]
