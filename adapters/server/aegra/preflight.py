"""Before a production replica starts (``scripts/serve-prod.sh``, contract §15).

``python -m aimind_memory.adapters.server.aegra.preflight`` checks the replica's configuration — the
variables of contract §15, and every other setting (``adapters.settings``) — and that its
PostgreSQL and Redis answer, then exits 0
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

from aimind_memory.adapters.errors import ConfigError
from aimind_memory.adapters.settings import ScriptSettings, check_settings, script_settings
from aimind_memory.memory.config.settings import SECRET_MIN_CHARS, MemorySettings, memory_settings
from aimind_memory.memory.errors import SettingsError
from aimind_memory.memory.session import SECRET_ENV

__all__ = ["ConfigError", "check", "check_environment", "main", "replica_urls"]

DATABASE_ENV = MemorySettings.env_name("database_url")
REDIS_ENV = ScriptSettings.env_name("redis_url")
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
CONNECT_TIMEOUT_S = 10
TTL_ENVS = ("AEGRA_THREAD_TTL", "LANGGRAPH_THREAD_TTL")
"""Aegra's thread TTL for every thread (the first one set wins): minutes, or a JSON object."""


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


def replica_urls(environ: Mapping[str, str] | None = None) -> tuple[str, str]:
    """The database's and the Redis's URL; raises ConfigError naming the first variable of
    contract §15 that is missing or malformed, or else the first other setting that is."""
    try:  # every setting's type and range: the secret's length, PORT, the limits, …
        check_settings(environ)
        memory, scripts = memory_settings(environ), script_settings(environ)
    except SettingsError as exc:
        raise ConfigError(str(exc)) from None
    redis = scripts.redis_url.get_secret_value().strip() if scripts.redis_url else ""
    urls = {DATABASE_ENV: memory.database or "", REDIS_ENV: redis}
    for name, schemes, wanted, shape in _URLS:
        if not urls[name]:
            raise ConfigError(f"{name} is not set: set it to {wanted}.")
        if not urls[name].startswith(schemes):
            raise ConfigError(f"{name} must be {shape}.")
    if memory.session_secret is None:
        raise ConfigError(
            f"{SECRET_ENV} is not set: set it to the same random string of at least "
            f"{SECRET_MIN_CHARS} characters on every replica (e.g. `python3 -c 'import "
            "secrets; print(secrets.token_urlsafe(48))'`)."
        )
    _check_thread_ttl(os.environ if environ is None else environ)
    return urls[DATABASE_ENV], urls[REDIS_ENV]


def check_environment(environ: Mapping[str, str] | None = None) -> None:
    """Raise ConfigError naming the first variable that stops a replica (``replica_urls``)."""
    replica_urls(environ)


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


async def check(environ: Mapping[str, str] | None = None) -> None:
    """Everything a replica needs before it starts; raises ConfigError."""
    database, redis = replica_urls(environ)
    await _check_database(database)
    await _check_redis(redis)


def main() -> int:
    try:
        asyncio.run(check())
    except ConfigError as exc:
        print(f"serve-prod: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
