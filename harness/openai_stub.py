"""A small OpenAI-compatible HTTP server on loopback, so ``ChatOpenAI``'s real wire path runs.

``POST <its own path>/v1/chat/completions`` answers from a queue of scripted replies (text,
tool calls, or JSON for ``response_format: json_schema``), or from a
``responder(body)`` callable, plain or streamed as server-sent events. Every
request body is recorded in ``requests``. A reply with ``delay_s`` is sent that
many seconds late (and one with ``after`` once that event is set), without holding
up other requests (a slow model call); one with an error ``status`` is the provider's
error response (a 429, a 500), which the OpenAI client retries as it would a real one.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

STARTUP_TIMEOUT_S = 10.0


@dataclass
class Reply:
    """One scripted completion: text content and/or tool calls ``(name, args, id)``."""

    content: str | None = None
    tool_calls: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    delay_s: float = 0.0
    """Seconds to wait before answering, as a slow model would."""
    after: threading.Event | None = None
    """Answer only once this is set (then ``delay_s`` later): a model call that is still
    in flight whatever the machine's speed, until the test lets it finish."""
    status: int = 200
    """An HTTP error status (429, 500, …): the provider's error body, ``content`` its message."""


ERROR_TYPES = {429: "rate_limit_exceeded", 500: "server_error", 503: "server_error"}
RETRY_AFTER_MS = "20"
"""How soon the stub's error responses ask the client to retry (the OpenAI client honours
``retry-after-ms``): a provider that keeps failing, without slowing the tests down."""


def error(status: int, message: str = "stub provider error") -> Reply:
    """The provider's error response of ``status``."""
    return Reply(content=message, status=status)


def text(content: str) -> Reply:
    return Reply(content=content)


def tool_call(name: str, args: dict[str, Any], call_id: str = "call_stub_1") -> Reply:
    return Reply(tool_calls=[(name, args, call_id)])


def json_reply(value: Any) -> Reply:
    """Structured output: the JSON document is the message content."""
    return Reply(content=json.dumps(value, ensure_ascii=False))


class OpenAIStub:
    def __init__(self, responder: Callable[[dict[str, Any]], Reply] | None = None) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.responder = responder
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._count = 0
        self._path = f"/{uuid.uuid4().hex[:12]}/v1"
        """Each stub's own path: langchain_openai keeps one HTTP client per base URL for the
        process, and a later stub on a port an earlier one used would get the earlier
        client, its pooled connections tied to a test's event loop that is closed."""

    @property
    def base_url(self) -> str:
        assert self._server is not None
        port = self._server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}{self._path}"

    def _next(self, body: dict[str, Any]) -> Reply:
        if self.replies:
            return self.replies.pop(0)
        if self.responder is not None:
            return self.responder(body)
        return text("stub reply")

    async def _completions(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        reply = self._next(body)
        # a threading.Event, set from the test's thread: polled, not awaited
        while reply.after is not None and not reply.after.is_set():  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        if reply.delay_s > 0:
            await asyncio.sleep(reply.delay_s)
        self._count += 1
        if reply.status >= 400:
            kind = ERROR_TYPES.get(reply.status, "invalid_request_error")
            failure = {"message": reply.content, "type": kind, "param": None, "code": kind}
            headers = {"retry-after-ms": RETRY_AFTER_MS}
            return JSONResponse({"error": failure}, status_code=reply.status, headers=headers)
        completion_id = f"chatcmpl-stub-{self._count}"
        if body.get("stream"):
            return StreamingResponse(
                self._sse(completion_id, body, reply), media_type="text/event-stream"
            )
        message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": cid,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for name, args, cid in reply.tool_calls
            ]
        return JSONResponse(
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "stub"),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "logprobs": None,
                        "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        )

    async def _sse(
        self, completion_id: str, body: dict[str, Any], reply: Reply
    ) -> AsyncIterator[str]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            payload = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": body.get("model", "stub"),
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(payload)}\n\n"

        yield chunk({"role": "assistant", "content": ""})
        for token in _tokens(reply.content or ""):
            yield chunk({"content": token})
        for index, (name, args, cid) in enumerate(reply.tool_calls):
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
            yield chunk(
                {"tool_calls": [{"index": index, "function": {"arguments": json.dumps(args)}}]}
            )
        yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": body.get("model", "stub"),
                "choices": [],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
            yield f"data: {json.dumps(usage)}\n\n"
        yield "data: [DONE]\n\n"

    def app(self) -> Starlette:
        return Starlette(
            routes=[Route(f"{self._path}/chat/completions", self._completions, methods=["POST"])]
        )

    def start(self) -> OpenAIStub:
        config = uvicorn.Config(
            self.app(), host="127.0.0.1", port=0, log_level="warning", lifespan="off"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the OpenAI stub server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=STARTUP_TIMEOUT_S)


def _tokens(content: str) -> list[str]:
    words = content.split(" ")
    return [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words) if w or i == 0]


@contextmanager
def running_stub(
    responder: Callable[[dict[str, Any]], Reply] | None = None,
) -> Iterator[OpenAIStub]:
    stub = OpenAIStub(responder).start()
    try:
        yield stub
    finally:
        stub.stop()
