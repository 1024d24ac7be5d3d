"""``MemoryService.forget`` (contract §9a): the session's memory goes, and none of its text is
left in the database — no row (a ``pg_dump``), and on SQLite not a byte of the database
file, its WAL or its index (``secure_delete`` and an emptied WAL). Another session's
memory stays whole."""

from __future__ import annotations

import uuid

from aimind_memory.memory import open_memory
from aimind_memory.memory.storage import backend_of, sqlite_path
from tests.support.residue import holds, pg_dump_bytes, sqlite_bytes

from .helpers import new_token, turn


def marker(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex}"


async def remember(mem, token: str, mark: str) -> None:
    """The marker in turns that compactions fold into the summary, in a pin, and verbatim."""
    for i in range(9):
        await mem.append_turn(
            token, turn(f"We decided {mark} item {i} goes to shelf {i}.", f"Noted {mark} {i}.")
        )
    await mem.pin(token, f"Remember {mark} for the audit.")
    await mem.set_summary(token, f"The summary mentions {mark}.")
    await mem.append_turn(token, turn(f"Last word on {mark}.", "Fine."))


def database_bytes(url: str) -> bytes:
    if backend_of(url) == "sqlite":
        return sqlite_bytes(sqlite_path(url))
    return pg_dump_bytes(url)


async def test_forget_leaves_no_byte_of_the_session_and_keeps_the_others(db_url: str) -> None:
    gone, kept = new_token(), new_token()
    gone_mark, kept_mark = marker("forget-me"), marker("keep-me")
    async with open_memory(db_url) as mem:
        await remember(mem, gone, gone_mark)
        await remember(mem, kept, kept_mark)
        # Into the database file, as SQLite's automatic checkpoint moves pages every 1,000:
        # then only secure_delete keeps the deleted rows' bytes out of its free space.
        await mem.backend.threads.scrub()
        await mem.append_turn(gone, turn(f"And in the WAL: {gone_mark}.", "Sure."))
        before = await mem.export(kept)
        assert holds(database_bytes(db_url), gone_mark)  # the scan sees what is there

        await mem.forget(gone)

        assert (await mem.export(gone))["messages"] == []
        assert await mem.pins(gone) == []
        assert await mem.export(kept) == before
        scanned = database_bytes(db_url)  # while the service is open, WAL and all
    assert not holds(scanned, gone_mark)
    assert holds(scanned, kept_mark)
    after_close = database_bytes(db_url)
    assert not holds(after_close, gone_mark) and holds(after_close, kept_mark)


async def test_forget_of_a_session_with_no_memory_is_fine(db_url: str) -> None:
    async with open_memory(db_url) as mem:
        await mem.forget(new_token())
        await mem.forget(new_token())
