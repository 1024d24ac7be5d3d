"""A thread list shows each conversation's first message on Aegra, as on ``langgraph dev`` (§8a).

Why: agent-chat-ui labels each entry of its thread list with
``values.messages[0].content`` of what ``POST /threads/search`` returns
(``src/components/thread/history/index.tsx``), falling back to the raw thread id.
``langgraph dev`` returns each thread's state there; Aegra's thread objects carry no
``values`` at all, so every entry read as a UUID. Aegra does keep the first user
message of a thread's first run as ``metadata.thread_name`` (trimmed to 100
characters at a word, with "...").

``ThreadLabels`` fills the gap in the search's response, nothing else: a thread that
comes back without ``values`` but with a ``thread_name`` gets ``values: {"messages":
[{"type": "human", "content": <thread_name>}]}`` — its name, as the one message a
list needs. A thread that has ``values`` (every one on ``langgraph dev``) or no name
(no run yet) is left as it is. Read a thread's state from ``GET /threads/{id}/state``:
this is a label, not the state.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ThreadLabels", "labelled"]

SEARCH_PATH = re.compile(r"/threads/search/?")
NAME_KEY = "thread_name"


def labelled(threads: Any) -> Any | None:
    """``threads`` (a search's JSON) with a label on each thread that needs one; None when
    none does (the response is then passed on byte for byte)."""
    if not isinstance(threads, list):
        return None
    changed = False
    for thread in threads:
        if not isinstance(thread, dict) or thread.get("values") is not None:
            continue
        metadata = thread.get("metadata")
        name = metadata.get(NAME_KEY) if isinstance(metadata, dict) else None
        if isinstance(name, str) and name.strip():
            thread["values"] = {"messages": [{"type": "human", "content": name}]}
            changed = True
    return threads if changed else None


class ThreadLabels:
    """Label the threads of a ``POST /threads/search`` response that come without values."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not (
            scope["type"] == "http"
            and scope["method"] == "POST"
            and SEARCH_PATH.fullmatch(scope["path"])
        ):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        chunks: list[bytes] = []

        async def buffered(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            await _send_labelled(start, b"".join(chunks), send)

        await self.app(scope, receive, buffered)


async def _send_labelled(start: Message, body: bytes, send: Send) -> None:
    headers = MutableHeaders(raw=list(start["headers"]))
    if start["status"] == 200 and "json" in headers.get("content-type", ""):
        try:
            threads = labelled(json.loads(body))
        except (ValueError, RecursionError):
            threads = None
        if threads is not None:
            body = json.dumps(threads, separators=(",", ":")).encode()
            headers["content-length"] = str(len(body))
    await send({**start, "headers": headers.raw})
    await send({"type": "http.response.body", "body": body, "more_body": False})
