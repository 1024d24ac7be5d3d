"""One SQLite data folder, everyone at once (contract §10): ``langgraph dev``, ``aimind chat``,
``aimind memory show``, a library process and a person's ``sqlite3``.

Each is a real process on the same embedded database. While the server takes turns,
``aimind chat`` and a library process take theirs, ``aimind memory show`` opens and
closes the database again and again, and so does Python's ``sqlite3`` (open, read,
close). Every turn any of them reports written must be kept, each must see the
others', and after a server restart nothing may be gone.

This once lost turns: a process opened and closed a database file it already held
through SQLite, which drops SQLite's POSIX locks (they belong to the process), and
the next process to close its connection deleted the live WAL: from then on the
server and the others each saw only their own turns, and the server's were lost at
restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph_sdk import get_client

from aimind_memory.memory.session import hash_token, load_secret, memory_thread_id
from aimind_memory.memory.storage.paths import DATABASE_FILE
from harness.langgraph_server import langgraph_server, server_env
from tests.memory.helpers import line_writer, write_line
from tests.support.deployment import SESSION_COOKIE, SESSION_HEADER

pytestmark = pytest.mark.e2e

TOKEN = "shared-folder-session-0001"
WIDE = {"AIMIND_RECENT_TURNS": "40", "AIMIND_KEEP_TURNS": "2"}
"""No compaction in this test: every turn stays verbatim, checkable by its text."""
SERVER_TURNS, CLI_TURNS, LIBRARY_TURNS, SHOWS, SQLITE_READS = 6, 4, 4, 2, 10
CLI_TIMEOUT_S = 300
ROOT = Path(__file__).resolve().parents[2]
USER_LINE = re.compile(r"^\s*(?:you> )?\s*user: (.*)$")
CLI_TURN_DONE = re.compile(r"\[memory\] \d+ recent turns")


def _user_texts(output: str) -> set[str]:
    """The user messages a ``format_memory`` printout lists (``  user: <text>``)."""
    return {m.group(1) for line in output.splitlines() if (m := USER_LINE.match(line))}


def _child_env(data: Path) -> dict[str, str]:
    """The CLI's and the library's environment: the embedded default in ``data``."""
    env = server_env("", data, {**WIDE, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"})
    del env["AIMIND_DATABASE_URL"]
    return env


async def _server_turn(client: Any, thread_id: str, text: str) -> bool:
    """One chat turn through the server; True unless memory reported it failed."""
    failed = False
    async for part in client.runs.stream(
        thread_id,
        "chat",
        input={"messages": [{"role": "user", "content": text}]},
        stream_mode=["custom"],
    ):
        assert part.event != "error", part.data
        if part.event == "custom" and part.data.get("type") == "thread-memory-status":
            failed = failed or part.data.get("status") == "failed"
    return not failed


async def _hydrated(base_url: str) -> set[str]:
    """The server's view: the chat page's hydration route."""
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:
        response = await client.get(
            "/api/chat/thread", headers={"Cookie": f"{SESSION_COOKIE}={TOKEN}"}
        )
    assert response.status_code == 200, response.text
    return {m["text"] for m in response.json()["messages"] if m["role"] == "user"}


def _sqlite3_read(db: Path, thread_id: str) -> set[str]:
    """What a person's ``sqlite3`` sees: open, read the memory thread's latest checkpoint,
    close."""
    conn = sqlite3.connect(db, timeout=30)
    try:
        row = conn.execute(
            "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' "
            "ORDER BY checkpoint_id DESC LIMIT 1",
            (thread_id,),
        ).fetchone()
    finally:
        conn.close()
    if row is None:
        return set()
    checkpoint = JsonPlusSerializer().loads_typed((row[0], row[1]))
    messages = checkpoint["channel_values"].get("messages", [])
    return {m["text"] for m in messages if m["role"] == "user"}


def _memory_show(env: dict[str, str], cwd: Path) -> set[str]:
    """``aimind memory show``: a process that opens the database, reads, closes it."""
    done = subprocess.run(
        [str(Path(sys.executable).with_name("aimind")), "memory", "show", "--session", TOKEN],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=CLI_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return _user_texts(done.stdout)


class _CliChat:
    """``aimind chat --session TOKEN``, kept open, fed one line at a time."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    async def _until(self, pattern: str) -> str:
        assert self.proc.stdout is not None
        lines: list[str] = []
        while True:
            raw = await asyncio.wait_for(self.proc.stdout.readline(), CLI_TIMEOUT_S)
            assert raw, "aimind chat exited:\n" + "".join(lines)
            lines.append(raw.decode())
            if re.search(pattern, lines[-1]):
                return "".join(lines)

    async def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{line}\n".encode())
        await self.proc.stdin.drain()

    async def turn(self, text: str) -> bool:
        """True unless memory reported the turn failed."""
        await self.send(text)
        output = await self._until(CLI_TURN_DONE.pattern)
        return "compaction failed" not in output

    async def memory(self) -> set[str]:
        await self.send("/memory")
        return _user_texts(await self._until(r"last compacted:"))


