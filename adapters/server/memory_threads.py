"""No HTTP route reaches a chat-memory thread (contract §8): how a request names one.

A session's memory lives on the checkpointer thread ``chat:<sessionHash>``, beside the
agents' threads, and the hash is no secret (it is the hydration DTO's ``threadId`` and
every thread's ``owner``). Aegra accepts any thread id: without this rule a client could
create ``chat:<another session's hash>`` as its own thread and then read that session's
memory through ``/history``, wipe it with ``DELETE`` or write into it with ``/state``
(``langgraph dev`` only takes UUIDs, by luck rather than by design). Memory is read and
changed through ``/api/chat/*`` only, for the caller's own session.

Both the auth handlers (``adapters.server.auth``: the ids LangGraph hands them) and the
HTTP edge (``adapters.server.request_guard``: paths and bodies, for the routes whose
handlers get no thread id, such as Aegra's ``/state`` and ``/history``) refuse it, with
the one sentence below.
"""

from __future__ import annotations

from typing import Any

from aimind_memory.memory.session import MEMORY_THREAD_PREFIX

__all__ = [
    "MEMORY_THREAD_REFUSED",
    "MEMORY_THREAD_STATUS",
    "THREAD_ID_KEYS",
    "is_memory_thread_id",
    "names_memory_thread",
]

MEMORY_THREAD_REFUSED = (
    f"Thread ids starting with '{MEMORY_THREAD_PREFIX}' are reserved for chat memory, which "
    "no thread route reaches: read or clear your memory with /api/chat/thread."
)
MEMORY_THREAD_STATUS = 403
THREAD_ID_KEYS = frozenset({"thread_id", "thread_ids", "ids", "contextId"})
"""Keys under which a request body names threads: a thread's own id, a search's or a
prune's list of ids, an A2A context (which is a thread)."""


def is_memory_thread_id(value: object) -> bool:
    return isinstance(value, str) and value.startswith(MEMORY_THREAD_PREFIX)


def names_memory_thread(value: Any) -> bool:
    """``value`` (an id or a list of ids) names a chat-memory thread."""
    if isinstance(value, list | tuple | set | frozenset):
        return any(is_memory_thread_id(item) for item in value)
    return is_memory_thread_id(value)
