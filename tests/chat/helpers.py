"""Helpers for the chat-graph tests: raw storage bytes, message builders, event capture."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import psycopg

from aimind_memory.memory.storage import backend_of, sqlite_path

TOKEN = "chat-test-session-0001"
SQLITE_TABLES = ("checkpoints", "writes")
POSTGRES_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


def _as_bytes(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False).encode()
    return str(value).encode()


def raw_storage_bytes(url: str) -> bytes:
    """Every byte of every checkpoint table, exactly as stored (no deserialisation)."""
    rows: list[tuple[Any, ...]] = []
    if backend_of(url) == "sqlite":
        with sqlite3.connect(sqlite_path(url)) as conn:
            for table in SQLITE_TABLES:
                rows += conn.execute(f"SELECT * FROM {table}").fetchall()
    else:
        with psycopg.connect(url) as conn:
            for table in POSTGRES_TABLES:
                rows += conn.execute(f"SELECT * FROM {table}").fetchall()
    return b"\x00".join(_as_bytes(value) for row in rows for value in row)


def user(text: str, message_id: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "user", "content": text}
    if message_id:
        message["id"] = message_id
    return message


def status_events(chunks: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [
        event
        for mode, event in chunks
        if mode == "custom"
        and isinstance(event, dict)
        and event.get("type") == "thread-memory-status"
    ]


async def drop_archive(url: str) -> None:
    """Take the archive's table away under a running service: recall then fails for real."""
    if backend_of(url) == "sqlite":
        with sqlite3.connect(sqlite_path(url)) as conn:
            conn.execute("DROP TABLE aimind_archive")
    else:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            await conn.execute("DROP TABLE aimind_archive")
