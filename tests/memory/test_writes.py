"""Writing a turn (contract §3, §4): what is written, what is skipped, and the window bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimind_memory.memory import open_memory
from aimind_memory.memory.config.limits import MESSAGE_CHAR_CAP, TRUNCATION_MARKER
from aimind_memory.memory.models import ChatThreadMessage
from aimind_memory.memory.storage.store import thread_config

from .helpers import CountingCompactor, assert_bounds, new_token, turn

WRITTEN_STATUSES = ["completed", "final", "blocked"]
SKIPPED_STATUSES = ["cancelled", "failed", "interrupted", "paused", "running", "", "COMPLETED"]


@pytest.mark.parametrize("status", WRITTEN_STATUSES)
async def test_finished_statuses_are_written(db_url: str, status: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        result = await mem.append_turn(token, turn("What is 2+2?", "4", status))
        state = await mem.load(token)
    assert result.written and result.skipped is None
    assert [(m.role, m.text) for m in state.messages] == [
        ("user", "What is 2+2?"),
        ("assistant", "4"),
    ]


@pytest.mark.parametrize("status", SKIPPED_STATUSES)
async def test_unfinished_and_unknown_statuses_are_not_written(db_url: str, status: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        result = await mem.append_turn(token, turn("What is 2+2?", "4", status))
        state = await mem.load(token)
        dto = await mem.hydrate(token)
    assert not result.written and result.skipped == "status"
    assert state.messages == [] and not dto["restored"]


@pytest.mark.parametrize(
    ("user", "assistant"),
    [
        ("", "an answer"),
        ("a question", ""),
        ("   \n\t ", "an answer"),
        ("a question", " \u3000 \n"),
        (None, "an answer"),
        ("a question", None),
        (42, "an answer"),
        ("a question", ["a", "list"]),
        (b"bytes", "an answer"),
        ({"text": "a dict"}, "an answer"),
    ],
)
async def test_empty_whitespace_or_non_string_text_is_not_written(
    db_url: str, user: object, assistant: object
) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        result = await mem.append_turn(token, turn(user, assistant))
        state = await mem.load(token)
    assert not result.written and result.skipped == "empty"
    assert state.is_empty


async def test_text_is_stored_stripped_and_only_the_four_message_fields(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("  spaced question \n", "\tspaced answer  ", "final"))
        state = await mem.load(token)
    assert [m.text for m in state.messages] == ["spaced question", "spaced answer"]
    for message in state.messages:
        assert set(message.model_dump()) == {"id", "role", "text", "created_at"}
    assert set(ChatThreadMessage.model_fields) == {"id", "role", "text", "created_at"}


async def test_source_is_not_persisted(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("goal", "summary", "final", source="tasklist-agent"))
        snapshot = await mem.graph.aget_state(thread_config(mem.thread_id(token)))
    assert "tasklist-agent" not in repr(snapshot.values)
    assert "source" not in repr(snapshot.values)


async def test_duplicate_by_ids_is_skipped(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        first = await mem.append_turn(token, turn("q", "a", user_id="u1", assistant_id="a1"))
        same_user_id = await mem.append_turn(
            token, turn("other q", "other a", user_id="u1", assistant_id="a2")
        )
        same_assistant_id = await mem.append_turn(
            token, turn("other q", "other a", user_id="u2", assistant_id="a1")
        )
        new_ids = await mem.append_turn(token, turn("q", "a", user_id="u3", assistant_id="a3"))
        state = await mem.load(token)
    assert first.written and new_ids.written
    assert same_user_id.skipped == "duplicate" and same_assistant_id.skipped == "duplicate"
    assert [m.id for m in state.messages] == ["u1", "a1", "u3", "a3"]


async def test_duplicate_by_last_two_texts_is_skipped_without_ids(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        assert (await mem.append_turn(token, turn("Same question", "Same answer"))).written
        again = await mem.append_turn(token, turn("  Same question\n", "Same answer  "))
        different_answer = await mem.append_turn(token, turn("Same question", "Other answer"))
        # not the last two any more: the same texts are a new turn again
        back = await mem.append_turn(token, turn("Same question", "Same answer"))
        state = await mem.load(token)
    assert again.skipped == "duplicate"
    assert different_answer.written and back.written
    assert [m.text for m in state.messages] == [
        "Same question",
        "Same answer",
        "Same question",
        "Other answer",
        "Same question",
        "Same answer",
    ]


async def test_one_id_for_both_messages_never_duplicates_an_id(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        result = await mem.append_turn(token, turn("q", "a", user_id="m1", assistant_id="m1"))
        again = await mem.append_turn(token, turn("q2", "a2", user_id="m1", assistant_id="m2"))
        state = await mem.load(token)
        dto = await mem.hydrate(token)
    assert result.written and again.skipped == "duplicate"
    assert_bounds(state)
    assert state.messages[0].id == "m1" and state.messages[1].id != "m1"
    assert len({m["id"] for m in dto["messages"]}) == 2


async def test_same_texts_with_new_ids_are_a_new_turn(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(token, turn("yes", "ok", user_id="u1", assistant_id="a1"))
        result = await mem.append_turn(token, turn("yes", "ok", user_id="u2", assistant_id="a2"))
        state = await mem.load(token)
    assert result.written and len(state.messages) == 4


async def test_one_huge_message_is_capped_with_the_marker(db_url: str) -> None:
    token = new_token()
    huge = "word " * 2_000_000  # 10 MB
    async with open_memory(db_url) as mem:
        assert (await mem.append_turn(token, turn(huge, "x" * (MESSAGE_CHAR_CAP + 1)))).written
        await mem.append_turn(token, turn("y" * MESSAGE_CHAR_CAP, "short"))
        state = await mem.load(token)
    user, assistant, exact, short = (m.text for m in state.messages)
    for capped in (user, assistant):
        assert len(capped) <= MESSAGE_CHAR_CAP
        assert capped.endswith(TRUNCATION_MARKER)
        assert len(capped) > MESSAGE_CHAR_CAP - len(TRUNCATION_MARKER) - 10
    assert user.startswith("word word")
    assert exact == "y" * MESSAGE_CHAR_CAP  # at the cap: kept whole, no marker
    assert short == "short"


async def test_window_never_exceeds_eight_messages(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url, compactor=CountingCompactor()) as mem:
        for i in range(1, 21):
            await mem.append_turn(token, turn(f"question {i}", f"answer {i}"))
            state = await mem.load(token)
            assert_bounds(state)
            assert len(state.messages) <= 8
            assert state.messages[-2].text == f"question {i}"
            assert state.messages[-1].text == f"answer {i}"


async def test_memory_thread_is_a_real_langgraph_thread(db_url: str) -> None:
    token = new_token()
    async with open_memory(db_url) as mem:
        for i in range(7):
            await mem.append_turn(token, turn(f"We must keep rule {i}.", f"noted {i}"))
        state = await mem.load(token)
        snapshot = await mem.graph.aget_state(thread_config(mem.thread_id(token)))
        plain = await mem.graph.aget_state({"configurable": {"thread_id": mem.thread_id(token)}})
    assert snapshot.values == state.to_channels()
    assert plain.values == state.to_channels()
    assert state.summary and state.pinned_decisions  # compaction ran: every field is covered


async def test_clear_forgets_the_session_and_only_it(db_url: str) -> None:
    mine, other = new_token(), new_token()
    async with open_memory(db_url) as mem:
        await mem.append_turn(mine, turn("mine", "yes"))
        await mem.append_turn(other, turn("other", "yes"))
        await mem.clear(mine)
        assert (await mem.load(mine)).is_empty
        assert [m.text for m in (await mem.load(other)).messages] == ["other", "yes"]
        assert (await mem.append_turn(mine, turn("again", "fine"))).written


async def test_open_memory_without_url_reads_the_environment(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIMIND_DATABASE_URL", db_url)
    token = new_token()
    async with open_memory() as mem:
        await mem.append_turn(token, turn("from env", "ok"))
    monkeypatch.delenv("AIMIND_DATABASE_URL")
    async with open_memory(db_url) as mem:
        assert [m.text for m in (await mem.load(token)).messages] == ["from env", "ok"]


async def test_default_is_the_embedded_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No URL: a SQLite file in the data folder (AIMIND_DATA_DIR here), whatever the
    current folder is (memory.storage.paths)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    token = new_token()
    async with open_memory() as mem:
        await mem.append_turn(token, turn("embedded", "default"))
    database = tmp_path / "data" / "aimind.sqlite"  # the suite's AIMIND_DATA_DIR
    assert database.is_file() and not any(elsewhere.iterdir())
    async with open_memory(f"sqlite:///{database}") as mem:
        assert len((await mem.load(token)).messages) == 2
