"""A fork server for the SIGKILL test: each child writes turns on one session until killed.

The server imports everything once, then forks a writer per command, so twenty
kills do not pay twenty interpreter start-ups. Commands on stdin, one a line:

``run <url> <session> <start> <ackfile>`` forks a writer and prints ``pid <n>``;
the writer appends turn ``start``, ``start+1`` … and after each acknowledged
write appends its index to ``ackfile`` (a ``write(2)``: it survives SIGKILL).
``reap <pid>`` waits for that child and prints ``reaped``.
"""

from __future__ import annotations

import asyncio
import os
import sys

from memory import FinalTurn, open_memory


def user_text(i: int) -> str:
    return f"Turn {i:05d}: we decided item {i:05d}. Some more words about it."


async def write_forever(url: str, session: str, start: int, ackfile: str) -> None:
    fd = os.open(ackfile, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    async with open_memory(url) as mem:
        i = start
        while True:
            result = await mem.append_turn(
                session,
                FinalTurn(
                    user_text=user_text(i),
                    assistant_text=f"Noted item {i:05d}.",
                    status="completed",
                    user_message_id=f"u{i:05d}",
                    assistant_message_id=f"a{i:05d}",
                ),
            )
            if not result.written:
                raise SystemExit(f"turn {i} not written: {result.skipped}")
            os.write(fd, f"{i}\n".encode())
            i += 1


def main() -> None:
    for line in sys.stdin:
        command, *args = line.split()
        if command == "run":
            url, session, start, ackfile = args
            pid = os.fork()
            if pid == 0:
                try:
                    asyncio.run(write_forever(url, session, int(start), ackfile))
                finally:
                    os._exit(3)
            print(f"pid {pid}", flush=True)
        elif command == "reap":
            os.waitpid(int(args[0]), 0)
            print("reaped", flush=True)


if __name__ == "__main__":
    main()
