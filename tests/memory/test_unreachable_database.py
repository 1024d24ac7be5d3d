"""A PostgreSQL memory cannot reach: opening it raises one error that names
``AIMIND_DATABASE_URL`` and says why, in the project's words (contract §13b), instead of
psycopg's error quoting the host and user, and a warning per failed attempt around it."""

from __future__ import annotations

import logging
import socket
from urllib.parse import urlsplit, urlunsplit

import pytest

from aimind_memory import DatabaseUnreachableError, SettingsError, open_memory
from aimind_memory.memory.storage.pool_log import POOL_LOGGERS

SECRETS = ("nobody-here", "s3cret-pw", "no_such_db")
"""What the URLs below carry that no message may repeat."""


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def refused(url: str, caplog: pytest.LogCaptureFixture) -> str:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(DatabaseUnreachableError) as raised:
        async with open_memory(url):
            pass
    message = str(raised.value)
    assert message.startswith("AIMIND_DATABASE_URL (or the URL given in its place) names")
    assert not any(secret in message for secret in SECRETS), message
    pool_lines = [r for r in caplog.records if r.name in POOL_LOGGERS]
    assert pool_lines == [], [r.getMessage() for r in pool_lines]  # the error says it once
    assert isinstance(raised.value, SettingsError)  # a server's start stops with its sentence
    assert isinstance(raised.value, ConnectionError)
    return message


async def test_nothing_listening_at_the_host_and_port(caplog: pytest.LogCaptureFixture) -> None:
    url = f"postgresql://nobody-here:s3cret-pw@127.0.0.1:{closed_port()}/no_such_db"
    message = await refused(url, caplog)
    assert "nothing accepts connections at its host and port" in message
    assert str(urlsplit(url).port) not in message


async def test_a_host_name_that_does_not_resolve(caplog: pytest.LogCaptureFixture) -> None:
    message = await refused("postgresql://nobody-here:s3cret-pw@no-such-host.invalid/x", caplog)
    assert "its host name does not resolve" in message and "invalid" not in message


async def test_a_database_the_server_does_not_have(
    pg_server_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The real server answers, and refuses the login: the reason, not its words."""
    url = urlunsplit(urlsplit(pg_server_url)._replace(path="/no_such_db"))
    message = await refused(url, caplog)
    assert "the server has no such user or database" in message
