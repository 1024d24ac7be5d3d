"""The archive of folded turns (contract §5a): what a fold takes out of the window is kept,
in the same write, once, owner-scoped, bounded by ``AIMIND_ARCHIVE_TURNS``, exported,
and erased by ``clear`` and ``forget`` — on SQLite and PostgreSQL (and in memory)."""

from __future__ import annotations

import sqlite3
import uuid

import aiosqlite
import psycopg

from aimind_memory.memory import open_memory
from aimind_memory.memory.config.limits import MemoryLimits
from aimind_memory.memory.storage import backend_of, sqlite_path
from aimind_memory.memory.storage.archive import sqlite as archive_sql
from tests.support.residue import holds, pg_dump_bytes, sqlite_bytes

from .helpers import GatedCompactor, assert_bounds, new_token, turn


def ids(i: int) -> dict[str, str]:
    return {"user_id": f"u{i}", "assistant_id": f"a{i}"}


async def archived_ids(mem, token: str) -> list[str]:
    return [m["id"] for m in (await mem.export(token))["archive"]]


async def test_every_message_is_in_the_window_or_the_archive_once(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        written: list[str] = []
        for i in range(15):
            await mem.append_turn(token, turn(f"question {i}", f"answer {i}", **ids(i)))
            written += [f"u{i}", f"a{i}"]
            state = await mem.load(token)
            assert_bounds(state)
            window = [m.id for m in state.messages]
            archive = await archived_ids(mem, token)
            assert archive + window == written  # oldest first, nothing lost, nothing twice
        exported = (await mem.export(token))["archive"]
        assert exported[0] == {
            "id": "u0",
            "role": "user",
            "text": "question 0",
            "createdAt": exported[0]["createdAt"],
        }


async def test_a_model_compaction_archives_what_it_folds_once(db_url: str) -> None:
    """A landing folds the oldest turns; an inline fold that overtook it archived its
    own, and a message is never archived twice."""
    token = new_token()
    gated = GatedCompactor()
    async with open_memory(db_url, compactor=gated) as mem:
        for i in range(5):
            await mem.append_turn(token, turn(f"question {i}", f"answer {i}", **ids(i)))
        await gated.asked.wait()
        assert await archived_ids(mem, token) == []  # pending: the window holds them still
        for i in range(5, 8):  # past 12 messages: an inline fold overtakes the model's
            await mem.append_turn(token, turn(f"question {i}", f"answer {i}", **ids(i)))
        overtaken = await archived_ids(mem, token)
        assert overtaken
        gated.release.set()
        await mem.settle(token)
        state = await mem.load(token)
        archive = await archived_ids(mem, token)
        assert len(archive) == len(set(archive))
        assert archive[: len(overtaken)] == overtaken
        window = [m.id for m in state.messages]
        every = [x for i in range(8) for x in (f"u{i}", f"a{i}")]
        assert sorted(archive + window) == sorted(every)


async def test_a_landing_without_overtaking_archives_the_folded_turns(db_url: str) -> None:
    token = new_token()
    gated = GatedCompactor()
    async with open_memory(db_url, compactor=gated) as mem:
        for i in range(5):
            await mem.append_turn(token, turn(f"question {i}", f"answer {i}", **ids(i)))
        await gated.asked.wait()
        gated.release.set()
        await mem.settle(token)
        folded = [m.id for m in gated.requests[0].folded]
        assert await archived_ids(mem, token) == folded


async def test_archive_turns_keeps_the_newest(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url, limits=MemoryLimits(archive_turns=3)) as mem:
        for i in range(20):
            await mem.append_turn(token, turn(f"question {i}", f"answer {i}", **ids(i)))
        archive = await archived_ids(mem, token)
        oldest_in_window = (await mem.load(token)).messages[0].id
    newest = int(oldest_in_window[1:]) - 1  # the turn folded last
    assert archive == [x for i in range(newest - 2, newest + 1) for x in (f"u{i}", f"a{i}")]


async def test_clear_and_forget_take_the_archive_and_leave_others(db_url: str) -> None:
    cleared, forgotten, kept = new_token(), new_token(), new_token()
    async with open_memory(db_url) as mem:
        for token in (cleared, forgotten, kept):
            for i in range(8):
                await mem.append_turn(token, turn(f"question {i}", f"answer {i}"))
            assert await archived_ids(mem, token)
        await mem.clear(cleared)
        await mem.forget(forgotten)
        assert await archived_ids(mem, cleared) == []
        assert await archived_ids(mem, forgotten) == []
        window = (await mem.load(kept)).messages
        assert len(await archived_ids(mem, kept)) + len(window) == 16
        assert await mem.recall(cleared, "question") == []
        assert await mem.recall(forgotten, "question") == []


def _unique_word() -> str:
    """A word the index stores whole: letters and digits only."""
    return "zq" + uuid.uuid4().hex


async def test_forget_leaves_no_archived_word_in_the_files(db_url: str) -> None:
    """The archive's index (SQLite's FTS5 segments; PostgreSQL's rows) keeps none of a
    forgotten session's words: only the index holds a message's words apart from its
    text, so the scan looks for a word's tail (the index may share its first letters
    with the word before it)."""
    gone, kept = new_token(), new_token()
    gone_word, kept_word = _unique_word(), _unique_word()
    async with open_memory(db_url) as mem:
        for token, word in ((gone, gone_word), (kept, kept_word)):
            for i in range(10):
                await mem.append_turn(token, turn(f"note {word} {i}", f"ok {i}"))
        hits = await mem.recall(gone, gone_word)
        assert hits and gone_word in hits[0].text
        await mem.backend.threads.scrub()  # the index's pages into the file, as in time
        assert holds(_database_bytes(db_url), gone_word[-16:])

        await mem.forget(gone)

        scanned = _database_bytes(db_url)
        assert await mem.recall(kept, kept_word)
    assert not holds(scanned, gone_word[-16:])
    assert holds(scanned, kept_word[-16:])


def _database_bytes(url: str) -> bytes:
    if backend_of(url) == "sqlite":
        return sqlite_bytes(sqlite_path(url))
    return pg_dump_bytes(url)


async def _drop_archive(url: str) -> None:
    if backend_of(url) == "sqlite":
        async with aiosqlite.connect(str(sqlite_path(url))) as conn:
            await conn.execute("DROP TABLE aimind_archive")
            await conn.commit()
    else:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            await conn.execute("DROP TABLE aimind_archive")


async def test_a_fold_is_never_stored_without_its_archive(db_url: str) -> None:
    """The fold and its archive rows are one transaction: when the archive cannot be
    written, the fold is not stored either (the turn is reported unwritten, as any
    memory failure, and memory keeps every turn it had)."""
    token = new_token()
    async with open_memory(db_url) as mem:
        for i in range(4):
            await mem.append_turn(token, turn(f"question {i}", f"answer {i}", **ids(i)))
        before = await mem.load(token)
        await _drop_archive(db_url)
        mem.store.forget(mem.thread_id(token))
        result = await mem.append_turn(token, turn("question 4", "answer 4", **ids(4)))
        assert not result.written and result.skipped == "memory-unavailable"
        mem.store.forget(mem.thread_id(token))
        assert (await mem.load(token)).messages == before.messages


def test_sqlite_reads_only_the_rows_the_index_names(tmp_path) -> None:
    """A recall's reads by row id stay row-id lookups: checking the owner through its
    index walked every one of the session's archived rows, so a recall grew slower with
    the archive (benchmark 18 measures how much)."""
    conn = sqlite3.connect(tmp_path / "plan.db")
    conn.executescript(archive_sql.SCHEMA_SQL)
    params = {"tid": "chat:x", "seqs": "[1, 2]", "match": '"kx"', "limit": 5}
    for statement in (archive_sql.CANDIDATES_SQL, archive_sql.MESSAGES_SQL):
        plan = [row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + statement, params)]
        picked = next(step for step in plan if "aimind_archive " in step + " ")
        assert "INTEGER PRIMARY KEY" in picked, plan
    conn.close()
