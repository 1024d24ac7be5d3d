"""The panel sessions of the memory-edits bench (``bench/memory_edits.py``): the baseline is
stored as the previous release stored a thread, and every session reads as a full panel."""

from __future__ import annotations

from aimind_memory.adapters.server.memory_panel import memory_panel_dto
from aimind_memory.memory import open_memory
from aimind_memory.memory.config.limits import PINNED_MAX
from bench.common import BenchEnv
from bench.memory_edits import PANELS, _check, _state, _store


async def test_the_baseline_is_stored_without_records_and_read_with_them(
    bench_backend: tuple[BenchEnv, str],
) -> None:
    env, name = bench_backend
    async with open_memory(env.backend(name).url) as mem:
        for variant in PANELS:
            token = f"bench-test-panel-{variant}"
            head = await _store(mem, token, _state(variant), None)
            stored = await mem.backend.threads.latest(mem.thread_id(token), None)
            channels = stored.checkpoint["channel_values"]

            assert stored.id == head.id
            assert ("pins" in channels) is (variant != "texts"), variant
            assert len(channels["pinned_decisions"]) == PINNED_MAX
            _check(memory_panel_dto(await mem.snapshot(token), mem.limits), variant)


async def test_a_rewrite_is_what_another_service_reads_next(
    bench_backend: tuple[BenchEnv, str],
) -> None:
    """The route's cold-ish read: the server keeps a copy, the bench writes the session
    again, and the server's next read is the new revision, not its copy."""
    env, name = bench_backend
    url = env.backend(name).url
    token = "bench-test-panel-rewrite"
    async with open_memory(url) as bench, open_memory(url) as server:
        head = await _store(bench, token, _state("provenance"), None)
        assert (await server.snapshot(token)).state.summary == _state("provenance").summary
        rewrite = _state("provenance", revision=1)
        await _store(bench, token, rewrite, head)

        assert (await server.snapshot(token)).state.summary == rewrite.summary
        assert len(rewrite.summary) == len(_state("provenance").summary)
