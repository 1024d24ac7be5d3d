"""The fold-cost bench measures the compactor users get, and sorts its turns right
(``bench/fold_cost.py``). No timing is asserted: the bench owns speed."""

from __future__ import annotations

from aimind_memory.memory import ExtractiveCompactor, open_memory
from bench.common import QUICK, BenchEnv
from bench.fold_cost import TURNS, TimedCompactor, default_compactor, play, summarize


async def test_the_wrapped_default_is_the_extractive_compactor_still_folding_inline() -> None:
    async with open_memory("memory") as mem:
        timed, chosen = default_compactor(mem)

        assert chosen == "ExtractiveCompactor"
        assert isinstance(timed, TimedCompactor) and isinstance(timed.inner, ExtractiveCompactor)
        assert mem.compactor is timed
        assert timed.name == "extractive" and not mem.defers_compaction


async def test_every_fold_of_the_default_is_timed_and_every_turn_sorted(
    bench_backend: tuple[BenchEnv, str],
) -> None:
    raw = await play(*bench_backend, QUICK)
    turns = TURNS[QUICK.name]

    assert all(len(t) == turns for t in raw["times_ms"].values())
    # Window 4 turns, keep 2: both fold (or start a compaction) on turns 5, 8, 11, 14.
    folds = [i + 1 for i, f in enumerate(raw["folding"]["extractive"]) if f]
    assert folds == [5, 8, 11, 14]
    assert [i + 1 for i, f in enumerate(raw["folding"]["instant"]) if f] == folds
    # The extractive compactor ran once in each folding turn and in no other.
    assert [i + 1 for i, ms in enumerate(raw["compactor_ms"]) if ms is not None] == folds
    assert raw["compactor_calls_warm"] == 1
    assert raw["compactor_chosen"] == "ExtractiveCompactor"

    summary = summarize(raw)
    ext = summary["extractive"]
    assert ext["folding"]["n"] == 4 and ext["plain"]["n"] == turns - 1 - 4  # turn 1 left out
    assert ext["compactor"]["n"] == 4 and ext["compactor"]["folds_without_a_call"] == 0
    assert summary["instant"]["folding"]["n"] == 4
