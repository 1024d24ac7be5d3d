"""The ``aimind`` command line (contract §14, §9a): chat, memory show|pin|unpin|edit|forget|export,
demo.

A ``--session NAME`` maps to a session token deterministically: a NAME that is
already a valid token (16..128 of ``[A-Za-z0-9_-]``) is used as is, anything
else becomes ``cli-`` + 40 hex of its SHA-256. The same NAME therefore always
reaches the same memory. Storage is ``AIMIND_DATABASE_URL``, by default the
embedded SQLite in the data folder (``memory.storage.paths``: ``AIMIND_DATA_DIR``, else the
checkout's ``.aimind/``, else ``~/.local/share/aimind``) — the same place
``langgraph dev`` uses, whatever the current folder.

Exit codes: 0 done; 1 refused as asked (no such pin, blank or too long text, every pin
the user's, forget not confirmed, no memory to show, a file that cannot be written, a
malformed setting — ``adapters.settings``, checked before anything runs);
2 a command line argparse cannot read; 3 memory could not be reached. Every refusal is
one sentence on stderr; nothing else is printed then.

Only the standard library and ``memory.errors`` are imported at module level: each
command imports memory, the settings and the model messages when it runs, so ``--help``
and a mistyped command line answer without loading them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shlex
import sys
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aimind_memory.adapters.cli.graphs import load_graph
from aimind_memory.adapters.errors import GraphLoadError
from aimind_memory.memory.errors import MemoryEditError, MemoryUnavailableError, SettingsError

if TYPE_CHECKING:  # at run time each command imports what it uses: --help stays fast
    from aimind_memory.memory import MemoryService, ThreadState
    from aimind_memory.memory.models import Pin

DEFAULT_SESSION_NAME = "default"
DEMO_SESSION_NAME = "aimind-demo-session"
CLI_TOKEN_PREFIX = "cli-"
CLI_TOKEN_HEX_CHARS = 40
EXIT_COMMANDS = frozenset({"/exit", "/quit", "exit", "quit"})
EXIT_OK, EXIT_REFUSED, EXIT_UNAVAILABLE = 0, 1, 3
YES = frozenset({"y", "yes"})

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


def session_token(name: str) -> str:
    """A valid session token for ``name``, the same one every time."""
    from aimind_memory.memory.session import TOKEN_RE

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


def format_pin(pin: Pin) -> list[str]:
    """A pin as a person reads it: its text, then its id, who pinned it and when, why,
    then each message it came from (role, id, when, an excerpt)."""
    when = pin.pinned_at.isoformat(timespec="seconds") if pin.pinned_at else "before provenance"
    lines = [f"  - {pin.text}", f"    id {pin.id} · {pin.origin} · pinned {when}"]
    if pin.why:
        lines.append(f"    why: {pin.why}")
    for source in pin.sources:
        said = f" ({source.created_at.isoformat(timespec='seconds')})" if source.created_at else ""
        where = f"{source.role} message {source.message_id}{said}"
        lines.append(f"    from {where}: {source.excerpt}")
    return lines


def format_memory(state: ThreadState) -> str:
    """The ThreadState as a person reads it: summary, pins with provenance, recent window."""
    lines = [f"summary ({len(state.summary)} chars):"]
    lines += [f"  {line}" for line in state.summary.splitlines()] or ["  (none)"]
    lines.append(f"pins ({len(state.pins)}):")
    lines += [line for pin in state.pins for line in format_pin(pin)] or ["  (none)"]
    if state.replaced:  # the user's history of changes (contract §5), newest last
        by_id = {p.id: p.text for p in state.pins}
        lines.append(f"replaced decisions ({len(state.replaced)}):")
        for old in state.replaced:
            lines.append(f"  - {old.text}")
            after = f" by: {by_id[old.replaced_by]}" if old.replaced_by in by_id else ""
            when = old.replaced_at.isoformat(timespec="seconds")
            lines.append(f"    replaced {when}{after}")
            if old.why:
                lines.append(f"    why: {old.why}")
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
    from langchain_core.messages import AIMessage, AIMessageChunk

    from aimind_memory.memory.compaction import STATUS_EVENT

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
    from aimind_memory.adapters.chat_memory.runtime import get_memory

    return await (await get_memory()).load(token)


async def chat(session: str) -> int:
    import asyncio

    from aimind_memory.adapters.chat_memory.runtime import close_memory
    from aimind_memory.adapters.tools.mcp.sessions import close_mcp_sessions

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


def _refuse(sentence: str, code: int = EXIT_REFUSED) -> int:
    sys.stderr.write(f"{sentence}\n")
    return code


MemoryAction = Callable[["MemoryService", str], Awaitable[int]]


async def with_memory(session: str, action: MemoryAction) -> int:
    """Run ``action(service, token)`` for the session; memory's refusals become a sentence
    and an exit code."""
    from aimind_memory.adapters.chat_memory.runtime import close_memory, get_memory

    try:
        return await action(await get_memory(), session_token(session))
    except MemoryEditError as exc:
        return _refuse(str(exc))
    except MemoryUnavailableError:
        return _refuse(
            f"Chat memory in {_storage()} is unavailable right now: nothing was changed.",
            EXIT_UNAVAILABLE,
        )
    finally:
        await close_memory()


async def memory_show(session: str) -> int:
    """Print the session's memory; a session with none is an error (exit 1), in a sentence."""

    async def show(service: MemoryService, token: str) -> int:
        state = await service.load(token)
        if state.is_empty:
            return _refuse(
                f"No chat memory for session {session!r} in {_storage()}. A session gets "
                f"memory once it has chatted: aimind chat --session {shlex.quote(session)}"
            )
        _say(f"session {session!r} — memory thread {service.thread_id(token)}")
        _say(format_memory(state))
        return EXIT_OK

    return await with_memory(session, show)


