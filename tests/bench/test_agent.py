"""The agent bench compares like with like (``bench/agent.py``): every agent answers every
turn, ours send the same requests whatever their state, the peer keeps ours' window, and
each figure counts what it says."""

from __future__ import annotations

import zlib
from itertools import islice

import pytest

from aimind_memory.memory.config.limits import SUMMARY_CHARS
from bench.agent import CONTESTANTS, FIXED_SUMMARY, OURS, PEER, SAME, play, summarize
from bench.common import GIST_CHARS, BenchEnv, conversation
from bench.peers import peers_missing

pytestmark = pytest.mark.skipif(peers_missing() is not None, reason="the bench extra is missing")

TURNS = 16


def test_the_fixed_summary_is_the_conversations_kind_of_text_and_not_the_conversation() -> None:
    """Both sides store FIXED_SUMMARY as their summary; a summary that compressed better
    than the turns (a repeated string), or that repeated the turns played (which ours'
    pins and window would dedupe), would flatter one side's storage."""
    played = " ".join(user[:GIST_CHARS] for user, _ in islice(conversation(), 40))
    same_size = played[:SUMMARY_CHARS]

    def packed(text: str) -> float:
        return len(zlib.compress(text.encode(), 9)) / len(text.encode())

    assert len(FIXED_SUMMARY) == SUMMARY_CHARS == len(same_size)
    assert packed(FIXED_SUMMARY) >= 0.9 * packed(same_size)
    assert not set(FIXED_SUMMARY.split(". ")) & set(played.split(". "))


async def test_the_contestants_are_comparable(bench_backend: tuple[BenchEnv, str]) -> None:
    raw = await play(*bench_backend, TURNS)
    assert all(len(t) == TURNS for t in raw["times_ms"].values())
    # Ours send the same requests whatever becomes of the agent's state.
    chars = raw["context_chars"]
    assert chars["kept"] == chars["bounded"] == chars["stateless"]
    # Ours and the peer keep 2 to 4 earlier turns verbatim once they fold, every third turn.
    for c in CONTESTANTS:
        assert set(raw["verbatim_turns"][c][8:]) <= {2, 3, 4}, c
    assert raw["summary_calls"]["stateless"] == 4  # turns 5, 8, 11, 14
    assert raw["summary_calls"][SAME] == 4
    assert raw["summary_calls"][PEER] == 4  # turns 7, 10, 13, 16
    storage = raw["storage"]
    assert storage["stateless"]["agent"]["rows"] == 0 < storage["stateless"]["memory"]["rows"]
    assert storage["bounded"]["agent"]["bytes"] < storage["kept"]["agent"]["bytes"]
    assert storage[PEER]["memory"]["rows"] == 0
    # Planted facts: ours pin the decisions; with the peer's summary and no pins, ours keeps
    # what the peer keeps (the verbatim window).
    assert raw["facts_planted"] == TURNS // 4
    facts = raw["facts_kept"]
    assert all(facts[c][-1] == raw["facts_planted"] for c in OURS)
    # (ours also recalls folded turns from the archive, so it keeps at least as many)
    assert facts[SAME][-1] >= facts[PEER][-1] >= 1
    assert all(facts[c][3] == 1 for c in CONTESTANTS)  # turn 4 states the first one
    summary = summarize(raw)
    assert summary["peer_vs_ours"]["stateless"]["rows"] > 1
