"""psycopg's pool logs without the database's words: no log line carries a raw database
error (contract §4 says it of responses; the project holds its logs to it too).

While PostgreSQL is down or restarting, psycopg's pool logs a warning for each failed
attempt — "error connecting in 'pool-3': connection to server at "db.internal" (10.0.0.7),
port 5432 failed: FATAL: password authentication failed for user "aimind"" — and for each
connection it discards, with the connection's host and database. Those are the server's
words (a host, a user, a socket path, and for a failed query its text). The records are
kept, at their level, with each error said by its type and each connection as
``<connection>``: what happened and how often, not what the server said.
"""

from __future__ import annotations

import logging

from psycopg import BaseConnection

POOL_LOGGERS = ("psycopg.pool", "psycopg_pool.sched", "psycopg_pool.sched_async")
"""The loggers psycopg's pool writes to (``psycopg_pool``'s modules name them)."""


def _plain(arg: object) -> object:
    """An argument of a pool's log record as it may be logged."""
    if isinstance(arg, BaseException):
        return type(arg).__name__
    if isinstance(arg, BaseConnection):
        return "<connection>"
    return arg


class PlainPoolLog(logging.Filter):
    """Says each error in a pool's record by its type and each connection as ``<connection>``."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(_plain(a) for a in record.args)
        record.exc_info = record.exc_text = None
        return True


class QuietWhileOpening(logging.Filter):
    """Drops the records of a pool still opening (its name in ``OPENING``): opening memory
    on a database it cannot reach raises one error that names the setting and says why
    (``DatabaseUnreachableError``), instead of a warning per failed attempt around it."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not (args and args[0] in OPENING)


OPENING: set[str] = set()
"""Names of the pools being opened (``pg_pool.open_pg_pool``)."""
_FILTER = PlainPoolLog()
_QUIET = QuietWhileOpening()


def plain_pool_logs() -> None:
    """Put the filter on the pool's loggers (once: adding the same filter again does nothing)."""
    for name in POOL_LOGGERS:
        logging.getLogger(name).addFilter(_QUIET)
        logging.getLogger(name).addFilter(_FILTER)
