"""No raw session token at rest: not in the database bytes, not in the data folder."""

from __future__ import annotations

import os
from pathlib import Path

from aimind_memory.memory import FinalTurn, open_memory
from harness.faults import database_bytes, files_containing

TOKEN = "RawTokenMustNotBeStored-7f3a9c"


async def test_raw_token_never_reaches_storage(db_url: str) -> None:
    async with open_memory(db_url) as mem:
        for i in range(6):  # past a compaction and a prune
            turn = FinalTurn(user_text=f"marker-text-{i}", assistant_text="ok", status="completed")
            assert (await mem.append_turn(TOKEN, turn)).written
        thread_id = mem.thread_id(TOKEN)
        await mem.hydrate(TOKEN)
    stored = database_bytes(db_url)
    assert b"marker-text-5" in stored, "the search does see stored memory"
    assert thread_id.encode() in stored, "rows are keyed by the hashed thread id"
    assert TOKEN.encode() not in stored
    assert files_containing(Path(os.environ["AIMIND_DATA_DIR"]), TOKEN.encode()) == []
    if db_url.startswith("sqlite:///"):  # the database folder holds the lock file and WAL too
        folder = Path(db_url.removeprefix("sqlite:///")).parent
        assert files_containing(folder, TOKEN.encode()) == []