async def memory_pin(session: str, text: str) -> int:
    async def pin(service: MemoryService, token: str) -> int:
        made = await service.pin(token, text)
        _say(f"pinned {made.id}: {made.text}")
        return EXIT_OK

    return await with_memory(session, pin)


async def memory_edit(session: str, pin_id: str, text: str) -> int:
    async def edit(service: MemoryService, token: str) -> int:
        made = await service.edit_pin(token, pin_id, text)
        _say(f"edited {made.id}: {made.text}")
        return EXIT_OK

    return await with_memory(session, edit)


async def memory_unpin(session: str, pin_id: str) -> int:
    async def unpin(service: MemoryService, token: str) -> int:
        gone = await service.unpin(token, pin_id)
        _say(f"unpinned {gone.id}: {gone.text}")
        return EXIT_OK

    return await with_memory(session, unpin)


async def memory_forget(session: str, *, yes: bool) -> int:
    """Forget the session's memory for good, after a confirmation unless ``yes``."""
    import asyncio

    async def forget(service: MemoryService, token: str) -> int:
        state = await service.load(token)
        if not yes:
            question = (
                f"Forget everything session {session!r} remembers — its summary, "
                f"{_count(state.pins, 'pin')} and {_count(state.messages, 'recent message')}? "
                "This cannot be undone. [y/N] "
            )
            try:
                answer = await asyncio.to_thread(input, question)
            except EOFError:
                answer = ""
            if answer.strip().lower() not in YES:
                return _refuse("Nothing was forgotten: answer y, or pass --yes.")
        await service.forget(token)
        _say(f"forgot session {session!r}: its memory is gone from {_storage()}")
        return EXIT_OK

    return await with_memory(session, forget)


async def memory_export(session: str, out: Path | None) -> int:
    """The session's memory as one JSON document, on stdout or into ``out`` (mode 0600:
    it holds the conversation)."""
    import asyncio

    async def export(service: MemoryService, token: str) -> int:
        document = json.dumps(await service.export(token), ensure_ascii=False, indent=2)
        if out is None:
            _say(document)
            return EXIT_OK
        try:
            await asyncio.to_thread(_write_private, out, document + "\n")
        except OSError as exc:
            return _refuse(f"Cannot write {out}: {exc.strerror or type(exc).__name__}.")
        _say(f"exported session {session!r} to {out}")
        return EXIT_OK

    return await with_memory(session, export)


def _count(items: list[Any], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _write_private(path: Path, text: str) -> None:
    from aimind_memory.memory.storage.paths import open_private

    fd = open_private(path, os.O_WRONLY | os.O_TRUNC)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


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
    from aimind_memory.adapters.chat_memory.runtime import close_memory, get_memory
    from aimind_memory.adapters.tools.mcp.sessions import close_mcp_sessions

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
    from aimind_memory.memory.storage import database_url

    url = database_url()
    return url.split("@")[-1] if url.startswith("postgres") else url


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aimind", description="AI Mind chat memory runtime")
    commands = parser.add_subparsers(dest="command", required=True)
    chat_cmd = commands.add_parser("chat", help="chat in the terminal through the chat graph")
    chat_cmd.add_argument("--session", default=DEFAULT_SESSION_NAME, help="session name")
    memory_cmd = commands.add_parser("memory", help="inspect and correct chat memory")
    memory_sub = memory_cmd.add_subparsers(dest="memory_command", required=True)
    show = memory_sub.add_parser("show", help="print a session's memory, pins with provenance")
    pin = memory_sub.add_parser("pin", help="pin a text: memory keeps it through compactions")
    pin.add_argument("text", help="what to remember (at most 300 characters)")
    unpin = memory_sub.add_parser("unpin", help="remove a pin (ids: aimind memory show)")
    unpin.add_argument("pin_id", metavar="ID")
    edit = memory_sub.add_parser("edit", help="change a pin's text; it becomes yours")
    edit.add_argument("pin_id", metavar="ID")
    edit.add_argument("text")
    forget = memory_sub.add_parser("forget", help="forget the session's memory for good")
    forget.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    export = memory_sub.add_parser("export", help="the session's memory as one JSON document")
    export.add_argument("--out", type=Path, metavar="FILE", help="write it here (mode 0600)")
    for sub in (show, pin, unpin, edit, forget, export):
        sub.add_argument("--session", default=DEFAULT_SESSION_NAME, help="session name")
    commands.add_parser("demo", help="a scripted 12-turn conversation showing compaction")
    return parser


def _memory_command(args: argparse.Namespace) -> Coroutine[Any, Any, int]:
    command = args.memory_command
    if command == "pin":
        return memory_pin(args.session, args.text)
    if command == "unpin":
        return memory_unpin(args.session, args.pin_id)
    if command == "edit":
        return memory_edit(args.session, args.pin_id, args.text)
    if command == "forget":
        return memory_forget(args.session, yes=args.yes)
    if command == "export":
        return memory_export(args.session, args.out)
    return memory_show(args.session)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="[%(levelname)s] %(message)s")
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    import asyncio

    from aimind_memory.adapters.settings import check_settings

    try:
        check_settings()
        if args.command == "chat":
            return asyncio.run(chat(args.session))
        if args.command == "memory":
            return asyncio.run(_memory_command(args))
        return asyncio.run(demo())
    except GraphLoadError as exc:
        sys.stderr.write(f"{exc}.\n")
        return 1
    except SettingsError as exc:
        sys.stderr.write(f"{exc}\n")
        return EXIT_REFUSED


if __name__ == "__main__":
    sys.exit(main())
