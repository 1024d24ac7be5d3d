"""The peers bench is fair: each contestant keeps the window ours keeps (``bench/peers.py``).

The peers are the ``bench`` extra (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import pytest

from aimind_memory.memory.config.limits import SUMMARY_CHARS
from bench.common import BenchEnv, Profile
from bench.peers import Script, peers_missing, play

pytestmark = pytest.mark.skipif(peers_missing() is not None, reason="the bench extra is missing")

TURNS = 16


def test_every_summary_is_the_same_rule_newest_first_within_the_cap() -> None:
    texts = {n: f"Turn {n}: " + "word " * 40 for n in range(1, 200)}
    script = Script(texts)
    shown = "Turn 3: … Turn 12: … Turn 7: …"

    assert script.summary(shown) == " ".join(texts[n][:120] for n in (12, 7, 3))
    assert len(script.summary(" ".join(f"Turn {n}:" for n in texts))) <= SUMMARY_CHARS
    assert script.summary_calls == 2


async def test_the_contestants_keep_comparable_windows(
    bench_backend: tuple[BenchEnv, str],
) -> None:
    profile = Profile("test", TURNS, (TURNS,), 4, 1, 1, 1, 1, 1, 1, 1)
    raw = await play(*bench_backend, profile)
    verbatim = raw["verbatim_turns"]

    # Ours and the middleware: 2, 3 or 4 earlier turns verbatim once they have folded,
    # folding every third turn.
    assert set(verbatim["ours"][6:]) == {2, 3, 4}
    assert set(verbatim["middleware"][8:]) == {2, 3, 4}
    assert raw["summary_calls"]["ours"] == 4  # turns 5, 8, 11, 14
    assert raw["summary_calls"]["middleware"] == 4  # turns 7, 10, 13, 16
    # langmem: never more than 4 earlier turns verbatim, as ours.
    assert max(verbatim["langmem"]) == 4 == max(verbatim["ours"])
    assert raw["summary_calls"]["langmem"] >= 2
    # Ours' compactions all passed the gate whole (else ours ran on its fallback), each timed.
    gate = raw["ours_gate"]
    assert len(gate["gate_ms"]) == len(gate["local_ms"]) == raw["summary_calls"]["ours"]
    assert not any(gate["not_whole"])
    # Every contestant answered every turn, and each stored its thread.
    assert all(len(t) == TURNS for t in raw["times_ms"].values())
    assert all(s["rows"] > 0 for s in raw["storage"][str(TURNS)].values())
