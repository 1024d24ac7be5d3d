"""The bench's PostgreSQL round-trip counter, against a real server (``bench/pgwire.py``)."""

from __future__ import annotations

import struct

import psycopg
from psycopg_pool import AsyncConnectionPool

from bench.pgwire import RoundTripCounter, WireCounts, _Conversation, statement_kind


async def test_counts_round_trips_not_statements(pg_url: str) -> None:
    async with RoundTripCounter(pg_url) as proxy:
        conn = await psycopg.AsyncConnection.connect(proxy.url(pg_url), autocommit=True)
        async with conn:
            opened = proxy.take()
            query = b"CREATE TABLE t (x int); INSERT INTO t VALUES (1); SELECT count(*) FROM t"
            await conn.execute(query, prepare=False)
            multi = proxy.take()
            await conn.execute("SELECT %s::int", (1,))
            await conn.execute("SELECT %s::int", (2,))
            two = proxy.take()
            async with conn.pipeline(), conn.cursor() as cur:
                await cur.executemany("INSERT INTO t VALUES (%s)", [(i,) for i in range(5)])
                await cur.execute("INSERT INTO t VALUES (%s)", (9,))
            pipelined = proxy.take()
            rows = await (await conn.execute("SELECT count(*) FROM t")).fetchone()

    assert (opened.connects, opened.round_trips) == (1, 0)
    assert (multi.round_trips, multi.requests) == (1, 1)  # three statements, one Query
    assert two.round_trips == 2 and dict(two.kinds) == {"read": 2}
    assert pipelined.round_trips == 1  # six inserts sent without waiting in between
    assert rows == (7,)  # the proxy passed everything through


async def test_a_pool_health_check_is_a_round_trip_of_its_own(pg_url: str) -> None:
    async with RoundTripCounter(pg_url) as proxy:
        pool = AsyncConnectionPool(
            proxy.url(pg_url),
            min_size=1,
            open=False,
            kwargs={"autocommit": True},
            check=AsyncConnectionPool.check_connection,
        )
        await pool.open(wait=True)
        async with pool:
            proxy.take()
            async with pool.connection() as conn:
                await conn.execute("SELECT 1")
            counts = proxy.take()

    assert counts.round_trips == 2
    assert dict(counts.kinds) == {"check": 1, "read": 1}


def test_statement_kinds() -> None:
    write = "SELECT pg_advisory_xact_lock(1); INSERT INTO checkpoints (thread_id) SELECT 'a'"
    assert statement_kind(write) == "write"
    assert statement_kind("  SELECT c.checkpoint_id FROM checkpoints c") == "read"
    assert statement_kind("") == "check"
    assert statement_kind("DELETE FROM checkpoints") == "delete"


def _msg(kind: bytes, body: bytes = b"") -> bytes:
    return kind + struct.pack("!i", 4 + len(body)) + body


def test_requests_sent_before_the_answers_ride_on_one_round_trip() -> None:
    counts = WireCounts()
    conversation = _Conversation(lambda: counts)
    startup = struct.pack("!ii", 8 + 5, 196608) + b"u\0x\0\0"
    conversation.from_client(startup)
    conversation.from_server(_msg(b"R", struct.pack("!i", 0)) + _msg(b"Z", b"I"))
    batch = _msg(b"P", b"s1\0SELECT 1\0\0\0") + _msg(b"B", b"\0s1\0" + b"\0" * 6) + _msg(b"E")
    # a pipeline: two batches, each ending in Sync, before any answer comes back
    conversation.from_client(batch + _msg(b"S"))
    conversation.from_client(_msg(b"B", b"\0s1\0" + b"\0" * 6) + _msg(b"E") + _msg(b"S"))
    conversation.from_server(_msg(b"Z", b"I"))
    conversation.from_server(_msg(b"Z", b"I"))
    # then a simple query, after both answers: the client waited, a round trip
    conversation.from_client(_msg(b"Q", b"INSERT INTO checkpoints VALUES (1)\0"))

    assert counts.connects == 1
    assert (counts.requests, counts.round_trips) == (3, 2)
    assert dict(counts.kinds) == {"read": 1, "write": 1}
