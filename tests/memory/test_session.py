"""Identity and secrets (contract §8, §12.6): HMAC hashes, tokens, the secret's start-up rules."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import re
import stat
import sys
from pathlib import Path

import psycopg
import pytest

from aimind_memory.memory import open_memory
from aimind_memory.memory.errors import InvalidSessionError
from aimind_memory.memory.session import SecretConfigError, SessionHash, require_memory_thread_id
from aimind_memory.memory.storage import backend_of, sqlite_path

from .helpers import new_token, turn

SECRET = "s" * 20 + "-0123456789abcdef"  # 37 chars
HEX64 = "0123456789abcdef" * 4

INVALID_TOKENS = [
    "",
    "a" * 15,
    "a" * 129,
    "has space in the token",
    "slash/in/the/token/x",
    "dots.are.not.allowed.x",
    "ünïcode-token-000000",
    "newline-token-000000\n",
    "'; DROP TABLE checkpoints; --",
]


def _dump_database(db_url: str) -> bytes:
    """Every byte the backend holds for this database (files, or every table's rows)."""
    if backend_of(db_url) == "sqlite":
        folder = sqlite_path(db_url).parent
        return b"".join(p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file())
    chunks: list[str] = []
    with psycopg.connect(db_url, autocommit=True) as conn:
        tables = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        ).fetchall()
        for (table,) in tables:
            for (row,) in conn.execute(f'SELECT t::text FROM "{table}" t').fetchall():
                chunks.append(row)
    text = "\n".join(chunks)
    # bytea columns print as \\x<hex>: decode them too, so blob contents are searched
    blobs = [bytes.fromhex(h) for h in re.findall(r"\\\\x([0-9a-f]+)", text)]
    return text.encode() + b"\n".join(blobs)


