"""The PostgreSQL connection pool that memory and the server's saver share (SPEC §10, §15).

psycopg's pool, set up for what psycopg's defaults do not cover:

- **PgBouncer in transaction pooling.** No prepared statements
  (``prepare_threshold=None``): a prepared statement lives in one server session,
  which the client's next transaction may not get (``DuplicatePreparedStatement``,
  or "prepared statement does not exist"). Nothing else is kept across transactions
  either: no ``SET``, no session advisory lock (``postgres.py`` takes only
  transaction-scoped ones).
- **A restart.** Pooled connections to the old server are dead. A checkout tests a
  connection idle for a while, or with input waiting (the server's goodbye).
"""

from __future__ import annotations

import math
import os
import select
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from memory.limits import (
    PG_POOL_MAX,
    PG_POOL_MAX_ENV,
    PG_POOL_TIMEOUT_ENV,
    PG_POOL_TIMEOUT_S,
    POOL_RECHECK_AFTER_S,
)

__all__ = ["CONNECTION_KWARGS", "MemoryPool", "open_pg_pool"]

CONNECTION_KWARGS: dict[str, Any] = {
    "autocommit": True,
    "prepare_threshold": None,
    "row_factory": dict_row,
}
"""What ``AsyncPostgresSaver`` expects of a connection, and no prepared statements."""


class MemoryPool(AsyncConnectionPool):
    """psycopg's pool with the checkout test."""

    def __init__(self, url: str, *, max_size: int, timeout: float):
        self._used: weakref.WeakKeyDictionary[AsyncConnection, float] = weakref.WeakKeyDictionary()
        super().__init__(
            url,
            min_size=1,
            max_size=max_size,
            open=False,
            timeout=timeout,
            kwargs=CONNECTION_KWARGS,
            check=self._check,
            reset=self._mark_used,
        )

    async def _check(self, conn: AsyncConnection) -> None:
        """Checkout test, skipped for a connection used within ``POOL_RECHECK_AFTER_S``
        with nothing to read: testing every checkout costs a round trip per call."""
        idle = time.monotonic() - self._used.get(conn, -math.inf)
        if idle > POOL_RECHECK_AFTER_S or _has_pending_input(conn):
            await conn.execute("", prepare=False)

    async def _mark_used(self, conn: AsyncConnection) -> None:
        """``reset`` hook: runs when a healthy connection comes back."""
        self._used[conn] = time.monotonic()


def _has_pending_input(conn: AsyncConnection) -> bool:
    """An idle connection has nothing to read; one whose server went away has its FATAL
    notice or EOF waiting."""
    try:
        readable, _, _ = select.select([conn.pgconn.socket], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


@asynccontextmanager
async def open_pg_pool(url: str, max_size: int | None = None) -> AsyncIterator[MemoryPool]:
    """The pool, open, its first connection made."""
    pool = MemoryPool(
        url,
        max_size=max_size or int(os.environ.get(PG_POOL_MAX_ENV) or PG_POOL_MAX),
        timeout=float(os.environ.get(PG_POOL_TIMEOUT_ENV) or PG_POOL_TIMEOUT_S),
    )
    await pool.open(wait=True, timeout=30)
    try:
        yield pool
    finally:
        await pool.close()
