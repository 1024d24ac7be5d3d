"""Where memory keeps its files by default: one place for the data folder."""

from __future__ import annotations

DEFAULT_DATABASE_URL = "sqlite:///.aimind/aimind.sqlite"


def default_database_url() -> str:
    """The embedded SQLite database used when ``AIMIND_DATABASE_URL`` is unset."""
    return DEFAULT_DATABASE_URL
