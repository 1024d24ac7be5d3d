"""A second writer process (used by test_clock_skew, test_deferred_compaction and the
shared data folder test).

Run as ``python -m tests.memory.line_writer URL TOKEN PREFIX [SKEW_S]``: with SKEW_S,
the process's ``time.time``/``time.time_ns`` run that many seconds behind (as on a
second server with a slow clock, or after an NTP step back). It opens memory,
prints ``ready`` and, for every line N read from stdin, appends the turn
"PREFIX N" and prints whether it was reported written and whether it started a
compaction; for the line ``load``, the session's user texts as memory holds them.
With ``AIMIND_TEST_GATED_COMPACTOR=1`` its compactor is a model-like one that never
answers (it may start compactions, never finish one).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time


def skew_clock(seconds: float) -> None:
    real_ns, real = time.time_ns, time.time
    time.time_ns = lambda: real_ns() - int(seconds * 1e9)
    time.time = lambda: real() - seconds


async def main(url: str, token: str, prefix: str) -> None:
    from aimind_memory.memory import open_memory  # after the clock is skewed

    from .helpers import GatedCompactor, turn, user_texts

    gated = os.environ.get("AIMIND_TEST_GATED_COMPACTOR") == "1"
    async with open_memory(url, compactor=GatedCompactor() if gated else None) as mem:
        print("ready", flush=True)
        while line := (await asyncio.to_thread(sys.stdin.readline)).strip():
            if line == "load":
                print(json.dumps({"texts": user_texts(await mem.load(token))}), flush=True)
                continue
            result = await mem.append_turn(token, turn(f"{prefix} {line}", f"reply {line}"))
            print(json.dumps({"written": result.written, "pending": result.pending}), flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 4:
        skew_clock(float(sys.argv[4]))
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
