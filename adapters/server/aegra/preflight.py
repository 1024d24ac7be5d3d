"""Before a production replica starts (``scripts/serve-prod.sh``, contract §15).

``python -m adapters.server.aegra.preflight`` checks the replica's configuration — the
variables of contract §15 — and that its PostgreSQL and Redis answer, then exits 0
(the script then starts Aegra), or prints one sentence naming what is wrong and
exits 1. No traceback, before anything is started. (The schema is set up by
Aegra's own start-up, one replica at a time: ``adapters.server.aegra.start``.)
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Mapping

import psycopg

from memory.session import SECRET_ENV, SECRET_MIN_CHARS

__all__ = ["ConfigError", "check", "check_environment", "main"]

DATABASE_ENV = "AIMIND_DATABASE_URL"
REDIS_ENV = "REDIS_URL"
PORT_ENV = "PORT"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
CONNECT_TIMEOUT_S = 10
TTL_ENVS = ("AEGRA_THREAD_TTL", "LANGGRAPH_THREAD_TTL")
"""Aegra's thread TTL for every thread (the first one set wins): minutes, or a JSON object."""


class ConfigError(RuntimeError):
    """A replica cannot start; the message is one sentence for the operator."""


_URLS = (
    (
        DATABASE_ENV,
        POSTGRES_SCHEMES,
        "the postgresql://… URL of the database every replica shares",
        "a postgresql://… URL in production (the replicas share one PostgreSQL)",
    ),
    (
        REDIS_ENV,
        REDIS_SCHEMES,
        "the redis://… URL of the Redis every replica shares",
        "a redis://, rediss:// or unix:// URL",
    ),
)
"""(variable, schemes, what to set it to, what it must be) for the URLs a replica needs."""


def check_environment(environ: Mapping[str, str] = os.environ) -> None:
    """Raise ConfigError naming the first variable of contract §15 that is missing or malformed."""
    for name, schemes, wanted, shape in _URLS:
        value = environ.get(name, "").strip()
        if not value:
            raise ConfigError(f"{name} is not set: set it to {wanted}.")
        if not value.startswith(schemes):
            raise ConfigError(f"{name} must be {shape}.")
    secret = environ.get(SECRET_ENV, "")
    if not secret:
        raise ConfigError(
            f"{SECRET_ENV} is not set: set it to the same random string of at least "
            f"{SECRET_MIN_CHARS} characters on every replica (e.g. `python3 -c 'import "
            "secrets; print(secrets.token_urlsafe(48))'`)."
        )
    if len(secret) < SECRET_MIN_CHARS:
        raise ConfigError(f"{SECRET_ENV} must be at least {SECRET_MIN_CHARS} characters.")
    port = environ.get(PORT_ENV, "").strip()
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise ConfigError(f"{PORT_ENV} must be a port number (1-65535), not {port!r}.")
    _check_thread_ttl(environ)


def _check_thread_ttl(environ: Mapping[str, str]) -> None:
    """An operator's ``keep_latest`` TTL would prune every chat thread to its latest
    checkpoint on each sweep, and a chat thread keeps its transcript in a ``DeltaChannel``:
    every conversation would empty (``adapters.server.body_rules`` refuses it per thread)."""
    for name in TTL_ENVS:
        raw = environ.get(name, "").strip()
        if not raw:
            continue
        try:
            setting = json.loads(raw)
        except ValueError:
            return  # minutes: the delete strategy; Aegra checks the rest at its start
        if isinstance(setting, dict) and setting.get("strategy") == "keep_latest":
            raise ConfigError(
                f"{name} must not use the keep_latest strategy: it would empty every chat "
                "thread's transcript; use the delete strategy, or no TTL."
            )
        return


async def _check_redis(url: str) -> None:
    from redis.asyncio import Redis
    from redis.exceptions import RedisError

    client = Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT_S)
    try:
        await client.ping()
    except (RedisError, OSError):
        raise ConfigError(
            f"The Redis at {REDIS_ENV} does not answer: check that it runs and that the URL "
            "is right."
        ) from None
    finally:
        await client.aclose()


async def _check_database(url: str) -> None:
    try:
        conn = await psycopg.AsyncConnection.connect(url, connect_timeout=CONNECT_TIMEOUT_S)
    except (psycopg.Error, OSError):
        raise ConfigError(
            f"The database at {DATABASE_ENV} does not answer: check that PostgreSQL runs and "
            "that the URL, user and password are right."
        ) from None
    await conn.close()


async def check(environ: Mapping[str, str] = os.environ) -> None:
    """Everything a replica needs before it starts; raises ConfigError."""
    check_environment(environ)
    await _check_database(environ[DATABASE_ENV].strip())
    await _check_redis(environ[REDIS_ENV].strip())


def main() -> int:
    try:
        asyncio.run(check(os.environ))
    except ConfigError as exc:
        print(f"serve-prod: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
