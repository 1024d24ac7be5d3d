"""A second OS process appending turns to one session (used by test_concurrency).

Run as ``python -m tests.memory.append_worker URL TOKEN PREFIX N``: opens memory,
prints ``ready``, waits for a line on stdin, appends N turns concurrently, then
prints one JSON line with how many were written and which user texts the
compactions it stored folded.
"""

from __future__ import annotations

import asyncio
import json
import sys

from aimind_memory.memory import open_memory

from .helpers import CountingCompactor, turn


async def main(url: str, token: str, prefix: str, n: int) -> None:
    compactor = CountingCompactor()
    async with open_memory(url, compactor=compactor) as mem:
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)

        outcomes = await asyncio.gather(
            *(
                compactor.counted(
                    mem.append_turn(token, turn(f"{prefix} {i}", f"reply {prefix} {i}"))
                )
                for i in range(n)
            )
        )
    results = [result for result, _ in outcomes]
    print(
        json.dumps(
            {
                "written": sum(r.written for r in results),
                "skipped": [r.skipped for r in results if not r.written],
                "folded": [text for _, folded in outcomes for text in folded],
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
