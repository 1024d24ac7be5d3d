"""agent-chat-ui's requests, byte for byte, for replaying against a real server.

Read from langchain-ai/agent-chat-ui at commit fdc87e6 (``src/components/thread/index.tsx``
``handleSubmit``; ``src/components/thread/agent-inbox/hooks/use-interrupted-actions.tsx``
``resumeRun`` and ``handleResolve``; ``src/providers/Stream.tsx`` ``useStream({...,
fetchStateHistory: true})``) and the ``@langchain/langgraph-sdk`` 1.8.10 its lockfile pins
(``react/stream.lgp.js`` ``submit`` → ``client.runs.stream``; ``client.threads.search``
for the thread list of ``src/providers/Thread.tsx``), and checked against what
that UI, run unchanged in Chromium, sent to our ``langgraph dev``: every submit first
reads ``POST /threads/{id}/history {"limit": 10}`` and sends the head's checkpoint with
the run; a new message is ``{"messages": [{"id", "type": "human", "content": [{"type":
"text", "text"}]}]}``; every button of a review card resumes with ``"input": {}`` and a
``command``; the session token is the API key (``X-Api-Key``).

Regenerate and Edit fork the thread (``src/components/thread/index.tsx``
``handleRegenerate``, ``messages/ai.tsx``, ``messages/human.tsx`` ``handleSubmitEdit``).
Both send the checkpoint ``getMessagesMetadata(message).firstSeenState.parent_checkpoint``
(``react/stream.lgp.js``): ``firstSeenState`` is ``findLast`` over the history the hook
read (``POST /threads/{id}/history {"limit": 10}``, newest first), i.e. the oldest of
those ten states whose ``values.messages`` hold the message, and ``submit`` drops the
checkpoint's ``thread_id`` (a ``null`` parent: no checkpoint at all, the head).
Regenerate is ``submit(undefined, {checkpoint, streamMode: ["values"], ...})``: the body
has no ``input`` key (``JSON.stringify`` leaves ``undefined`` out). Edit is
``submit({messages: [{type: "human", content: value}]}, {checkpoint, ...})``: a new
message without an id, its content a plain string.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

import httpx

TIMEOUT = httpx.Timeout(120.0)
HISTORY_LIMIT = 10
"""``fetchStateHistory: true`` reads this many states of the thread."""
MESSAGE_STREAM = {
    "stream_mode": ["values", "messages-tuple", "custom"],
    "stream_subgraphs": True,
    "stream_resumable": True,
    "on_disconnect": "continue",
}
"""What the composer's submit adds (``streamMode: ["values"]`` plus the hook's own)."""
RESUME_STREAM = {
    "stream_mode": ["messages-tuple", "values", "custom"],
    "stream_resumable": False,
    "on_disconnect": "cancel",
}
"""What a review card's buttons add (``submit({}, {command})``)."""
MARK_AS_RESOLVED = {"goto": "__end__"}
THREAD_LIST_LIMIT = 100
"""``getThreads``: ``client.threads.search({metadata: {graph_id}, limit: 100})``."""


def text_of(message: dict[str, Any]) -> str:
    """A message's text, whether its content is a string or content blocks (the UI's)."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def decide(decision: dict[str, Any]) -> dict[str, Any]:
    """The command of a review card's submit: ``{"resume": {"decisions": [decision]}}``."""
    return {"resume": {"decisions": [decision]}}