async def test_session_hash_is_hex_hmac_sha256_of_the_token(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIMIND_SESSION_SECRET", SECRET)
    token = new_token()
    expected = hmac.new(SECRET.encode(), token.encode(), hashlib.sha256).hexdigest()
    async with open_memory(db_url) as mem:
        assert mem.identity(token) == expected
        assert mem.thread_id(token) == f"chat:{expected}"
        await mem.append_turn(token, turn("hello", "hi"))
        dto = await mem.hydrate(token)
    assert len(expected) == 64 and dto["threadId"] == f"chat:{expected}"


async def test_raw_token_is_never_stored_or_returned(db_url: str) -> None:
    token = "RawToken_" + "Zq9x" * 8  # distinctive, 41 chars
    async with open_memory(db_url) as mem:
        for i in range(1, 7):
            result = await mem.append_turn(token, turn(f"question {i}", f"answer {i}"))
        dto = await mem.hydrate(token)
        state = await mem.load(token)
        session_hash = mem.identity(token)
    stored = _dump_database(db_url)
    assert session_hash.encode() in stored  # the scan does see this thread's rows
    assert b"question 6" in stored
    assert token.encode() not in stored
    assert token.encode().hex().encode() not in stored  # nor as bytea hex
    for returned in (json.dumps(dto), state.model_dump_json(), result.model_dump_json()):
        assert token not in returned


@pytest.mark.parametrize("bad", INVALID_TOKENS)
async def test_invalid_tokens_are_rejected_everywhere(db_url: str, bad: str) -> None:
    async with open_memory(db_url) as mem:
        with pytest.raises(InvalidSessionError):
            mem.thread_id(bad)
        with pytest.raises(InvalidSessionError):
            await mem.append_turn(bad, turn("hello", "hi"))
        with pytest.raises(InvalidSessionError):
            await mem.load(bad)
        with pytest.raises(InvalidSessionError):
            await mem.hydrate(bad)
        with pytest.raises(InvalidSessionError):
            await mem.clear(bad)


async def test_token_length_bounds_are_16_and_128(db_url: str) -> None:
    async with open_memory(db_url) as mem:
        for ok in ("a" * 16, "Z_-9" * 32):
            assert (await mem.append_turn(ok, turn("hello", "hi"))).written
            assert len((await mem.load(ok)).messages) == 2


async def test_an_already_hashed_identity_is_accepted(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        identity = mem.identity(token)
        assert isinstance(identity, SessionHash)
        assert mem.thread_id(identity) == mem.thread_id(token)
        assert (await mem.append_turn(identity, turn("via hash", "ok"))).written
        assert [m.text for m in (await mem.load(token)).messages] == ["via hash", "ok"]
        assert (await mem.hydrate(SessionHash(str(identity))))["restored"] is True
        await mem.clear(identity)
        assert (await mem.load(token)).is_empty


@pytest.mark.parametrize("bad", [HEX64.upper(), HEX64[:-1], HEX64 + "0", "g" * 64, ""])
def test_session_hash_must_be_64_lowercase_hex(bad: str) -> None:
    with pytest.raises(InvalidSessionError):
        SessionHash(bad)


def test_memory_apis_refuse_thread_ids_without_the_chat_prefix() -> None:
    assert require_memory_thread_id(f"chat:{HEX64}") == f"chat:{HEX64}"
    for bad in (
        HEX64,
        f"agent:{HEX64}",
        f"task:{HEX64}",
        "chat:",
        f"chat:{HEX64[:10]}",
        f"CHAT:{HEX64}",
        f" chat:{HEX64}",
        f"chat:{HEX64}/x",
        None,
        42,
    ):
        with pytest.raises(InvalidSessionError):
            require_memory_thread_id(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("secret", ["", "x" * 31])
async def test_a_short_secret_is_refused_at_start_up(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, secret: str
) -> None:
    monkeypatch.setenv("AIMIND_SESSION_SECRET", secret)
    if not secret:  # empty means unset: a dev secret is generated
        async with open_memory(sqlite_url):
            return
    with pytest.raises(SecretConfigError, match="AIMIND_SESSION_SECRET"):
        async with open_memory(sqlite_url):
            pytest.fail("opened with a 31-char secret")


async def test_a_32_char_secret_is_enough(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMIND_SESSION_SECRET", "k" * 32)
    async with open_memory(sqlite_url) as mem:
        assert (await mem.append_turn(new_token(), turn("hello", "hi"))).written


_THREAD_ID_SCRIPT = """
import asyncio, sys
from aimind_memory.memory import open_memory
async def main():
    async with open_memory(sys.argv[1]) as mem:
        print(mem.thread_id(sys.argv[2]))
asyncio.run(main())
"""


async def test_dev_secret_is_generated_once_private_and_reused(
    sqlite_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = Path(os.environ["AIMIND_DATA_DIR"])
    token = new_token()
    caplog.set_level(logging.WARNING, logger="aimind.session")
    async with open_memory(sqlite_url) as mem:
        first = mem.thread_id(token)
    secret_file = data / "session-secret"
    content = secret_file.read_text()
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert len(content.strip()) >= 32
    assert (
        first
        == "chat:" + hmac.new(content.strip().encode(), token.encode(), hashlib.sha256).hexdigest()
    )
    async with open_memory(sqlite_url) as mem:
        assert mem.thread_id(token) == first
    # another process (a restart) reads the same file and gets the same identity
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _THREAD_ID_SCRIPT,
        sqlite_url,
        token,
        stdout=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )
    stdout, _ = await proc.communicate()
    assert proc.returncode == 0
    assert stdout.decode().strip() == first
    assert secret_file.read_text() == content
    said = [r for r in caplog.records if "AIMIND_SESSION_SECRET is not set" in r.getMessage()]
    assert len(said) == 1
    assert content.strip() not in caplog.text  # the log says where, never the secret


_RACE_SCRIPT = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("session", sys.argv[1])
session = importlib.util.module_from_spec(spec)
spec.loader.exec_module(session)
print("ready", flush=True)
sys.stdin.readline()  # line the processes up, so they race for the file
print(session.load_secret().decode())
"""


async def test_processes_starting_together_share_one_dev_secret() -> None:
    """Each process must read a complete secret, never one another is still writing."""
    import aimind_memory.memory.session as session_module

    data = Path(os.environ["AIMIND_DATA_DIR"])
    for round_ in range(2):
        env = {**os.environ, "AIMIND_DATA_DIR": str(data / f"round-{round_}")}
        procs = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                _RACE_SCRIPT,
                session_module.__file__,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
            )
            for _ in range(4)
        ]
        for p in procs:  # every process imported and waiting: then all go at once
            assert p.stdout is not None and await p.stdout.readline() == b"ready\n"
        outs = [await p.communicate(b"go\n") for p in procs]
        assert [p.returncode for p in procs] == [0] * 4, [err.decode()[-300:] for _, err in outs]
        secrets_seen = {out.decode().strip() for out, _ in outs}
        assert len(secrets_seen) == 1 and len(secrets_seen.pop()) >= 32
        folder = data / f"round-{round_}"
        assert [p.name for p in folder.iterdir()] == ["session-secret"]  # no temp files left
        assert stat.S_IMODE((folder / "session-secret").stat().st_mode) == 0o600


async def test_production_without_secret_refuses_to_start(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIMIND_ENV", "production")
    opened = False
    with pytest.raises(SecretConfigError, match="AIMIND_SESSION_SECRET"):
        async with open_memory(db_url):
            opened = True  # a request could be served here: it must never get this far
    assert not opened
    assert not (Path(os.environ["AIMIND_DATA_DIR"]) / "session-secret").exists()


async def test_production_with_a_secret_starts(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIMIND_ENV", "production")
    monkeypatch.setenv("AIMIND_SESSION_SECRET", SECRET)
    token = new_token()
    async with open_memory(db_url) as mem:
        assert (await mem.append_turn(token, turn("hello", "hi"))).written
    assert not (Path(os.environ["AIMIND_DATA_DIR"]) / "session-secret").exists()
