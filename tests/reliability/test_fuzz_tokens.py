"""Session tokens under hypothesis: valid ones map to one `chat:<hash>` thread, the rest are
refused before anything is stored."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aimind_memory.memory import FinalTurn, open_memory
from aimind_memory.memory.errors import InvalidSessionError
from aimind_memory.memory.session import HASH_RE, TOKEN_RE
from harness.faults import stored_row_count

TOKEN_ALPHABET = "abcXYZ019_-"
tokens = st.one_of(
    st.text(max_size=200),
    st.text(alphabet=TOKEN_ALPHABET, min_size=10, max_size=140),
    st.text(alphabet=TOKEN_ALPHABET + "./:;' %\x00é", min_size=14, max_size=20),
)


def test_any_token_is_either_a_session_or_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fuzz.sqlite'}"
    loop = asyncio.new_event_loop()
    turn = FinalTurn(user_text="hello", assistant_text="hi", status="completed")

    async def scenario(token: str) -> None:
        async with open_memory(url) as mem:
            before = stored_row_count(url)
            if TOKEN_RE.fullmatch(token):
                thread_id = mem.thread_id(token)
                assert thread_id.startswith("chat:") and HASH_RE.fullmatch(thread_id[5:])
                assert token not in thread_id
                assert (await mem.append_turn(token, turn)).written
                await mem.clear(token)
                return
            for call in (mem.append_turn(token, turn), mem.load(token), mem.clear(token)):
                with pytest.raises(InvalidSessionError):
                    await call
            assert stored_row_count(url) == before

    @settings(max_examples=150, deadline=None)
    @given(tokens)
    def check(token: str) -> None:
        loop.run_until_complete(scenario(token))

    try:
        check()
    finally:
        loop.close()
