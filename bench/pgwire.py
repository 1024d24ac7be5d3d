"""Counting PostgreSQL round trips on the wire: a loopback proxy in front of the server.

Memory's pool, the stock savers' pools and the pool's own health checks are all
built inside the code under test, so the bench counts where nothing can hide:
every connection goes through this proxy, which reads the frontend protocol
(https://www.postgresql.org/docs/current/protocol-flow.html). A request is a
``Query`` message (simple protocol: one round trip however many statements it
carries) or a ``Sync`` (extended protocol: ends a Parse/Bind/Execute batch); the
server answers each with one ``ReadyForQuery``. A round trip is a request sent
while no earlier request of that connection is unanswered: the client waited
for the server before it. Requests sent behind unanswered ones (a pipeline) ride
on the round trip already counted. Opening a connection is counted apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

SSL_REQUEST = 80877103
GSSENC_REQUEST = 80877104
CANCEL_REQUEST = 80877102
_CHUNK = 65536


@dataclass
class WireCounts:
    """What the clients asked of the server since the counts were last taken."""

    round_trips: int = 0
    requests: int = 0
    connects: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    """Round trips by what their first statement does (``statement_kind``)."""

    def as_dict(self) -> dict[str, object]:
        return {
            "round_trips": self.round_trips,
            "requests": self.requests,
            "connects": self.connects,
            "kinds": dict(sorted(self.kinds.items())),
        }


def statement_kind(sql: str) -> str:
    """``write`` (a checkpoint insert, whatever runs beside it), ``read``, ``check``
    (the pool's empty health-check query), else the statement's first word."""
    text = " ".join(sql.split()).lower()
    if not text:
        return "check"
    if "insert into checkpoint" in text:
        return "write"
    if text.startswith(("select", "with")):
        return "read"
    return text.split(" ", 1)[0]


class _Conversation:
    """One client connection's protocol state, as seen from the proxy."""

    def __init__(self, counts: Callable[[], WireCounts]) -> None:
        self._counts = counts
        self._client = b""
        self._server = b""
        self._started = False
        self._single_byte_answers = 0
        self._outstanding = 0
        self._statements: dict[str, str] = {}
        self._batch: str | None = None

    def _request(self, sql: str) -> None:
        counts = self._counts()
        if self._outstanding == 0:
            counts.round_trips += 1
            counts.kinds[statement_kind(sql)] += 1
        counts.requests += 1
        self._outstanding += 1

    def from_client(self, data: bytes) -> None:
        self._client += data
        while True:
            if not self._started:
                if len(self._client) < 8:
                    return
                (length, code) = struct.unpack("!ii", self._client[:8])
                if len(self._client) < length:
                    return
                self._client = self._client[length:]
                if code in (SSL_REQUEST, GSSENC_REQUEST):
                    self._single_byte_answers += 1
                elif code != CANCEL_REQUEST:
                    self._started = True
                    self._counts().connects += 1
                    self._outstanding += 1  # answered by ReadyForQuery once logged in
                continue
            if len(self._client) < 5:
                return
            kind = self._client[:1]
            (length,) = struct.unpack("!i", self._client[1:5])
            if len(self._client) < 1 + length:
                return
            body, self._client = self._client[5 : 1 + length], self._client[1 + length :]
            self._message(kind, body)

    def _message(self, kind: bytes, body: bytes) -> None:
        if kind == b"Q":
            self._request(body.split(b"\0", 1)[0].decode(errors="replace"))
        elif kind == b"P":
            name, query = body.split(b"\0", 2)[:2]
            self._statements[name.decode()] = query.decode(errors="replace")
            self._batch = self._batch or self._statements[name.decode()]
        elif kind == b"B":
            statement = body.split(b"\0", 2)[1].decode()
            self._batch = self._batch or self._statements.get(statement, "")
        elif kind == b"S":
            self._request(self._batch or "")
            self._batch = None

    def from_server(self, data: bytes) -> None:
        self._server += data
        while True:
            if self._single_byte_answers and self._server:
                self._single_byte_answers -= 1
                self._server = self._server[1:]
                continue
            if len(self._server) < 5:
                return
            (length,) = struct.unpack("!i", self._server[1:5])
            if len(self._server) < 1 + length:
                return
            if self._server[:1] == b"Z":
                self._outstanding = max(0, self._outstanding - 1)
            self._server = self._server[1 + length :]


class RoundTripCounter:
    """A counting proxy for the PostgreSQL server at ``server_url``; use as ``async with``."""

    def __init__(self, server_url: str) -> None:
        parts = urlsplit(server_url)
        host = dict(parse_qsl(parts.query)).get("host") or parts.hostname or "localhost"
        self._host = host
        self._port = parts.port or 5432
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.counts = WireCounts()

    async def __aenter__(self) -> RoundTripCounter:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @property
    def port(self) -> int:
        assert self._server is not None, "the proxy is not running"
        return int(self._server.sockets[0].getsockname()[1])

    def url(self, database_url: str) -> str:
        """``database_url`` through the proxy (TLS and GSS off: the proxy reads plain text)."""
        parts = urlsplit(database_url)
        auth = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
        query = dict(parse_qsl(parts.query)) | {"sslmode": "disable", "gssencmode": "disable"}
        query.pop("host", None)  # a Unix socket directory: the proxy connects there
        return urlunsplit(
            parts._replace(netloc=f"{auth}127.0.0.1:{self.port}", query=urlencode(query))
        )

    def take(self) -> WireCounts:
        """The counts since the last ``take``; counting starts again from zero."""
        counts, self.counts = self.counts, WireCounts()
        return counts

    async def _connect_upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._host.startswith("/"):  # libpq's convention: a directory holds the socket
            return await asyncio.open_unix_connection(f"{self._host}/.s.PGSQL.{self._port}")
        return await asyncio.open_connection(self._host, self._port)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        conversation = _Conversation(lambda: self.counts)
        try:
            up_reader, up_writer = await self._connect_upstream()
        except OSError:
            writer.close()
            self._tasks.discard(task)
            return
        try:
            await asyncio.gather(
                _pump(reader, up_writer, conversation.from_client),
                _pump(up_reader, writer, conversation.from_server),
            )
        except asyncio.CancelledError:
            pass  # the proxy is closing: end quietly (asyncio's stream callback reads our result)
        finally:
            for w in (writer, up_writer):
                w.close()
            self._tasks.discard(task)


async def _pump(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, observe: Callable[[bytes], None]
) -> None:
    """Forward bytes one way until EOF, showing each chunk to ``observe`` before it goes."""
    with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
        while data := await reader.read(_CHUNK):
            observe(data)
            writer.write(data)
            await writer.drain()
    with contextlib.suppress(ConnectionError, OSError):
        if writer.can_write_eof():
            writer.write_eof()
