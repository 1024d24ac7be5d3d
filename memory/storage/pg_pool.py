"""The PostgreSQL connection pool that memory and the server's saver share (contract §10, §15).

psycopg's pool, set up for what psycopg's defaults do not cover:

- **PgBouncer in transaction pooling.** No prepared statements
  (``prepare_threshold=None``): a prepared statement lives in one server session,
  which the client's next transaction may not get (``DuplicatePreparedStatement``,
  or "prepared statement does not exist"). Nothing else is kept across transactions
  either: no ``SET``, no session advisory lock (``postgres.py`` takes only
  transaction-scoped ones).
- **An outage.** psycopg retries a lost connection in the background with a
  backoff that doubles (1, 2, 4 … s, for ``reconnect_timeout``: 300 s), and a caller
  waits for a connection the pool's whole ``timeout`` whatever happens. So during
  an outage every memory call waited ``AIMIND_PG_POOL_TIMEOUT_S`` (two per turn:
  60 s), and writes came back 20–30 s after the database did. Here the background
  retries stop after ``AIMIND_PG_RECONNECT_TIMEOUT_S`` and report the database
  unreachable (``reconnect_failed``): memory's calls waiting for a connection stop at
  once (``DatabaseUnreachable``: the turn goes on without memory), and the next call
  starts a new attempt at once (the pool grows on demand), so writes resume with the
  first call after the database is back. Calls of the stock saver keep the pool's
  ``timeout``.
- **A restart.** Pooled connections to the old server are dead. A checkout tests a
  connection idle for a while, or with input waiting (the server's goodbye); the
  first dead one has every pooled connection tested at once (``pool.check()``), so
  one call does not meet them one by one, each after a longer pause.
- **PostgreSQL down behind PgBouncer.** Connections are made (PgBouncer answers),
  but their first query fails: that too reports the database unreachable. A query
  PgBouncer holds waits its ``query_wait_timeout`` (120 s by default: set a few
  seconds, see the README).
"""

from __future__ import annotations

import asyncio
import math
import select
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from aimind_memory.memory.config.limits import PG_OPEN_CHECK_S, POOL_RECHECK_AFTER_S
from aimind_memory.memory.config.settings import MemorySettings, memory_settings
from aimind_memory.memory.errors import DatabaseUnreachableError
from aimind_memory.memory.storage.pool_log import OPENING, plain_pool_logs

__all__ = [
    "CONNECTION_KWARGS",
    "DatabaseUnreachable",
    "DictConnection",
    "MemoryPool",
    "open_pg_pool",
    "unreachable_error",
]

CONNECTION_KWARGS: dict[str, Any] = {
    "autocommit": True,
    "prepare_threshold": None,
    "row_factory": dict_row,
}
"""What ``AsyncPostgresSaver`` expects of a connection, and no prepared statements."""

DictConnection = AsyncConnection[DictRow]
"""The pool's connections: rows come back as dicts (``CONNECTION_KWARGS``)."""


class DatabaseUnreachable(PoolTimeout):
    """The pool failed to reach the database while a call waited for a connection."""

    def __init__(self) -> None:
        super().__init__("the database is unreachable")


