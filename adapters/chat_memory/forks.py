"""The turns of memory that a run from an earlier checkpoint replaces (issue 30).

agent-chat-ui's Regenerate runs an answer again from the checkpoint before it (no
input: the question is already there); its Edit sends a new question, without an
id, from the checkpoint before the one it edits. Either way the thread forks: what
the thread said after that checkpoint is no longer on the user's screen, so it must
leave memory too — the model must not read the answer it is replacing as a past
turn, and once the new turn is written, memory holds it and not the old one.

Memory is per session and keeps no thread ids, so a thread keeps its own account:
the memory ids of the turns it wrote (their questions'; ``MEMORY_IDS``, a channel of
its state, as many turns as the window can hold while a compaction is pending;
``recorded``). A run from checkpoint F reads that
account as of F. The window's messages after the thread's newest turn in it are then
either turns other threads of the session wrote since, which stay, or turns this
thread wrote after F on a branch the user left, which go:

- none — every turn of a thread the session uses alone — nothing is replaced, and
  nothing is read for it;
- some: the thread's newest checkpoints are read once, through the public saver API
  (``alist``) on memory's database — the server's, on SQLite and PostgreSQL alike,
  Aegra's tables included. What their accounts hold beyond F's, this thread wrote
  after F, and it goes; the rest is other threads' and stays. (A question without
  an id cannot be told from a new one in the graph: LangGraph gives every message
  written to the transcript's channel an id, so an Edit looks like a new question
  from another checkpoint.)

A question memory holds that no checkpoint of the thread accounts for (a client
resending a message to a stateless run) replaces nothing: memory's dedupe skips it
(contract §4). A turn already folded into the summary is not in the window: it stays in
the summary, and the new turn is written as usual. A thread whose checkpoints are not
on memory's database (a library graph on a checkpointer of its own) replaces nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig

from aimind_memory.adapters.chat_memory.runtime import get_memory
from aimind_memory.memory import AppendResult, MemoryService, ThreadState

__all__ = [
    "FORK_SCAN_CHECKPOINTS",
    "MEMORY_IDS",
    "account_after",
    "recorded",
    "replaced_turns",
]

log = logging.getLogger("aimind.forks")

MEMORY_IDS = "memory_ids"
"""The state channel a thread keeps its account in: the memory ids of the questions of
the turns it wrote on its branch, oldest first."""
FORK_SCAN_CHECKPOINTS = 8
"""The newest checkpoints of a thread read when a fork must be looked up. The branch
the user left ends among them: only the run's own checkpoints before its first model
call can be newer (two in the chat graph, one more per ``before_*`` hook of an agent's
middleware), whatever order disagreeing clocks give their ids. (A branch left before
that was replaced when it was left.)"""
ROOT_NAMESPACE = ""
"""A root graph's ``checkpoint_ns``: the threads' own checkpoints, not a subgraph's."""

MemoryOpener = Callable[[], Awaitable[MemoryService]]


def recorded(account: Sequence[str] | None, question_id: str, bound: int) -> list[str]:
    """The thread's account after a turn it wrote, its question stored as ``question_id``:
    the newest ``bound`` turns, more than the window can hold."""
    ids = [i for i in account or () if i != question_id]
    return [*ids, question_id][-bound:]


async def account_after(
    account: Sequence[str] | None,
    result: AppendResult | None,
    *,
    opener: MemoryOpener = get_memory,
) -> list[str] | None:
    """The thread's new account once memory wrote its turn (None: nothing was written)."""
    if result is None or not result.written or not result.message_ids:
        return None
    bound = (await opener()).limits.pending_max_messages // 2
    return recorded(account, result.message_ids[0], bound)


def _suspects(memory: ThreadState, account: Sequence[str]) -> list[str]:
    """The questions of the window's turns after the thread's newest turn in it."""
    own = set(account)
    questions = [m.id for m in memory.messages[::2]]  # the window is turns: question, answer
    start = max((i + 1 for i, q in enumerate(questions) if q in own), default=0)
    return [q for q in questions[start:] if q not in own]


async def replaced_turns(
    memory: ThreadState | None,
    config: RunnableConfig,
    *,
    account: Sequence[str] | None,
    opener: MemoryOpener = get_memory,
) -> list[str]:
    """The questions of the window's turns this run replaces, oldest first (a turn leaves
    whole: ``ThreadState.without_turns``, ``append_turn(..., replaces=...)``).

    ``account``: the thread's ``MEMORY_IDS`` as of the checkpoint the run started from.
    Never raises: a lookup that fails replaces nothing (the turn is then written as
    memory's dedupe rules say, contract §4).
    """
    if memory is None:
        return []
    suspects = _suspects(memory, account or ())
    if not suspects:
        return []  # nothing was written since this thread's last turn
    thread_id = (config.get("configurable") or {}).get("thread_id")
    if not isinstance(thread_id, str):
        return []  # a run without a thread forks nothing
    try:
        written = await _written_by_thread(await opener(), thread_id)
    except Exception as exc:  # a lookup that fails must not fail the turn
        log.warning("could not read the thread's earlier branches (%s)", type(exc).__name__)
        return []
    gone = written - set(account or ())
    return [i for i in suspects if i in gone]


async def _written_by_thread(memory: MemoryService, thread_id: str) -> set[str]:
    """Every memory id the thread's newest checkpoints account for, on any branch."""
    config: Any = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ROOT_NAMESPACE}}
    found: set[str] = set()
    async for item in memory.backend.saver.alist(config, limit=FORK_SCAN_CHECKPOINTS):
        ids = item.checkpoint.get("channel_values", {}).get(MEMORY_IDS)
        if isinstance(ids, list):
            found.update(i for i in ids if isinstance(i, str))
    return found
