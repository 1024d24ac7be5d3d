"""A fork server for the SIGKILL test: each child writes turns on one session until killed.

The server imports everything once, then forks a writer per command, so twenty
kills do not pay twenty interpreter start-ups. Commands on stdin, one a line:

``run <url> <session> <start> <ackfile>`` forks a writer and prints ``pid <n>``;
the writer appends turn ``start``, ``start+1`` … and after each acknowledged
write appends its index to ``ackfile`` (a ``write(2)``: it survives SIGKILL).
``reap <pid>`` waits for that child and prints ``reaped``.

On PostgreSQL the writer's connections carry ``application_name`` ``WRITER_APP``,
so the test can wait until the server has finished with a killed writer.
"""

from __future__ import annotations

import asyncio
import os
import sys
import traceback
from urllib.parse import urlsplit, urlunsplit

from aimind_memory.memory import FinalTurn, open_memory

WRITER_APP = "aimind-kill-writer"


def tagged(url: str) -> str:
    """``url`` with the writer's ``application_name`` (PostgreSQL only)."""
    if not url.startswith("postgresql://"):
        return url
    parts = urlsplit(url)
    query = "&".join(filter(None, [parts.query, f"application_name={WRITER_APP}"]))
    return urlunsplit(parts._replace(query=query))


def user_text(i: int) -> str:
    return f"Turn {i:05d}: we decided item {i:05d}. Some more words about it."


async def write_forever(url: str, session: str, start: int, ackfile: str) -> None:
    fd = os.open(ackfile, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    async with open_memory(tagged(url)) as mem:
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
                except BaseException:  # os._exit skips the interpreter's report: print it
                    traceback.print_exc()
                    sys.stderr.flush()
                finally:
                    os._exit(3)
            print(f"pid {pid}", flush=True)
        elif command == "reap":
            os.waitpid(int(args[0]), 0)
            print("reaped", flush=True)


if __name__ == "__main__":
    main()