class MemoryPool(AsyncConnectionPool[DictConnection]):
    """psycopg's pool with the checkout test, the restart purge and the outage signal."""

    def __init__(self, url: str, *, max_size: int, timeout: float, reconnect_timeout: float):
        self._used: weakref.WeakKeyDictionary[DictConnection, float] = weakref.WeakKeyDictionary()
        self._unreachable = asyncio.Event()
        self._purge: asyncio.Task[None] | None = None
        super().__init__(
            url,
            min_size=1,
            max_size=max_size,
            open=False,
            timeout=timeout,
            kwargs=CONNECTION_KWARGS,
            check=self._check,
            reset=self._mark_used,
            reconnect_timeout=reconnect_timeout,
            reconnect_failed=self._report_unreachable,
        )

    @asynccontextmanager
    async def reachable_connection(self) -> AsyncIterator[DictConnection]:
        """A pooled connection, as ``connection()`` gives; but ``DatabaseUnreachable`` as
        soon as the pool fails to reach the database meanwhile, instead of waiting out
        the pool's timeout on a database that is gone."""
        conn = await self._getconn_or_unreachable()
        try:
            async with conn:
                yield conn
        finally:
            await self.putconn(conn)

    async def _getconn_or_unreachable(self) -> DictConnection:
        failed = self._unreachable  # the next report only: this call may start the attempt
        getting = asyncio.ensure_future(self.getconn())
        watching = asyncio.ensure_future(failed.wait())
        try:
            await asyncio.wait((getting, watching), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            await self._abandon(getting)
            raise
        finally:
            watching.cancel()
        if not getting.done():
            await self._abandon(getting)
            raise DatabaseUnreachable()
        return getting.result()

    async def _abandon(self, getting: asyncio.Future[DictConnection]) -> None:
        """Stop waiting for a connection; one that came meanwhile goes back to the pool."""
        getting.cancel()
        outcome = (await asyncio.gather(getting, return_exceptions=True))[0]
        if isinstance(outcome, AsyncConnection):
            await self.putconn(outcome)

    def _report_unreachable(self, pool: AsyncConnectionPool[DictConnection]) -> None:
        """``reconnect_failed``: wake every call waiting for a connection."""
        failed, self._unreachable = self._unreachable, asyncio.Event()
        failed.set()

    async def _check(self, conn: DictConnection) -> None:
        """Checkout test, skipped for a connection used within ``POOL_RECHECK_AFTER_S``
        with nothing to read: testing every checkout costs a round trip per call.

        A connection with input waiting is a leftover of a server that said goodbye (it
        stopped, or restarted): if it fails, the others are tested at once. One that
        looked fine and fails means the database does not answer though connections
        are made: behind PgBouncer, whose logins succeed while PostgreSQL is down.
        """
        goodbye = _has_pending_input(conn)
        idle = time.monotonic() - self._used.get(conn, -math.inf)
        if goodbye or idle > POOL_RECHECK_AFTER_S:
            try:
                await conn.execute("", prepare=False)
            except Exception:
                if not goodbye:
                    self._report_unreachable(self)
                elif self._purge is None or self._purge.done():
                    self._purge = asyncio.ensure_future(self.check())
                raise

    async def _mark_used(self, conn: DictConnection) -> None:
        """``reset`` hook: runs when a healthy connection comes back."""
        self._used[conn] = time.monotonic()

    async def close(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109 (psycopg's signature)
        """Stop a purge under way, then close as psycopg does."""
        if self._purge is not None:
            self._purge.cancel()
            await asyncio.gather(self._purge, return_exceptions=True)
        await super().close(timeout)


def _has_pending_input(conn: DictConnection) -> bool:
    """An idle connection has nothing to read; one whose server went away has its FATAL
    notice or EOF waiting."""
    try:
        readable, _, _ = select.select([conn.pgconn.socket], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


@asynccontextmanager
async def open_pg_pool(url: str, max_size: int | None = None) -> AsyncIterator[MemoryPool]:
    """The pool, open (its first connection is made in the background: a call that needs
    one waits for it, or learns at once that the database is unreachable). Its failed
    attempts are not logged until ``opened(pool)``: opening says why in one error."""
    settings = memory_settings()
    plain_pool_logs()
    pool = MemoryPool(
        url,
        max_size=max_size or settings.pg_pool_max,
        timeout=settings.pg_pool_timeout_s,
        reconnect_timeout=settings.pg_reconnect_timeout_s,
    )
    OPENING.add(pool.name)
    await pool.open()
    try:
        yield pool
    finally:
        await pool.close()  # quiet still if it never opened: its last attempts end here
        opened(pool)


def opened(pool: MemoryPool) -> None:
    """The pool reached its database once: from now on, its failed attempts are logged."""
    OPENING.discard(pool.name)


UNREACHABLE_REASONS: tuple[tuple[str, str], ...] = (
    ("failed to resolve host", "its host name does not resolve"),
    ("could not translate host name", "its host name does not resolve"),
    ("Connection refused", "nothing accepts connections at its host and port"),
    ("No such file or directory", "no server listens on its socket"),
    ("password authentication failed", "the server refused its user or password"),
    ("no password supplied", "the server wants a password and the URL gives none"),
    ("does not exist", "the server has no such user or database"),
    ("timeout expired", f"the server did not answer within {PG_OPEN_CHECK_S:g} s"),
    ("SSL", "the connection's SSL negotiation failed"),
)
"""A failed connection's message (libpq's words) → what the error says of it; the server's
words themselves (its host, user, database) are never repeated."""


async def unreachable_error(url: str) -> DatabaseUnreachableError:
    """Why the pool could not reach ``url``'s database, as one sentence naming
    ``AIMIND_DATABASE_URL``: one direct connection, for at most ``PG_OPEN_CHECK_S``."""
    try:
        conn = await asyncio.wait_for(
            AsyncConnection.connect(
                url, **CONNECTION_KWARGS, connect_timeout=max(2, math.ceil(PG_OPEN_CHECK_S))
            ),
            PG_OPEN_CHECK_S,
        )
    except TimeoutError:
        reason = f"the server did not answer within {PG_OPEN_CHECK_S:g} s"
    except Exception as exc:  # psycopg's, or the OS's: said by kind, never quoted
        words = str(exc)
        reason = next(
            (said for found, said in UNREACHABLE_REASONS if found in words),
            f"the connection failed ({type(exc).__name__})",
        )
    else:
        await conn.close()
        reason = "the pool could not connect, then a direct connection could: it may be starting"
    name = MemorySettings.env_name("database_url")
    return DatabaseUnreachableError(
        f"{name} (or the URL given in its place) names a PostgreSQL database memory could "
        f"not reach: {reason}. Check that it runs, and the URL's host, port, user, "
        "password and database name."
    )
