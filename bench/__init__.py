"""Benchmarks of the chat memory against baselines run in the same process (``python -m bench``).

Every figure is a ratio against a baseline measured in the same run, interleaved
round by round, so the noise of a shared machine cancels out. ``--quick`` is the
CI smoke run (small sizes, results in a temp folder); the full run rewrites
``bench/results/`` and the results page, ``docs/benchmarks/results.md``.
"""