def edit(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return decide({"type": "edit", "edited_action": {"name": name, "args": args}})


@dataclass
class AgentChatUI:
    """One browser tab of agent-chat-ui: a deployment URL, an assistant and an API key."""

    url: str
    assistant: str
    api_key: str

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.url, timeout=TIMEOUT, headers={"X-Api-Key": self.api_key}
        )

    async def new_thread(self) -> str:
        async with self._client() as client:
            response = await client.post("/threads", json={"metadata": {}})
        response.raise_for_status()
        return str(response.json()["thread_id"])

    async def thread_list(self) -> list[tuple[str, str]]:
        """The thread list's entries (thread id, label), as ``ThreadList`` shows them: the
        first message's text (``getContentString``) or, without one, the thread id."""
        body = {"metadata": {"graph_id": self.assistant}, "limit": THREAD_LIST_LIMIT, "offset": 0}
        async with self._client() as client:
            response = await client.post("/threads/search", json=body)
        response.raise_for_status()
        return [(t["thread_id"], _label(t)) for t in response.json()]

    async def history(self, thread_id: str) -> list[dict[str, Any]]:
        async with self._client() as client:
            response = await client.post(
                f"/threads/{thread_id}/history", json={"limit": HISTORY_LIMIT}
            )
        response.raise_for_status()
        return list(response.json())

    async def head(self, thread_id: str) -> dict[str, Any] | None:
        """The head's checkpoint as the SDK sends it (``thread_id`` removed)."""
        states = await self.history(thread_id)
        if not states or not states[0].get("checkpoint"):
            return None
        return {k: v for k, v in states[0]["checkpoint"].items() if k != "thread_id"}

    async def first_seen_parent(self, thread_id: str, message_id: str) -> dict[str, Any] | None:
        """``getMessagesMetadata(message).firstSeenState.parent_checkpoint``, as ``submit``
        sends it (``thread_id`` removed); None when the message has no such state."""
        states = await self.history(thread_id)
        seen = [
            state
            for state in states
            if state.get("values") is not None
            and any(m.get("id") == message_id for m in state["values"].get("messages", []))
        ]
        parent = seen[-1].get("parent_checkpoint") if seen else None
        if not parent:
            return None
        return {k: v for k, v in parent.items() if k != "thread_id"}

    async def _submit(
        self, thread_id: str, body: dict[str, Any], *, fork: bool = False
    ) -> list[tuple[str, Any]]:
        if not fork:  # the head's checkpoint; a fork's body carries its own (or none)
            head = await self.head(thread_id)
            if head is not None:
                body = {**body, "checkpoint": head}
        events: list[tuple[str, Any]] = []
        async with (
            self._client() as client,
            client.stream("POST", f"/threads/{thread_id}/runs/stream", json=body) as response,
        ):
            if response.status_code != 200:
                await response.aread()
                raise AssertionError(f"{response.status_code}: {response.text}")
            event = ""
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    event = line[len("event:") :].strip()
                elif line.startswith("data:") and event:
                    events.append((event, json.loads(line[len("data:") :])))
        errors = [data for name, data in events if name == "error"]
        assert not errors, errors
        await self.history(thread_id)  # the hook reads the thread again when the run ends
        return events

    async def send(self, thread_id: str, text: str, message_id: str | None = None) -> list:
        """The composer: type ``text`` and press Enter."""
        message = {
            "id": message_id or str(uuid.uuid4()),
            "type": "human",
            "content": [{"type": "text", "text": text}],
        }
        body = {"input": {"messages": [message]}, **MESSAGE_STREAM, "assistant_id": self.assistant}
        return await self._submit(thread_id, body)

    async def regenerate(self, thread_id: str, answer_id: str) -> list:
        """An answer's Regenerate button: ``submit(undefined, {checkpoint: parent, ...})``."""
        body: dict[str, Any] = {**MESSAGE_STREAM, "assistant_id": self.assistant}
        checkpoint = await self.first_seen_parent(thread_id, answer_id)
        if checkpoint is not None:
            body["checkpoint"] = checkpoint
        return await self._submit(thread_id, body, fork=True)

    async def edit(self, thread_id: str, question_id: str, text: str) -> list:
        """A question's Edit, then Submit: ``submit({messages: [{type: "human", content}]},
        {checkpoint: parent, ...})``."""
        message = {"type": "human", "content": text}
        body: dict[str, Any] = {
            "input": {"messages": [message]},
            **MESSAGE_STREAM,
            "assistant_id": self.assistant,
        }
        checkpoint = await self.first_seen_parent(thread_id, question_id)
        if checkpoint is not None:
            body["checkpoint"] = checkpoint
        return await self._submit(thread_id, body, fork=True)

    async def press(self, thread_id: str, command: dict[str, Any]) -> list:
        """A review card's button: approve, an edit's Submit, Submit rejection, Mark as
        Resolved."""
        body = {"input": {}, "command": command, **RESUME_STREAM, "assistant_id": self.assistant}
        return await self._submit(thread_id, body)

    async def state(self, thread_id: str) -> dict[str, Any]:
        async with self._client() as client:
            response = await client.get(f"/threads/{thread_id}/state")
        response.raise_for_status()
        return dict(response.json())

    async def interrupt(self, thread_id: str) -> dict[str, Any] | None:
        """The pending interrupt's value, as the UI finds it (``thread.interrupt``)."""
        state = await self.state(thread_id)
        pending = [i for task in state.get("tasks", []) for i in task.get("interrupts", [])]
        return pending[0]["value"] if pending else None


def _label(thread: dict[str, Any]) -> str:
    """``history/index.tsx``: ``values.messages[0]``'s text when there is one."""
    values = thread.get("values")
    messages = values.get("messages") if isinstance(values, dict) else None
    if not isinstance(messages, list) or not messages:
        return str(thread["thread_id"])
    content = messages[0]["content"]
    if isinstance(content, str):
        return content
    return " ".join(part["text"] for part in content if part.get("type") == "text")
