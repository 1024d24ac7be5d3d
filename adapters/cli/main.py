"""The ``aimind`` command line (SPEC §14): chat, memory show, demo.

A ``--session NAME`` maps to a session token deterministically: a NAME that is
already a valid token (16..128 of ``[A-Za-z0-9_-]``) is used as is, anything
else becomes ``cli-`` + 40 hex of its SHA-256. The same NAME therefore always
reaches the same memory. Storage is ``AIMIND_DATABASE_URL``, by default the
embedded SQLite in the data folder (``memory.storage.paths``: ``AIMIND_DATA_DIR``, else the
checkout's ``.aimind/``, else ``~/.local/share/aimind``) — the same place
``langgraph dev`` uses, whatever the current folder.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import logging
import shlex
import sys
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk

from adapters.cli.graphs import GraphLoadError, load_graph
from memory import ThreadState
from memory.compaction import STATUS_EVENT
from memory.session import TOKEN_RE
from memory.storage import database_url

DEFAULT_SESSION_NAME = "default"
DEMO_SESSION_NAME = "aimind-demo-session"
CLI_TOKEN_PREFIX = "cli-"
CLI_TOKEN_HEX_CHARS = 40
EXIT_COMMANDS = frozenset({"/exit", "/quit", "exit", "quit"})

CHAT_GRAPH, DELIVERY_GRAPH = "chat", "delivery-chain"
DEMO_TURNS: tuple[tuple[str, str], ...] = (
    (CHAT_GRAPH, "Hi! We decided to use PostgreSQL in production and SQLite for local dev."),
    (CHAT_GRAPH, "我们决定第一版不做移动端，先做网页版。"),
    (CHAT_GRAPH, "What is 1234 * 5678?"),
    (CHAT_GRAPH, "Please read @docs/requirements.md and tell me what matters most."),
    (CHAT_GRAPH, "We must not store tool output in chat memory."),
    (DELIVERY_GRAPH, "Deliver CSV export for the reports page."),
    (CHAT_GRAPH, "约定：每周五发布一次新版本。"),
    (CHAT_GRAPH, "What is (17 + 25) * 3?"),
    (CHAT_GRAPH, "Can you recap what we agreed so far?"),
    (CHAT_GRAPH, "Which database did we pick for production?"),
    (CHAT_GRAPH, "我们的第一版要做移动端吗？"),
    (CHAT_GRAPH, "Thanks! List the pinned decisions one more time."),
)
"""(graph, user text): decisions early, one through the delivery chain to show one
shared memory across graphs."""

Printer = Callable[[str], None]


def session_token(name: str) -> str:
    """A valid session token for ``name``, the same one every time."""
    if TOKEN_RE.fullmatch(name):
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:CLI_TOKEN_HEX_CHARS]
    return f"{CLI_TOKEN_PREFIX}{digest}"


def _say(text: str = "", end: str = "\n") -> None:
    sys.stdout.write(text + end)
    sys.stdout.flush()


def status_line(event: dict[str, Any]) -> str:
    return (
        f"[memory] compaction {event.get('status')}: summary "
        f"{event.get('summaryLength')} chars, {event.get('pinnedDecisionCount')} pinned"
    )


def format_memory(state: ThreadState) -> str:
    """The ThreadState as a person reads it: summary, pins, recent window."""
    lines = [f"summary ({len(state.summary)} chars):"]
    lines += [f"  {line}" for line in state.summary.splitlines()] or ["  (none)"]
    lines.append(f"pinned decisions ({len(state.pinned_decisions)}):")
    lines += [f"  - {pin}" for pin in state.pinned_decisions] or ["  (none)"]
    lines.append(f"recent messages ({len(state.messages)}):")
    lines += [f"  {m.role}: {m.text}" for m in state.messages] or ["  (none)"]
    compacted = state.last_compacted_at.isoformat() if state.last_compacted_at else "never"
    lines.append(f"last compacted: {compacted}")
    return "\n".join(lines)


async def run_turn(graph: Any, token: str, text: str) -> tuple[str, bool]:
    """Stream one turn to the terminal; returns the answer and whether memory compacted.

    The chat graph's answer streams token by token; another graph's final
    message is printed when its run ends.
    """
    answer: list[str] = []
    final = ""
    compacted = False
    midline = True
    _say("ai> ", end="")
    async for mode, event in graph.astream(
        {"messages": [{"role": "user", "content": text}]},
        context={"session_id": token},
        stream_mode=["messages", "custom", "values"],
    ):
        if mode == "messages":
            chunk, meta = event
            if not isinstance(chunk, AIMessageChunk) or meta.get("langgraph_node") != "agent":
                continue
            for call in chunk.tool_call_chunks or []:
                if call.get("name"):
                    _say(f"[tool {call['name']}] ", end="")
            piece = str(chunk.text)
            if piece:
                answer.append(piece)
                _say(piece, end="")
        elif mode == "values" and isinstance(event, dict) and event.get("messages"):
            last = event["messages"][-1]
            final = str(last.text) if isinstance(last, AIMessage) else final
        elif mode == "custom" and isinstance(event, dict) and event.get("type") == STATUS_EVENT:
            if not answer and final:
                answer.append(final)
                _say(final, end="")
            if midline:
                _say()
                midline = False
            _say(status_line(event))
            # every compaction starts in the turn that overflows the window; a model
            # compaction lands after it (load() below waits for it to)
            compacted = compacted or event.get("status") == "started"
    if not answer and final:
        answer.append(final)
        _say(final, end="")
        midline = True
    if midline:
        _say()
    return "".join(answer), compacted


async def _memory_state(token: str) -> ThreadState:
    from adapters.chat_memory.runtime import get_memory

    return await (await get_memory()).load(token)


async def chat(session: str) -> int:
    from adapters.chat_memory.runtime import close_memory
    from adapters.tools.mcp.sessions import close_mcp_sessions

    graph = load_graph(CHAT_GRAPH)
    token = session_token(session)
    _say(
        f"aimind chat — session {session!r}, storage {_storage()}. /memory shows memory, "
        "/exit quits."
    )
    try:
        while True:
            try:
                text = (await asyncio.to_thread(input, "you> ")).strip()
            except EOFError:
                _say()
                break
            if not text:
                continue
            if text in EXIT_COMMANDS:
                break
            if text == "/memory":
                _say(format_memory(await _memory_state(token)))
                continue
            await run_turn(graph, token, text)
            state = await _memory_state(token)
            _say(
                f"[memory] {len(state.messages) // 2} recent turns, summary "
                f"{len(state.summary)} chars, {len(state.pinned_decisions)} pinned"
            )
    finally:
        await close_mcp_sessions()
        await close_memory()
    return 0


async def memory_show(session: str) -> int:
    """Print the session's memory; a session with none is an error (exit 1), in a sentence."""
    from adapters.chat_memory.runtime import close_memory, get_memory

    token = session_token(session)
    try:
        service = await get_memory()
        state = await service.load(token)
        if state.is_empty:
            sys.stderr.write(
                f"No chat memory for session {session!r} in {_storage()}. A session gets "
                f"memory once it has chatted: aimind chat --session {shlex.quote(session)}\n"
            )
            return 1
        _say(f"session {session!r} — memory thread {service.thread_id(token)}")
        _say(format_memory(state))
    finally:
        await close_memory()
    return 0


