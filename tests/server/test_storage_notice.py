"""The line a server logs at start about where memory lives (``adapters.server.storage_notice``):
paths a person can check, never a password or the secret itself. The line as a real
``langgraph dev`` says it: ``tests/server/test_own_agent.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimind_memory.adapters.server.storage_notice import describe_database, storage_notice

SECRET_VALUE = "notice-secret-value-that-must-not-show-0001"


def test_a_postgres_url_is_shown_without_user_password_or_options() -> None:
    said = describe_database("postgresql://aimind:pw-9f3e@db.internal:5433/memory?sslmode=require")
    assert said == "PostgreSQL db.internal:5433/memory"


def test_a_relative_sqlite_file_is_shown_where_it_is() -> None:
    assert describe_database("sqlite:///data/aimind.sqlite") == (
        f"SQLite file {Path.cwd() / 'data' / 'aimind.sqlite'}"
    )


def test_a_url_memory_cannot_use_is_not_repeated() -> None:
    assert "mysql" not in describe_database("mysql://root:pw@host/db")


def test_a_secret_from_the_environment_is_named_not_shown(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AIMIND_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AIMIND_DATABASE_URL", f"sqlite:///{tmp_path / 'm.sqlite'}")
    monkeypatch.setenv("AIMIND_SESSION_SECRET", SECRET_VALUE)
    line = storage_notice()
    assert "session secret from AIMIND_SESSION_SECRET" in line and SECRET_VALUE not in line
    assert f"data folder {tmp_path} (from AIMIND_DATA_DIR)" in line