@contextlib.asynccontextmanager
async def _cli_chat(env: dict[str, str], cwd: Path) -> AsyncIterator[_CliChat]:
    proc = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).with_name("aimind")),
        "chat",
        "--session",
        TOKEN,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    chat = _CliChat(proc)
    try:
        await chat._until(r"aimind chat")
        yield chat
    finally:
        with contextlib.suppress(Exception):
            await chat.send("/exit")
        try:
            await asyncio.wait_for(proc.wait(), 60)
        except TimeoutError:
            proc.kill()
            await proc.wait()


class _Folder:
    """The shared data folder, the processes on it, and every turn reported written."""

    def __init__(self, data: Path, cwd: Path, base_url: str) -> None:
        self.db = data / DATABASE_FILE
        self.cwd = cwd
        self.env = _child_env(data)
        self.client = get_client(url=base_url, headers={SESSION_HEADER: TOKEN}, timeout=120)
        self.written: dict[str, bool] = {}
        self.thread_id = ""
        self.memory_thread = ""

    async def server_turns(self, numbers: range) -> None:
        if not self.thread_id:
            self.thread_id = (await self.client.threads.create())["thread_id"]
        for i in numbers:
            self.written[f"server {i}"] = await _server_turn(
                self.client, self.thread_id, f"server {i}"
            )

    async def memory_shows(self, times: int) -> None:
        for _ in range(times):
            await asyncio.to_thread(_memory_show, self.env, self.cwd)

    async def beside_sqlite3(self, *work: Any) -> None:
        """``work`` while a person's ``sqlite3`` opens, reads and closes the database."""
        done = asyncio.Event()

        async def reads() -> None:
            count = 0
            while not done.is_set() or count < SQLITE_READS:
                await asyncio.to_thread(_sqlite3_read, self.db, self.memory_thread)
                count += 1
                await asyncio.sleep(0.2)

        async def everything() -> None:
            try:
                await asyncio.gather(*work)
            finally:
                done.set()

        await asyncio.gather(everything(), reads())

    async def views(self, base_url: str, *, show: bool = True) -> dict[str, set[str]]:
        """What the server, ``sqlite3`` and (``show``) ``aimind memory show`` see now."""
        seen = {
            "server": await _hydrated(base_url),
            "sqlite3": await asyncio.to_thread(_sqlite3_read, self.db, self.memory_thread),
        }
        if show:
            seen["aimind memory show"] = await asyncio.to_thread(_memory_show, self.env, self.cwd)
        return seen

    def kept(self) -> set[str]:
        assert all(self.written.values()), f"turns reported failed: {self.written}"
        return set(self.written)


async def _library_load(library: asyncio.subprocess.Process) -> set[str]:
    assert library.stdin is not None and library.stdout is not None
    library.stdin.write(b"load\n")
    await library.stdin.drain()
    return set(json.loads(await asyncio.wait_for(library.stdout.readline(), 60))["texts"])


async def test_server_cli_library_and_sqlite3_share_one_data_folder(tmp_path: Path) -> None:
    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    elsewhere.mkdir()
    url = f"sqlite:///{data / DATABASE_FILE}"
    with langgraph_server(url, data, workdir=tmp_path / "work", env=WIDE) as server:
        folder = _Folder(data, elsewhere, server.base_url)
        await folder.server_turns(range(1))  # the server now holds the database open
        folder.memory_thread = memory_thread_id(hash_token(TOKEN, load_secret(data)))

        # 1. Beside the server, processes that open the database and close it again.
        await folder.beside_sqlite3(folder.server_turns(range(1, 4)), folder.memory_shows(1))
        views = await folder.views(server.base_url, show=False)
        assert views == dict.fromkeys(views, folder.kept())

        # 2. Processes that hold it too: a library process and `aimind chat`, all writing.
        library = await line_writer(url, TOKEN, "library", folder.env)
        try:
            async with _cli_chat(folder.env, elsewhere) as cli:

                async def cli_turns() -> None:
                    for i in range(CLI_TURNS):
                        folder.written[f"cli {i}"] = await cli.turn(f"cli {i}")

                async def library_turns() -> None:
                    for i in range(LIBRARY_TURNS):
                        folder.written[f"library {i}"] = (await write_line(library, i))["written"]

                await folder.beside_sqlite3(
                    folder.server_turns(range(4, SERVER_TURNS)),
                    cli_turns(),
                    library_turns(),
                    folder.memory_shows(SHOWS),
                )
                kept = folder.kept()
                views = await folder.views(server.base_url)
                views["aimind chat"] = await cli.memory()
                views["library"] = await _library_load(library)
                assert views == dict.fromkeys(views, kept), "each process sees the others' turns"
        finally:
            assert library.stdin is not None
            library.stdin.close()
            await asyncio.wait_for(library.wait(), 60)

        # 3. They have closed the database; the server goes on.
        await folder.beside_sqlite3(
            folder.server_turns(range(SERVER_TURNS, SERVER_TURNS + 2)), folder.memory_shows(1)
        )
        kept = folder.kept()
        views = await folder.views(server.base_url)
        assert views == dict.fromkeys(views, kept)

        server.stop()
        server.start()
        assert await _hydrated(server.base_url) == kept, "nothing is gone after a restart"
    assert _sqlite3_read(data / DATABASE_FILE, folder.memory_thread) == kept
    assert not [p.name for p in data.iterdir() if p.name.endswith(".tmp")]
    assert os.stat(data / DATABASE_FILE).st_mode & 0o777 == 0o600