def _demo_graphs() -> dict[str, Any]:
    chat_graph = load_graph(CHAT_GRAPH)
    graphs = {CHAT_GRAPH: chat_graph}
    try:
        delivery_graph = load_graph(DELIVERY_GRAPH)
    except Exception:  # the demo still runs on the chat graph alone
        logging.getLogger("aimind.cli").warning("delivery-chain unavailable; using chat")
        delivery_graph = chat_graph
    graphs[DELIVERY_GRAPH] = delivery_graph
    return graphs


async def demo() -> int:
    """Twelve scripted turns through the real graphs, printing memory at each compaction."""
    from adapters.chat_memory.runtime import close_memory, get_memory
    from adapters.tools.mcp.sessions import close_mcp_sessions

    graphs = _demo_graphs()
    token = session_token(DEMO_SESSION_NAME)
    try:
        service = await get_memory()
        await service.clear(token)
        _say(
            f"aimind demo — {len(DEMO_TURNS)} turns, session {DEMO_SESSION_NAME!r}, "
            f"storage {_storage()}"
        )
        compactions = 0
        for number, (graph_name, text) in enumerate(DEMO_TURNS, start=1):
            _say(f"\n--- turn {number} ({graph_name}) ---")
            _say(f"you> {text}")
            _, compacted = await run_turn(graphs[graph_name], token, text)
            if compacted:
                compactions += 1
                _say(f"\n=== memory after compaction {compactions} (turn {number}) ===")
                _say(format_memory(await service.load(token)))
        _say("\n=== final memory ===")
        _say(format_memory(await service.load(token)))
        _say(f"\ndemo finished: {len(DEMO_TURNS)} turns, {compactions} compactions")
        _say(
            f"session {DEMO_SESSION_NAME!r}; look at its memory again with: "
            f"aimind memory show --session {DEMO_SESSION_NAME}"
        )
    finally:
        await close_mcp_sessions()
        await close_memory()
    return 0


def _storage() -> str:
    url = database_url()
    return url.split("@")[-1] if url.startswith("postgres") else url


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aimind", description="AI Mind chat memory runtime")
    commands = parser.add_subparsers(dest="command", required=True)
    chat_cmd = commands.add_parser("chat", help="chat in the terminal through the chat graph")
    chat_cmd.add_argument("--session", default=DEFAULT_SESSION_NAME, help="session name")
    memory_cmd = commands.add_parser("memory", help="inspect chat memory")
    memory_sub = memory_cmd.add_subparsers(dest="memory_command", required=True)
    show = memory_sub.add_parser("show", help="print a session's ThreadState")
    show.add_argument("--session", default=DEFAULT_SESSION_NAME, help="session name")
    commands.add_parser("demo", help="a scripted 12-turn conversation showing compaction")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="[%(levelname)s] %(message)s")
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    try:
        if args.command == "chat":
            return asyncio.run(chat(args.session))
        if args.command == "memory":
            return asyncio.run(memory_show(args.session))
        return asyncio.run(demo())
    except GraphLoadError as exc:
        sys.stderr.write(f"{exc}.\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
