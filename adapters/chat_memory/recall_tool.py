"""``recall_memory``: the archive of folded turns as a tool, for agents that prefer to ask
(contract §5a).

Every model call already gets a recall block for the latest user message
(``middleware``); this tool lets the model look up something else — a word from a
tool's result, a name it needs — in the same archive, for the same session, within
the same budget. ``ChatMemoryMiddleware(recall_tool=True)`` adds it to the agent. Its
answer is quoted earlier conversation, labelled as background; a failure is one
sentence, never an error's text. The tool's answer is tool data: memory never stores it.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain.tools import ToolRuntime
from langchain_core.tools import BaseTool, tool

from aimind_memory.adapters.chat_memory.final_turn import MemoryOpener
from aimind_memory.adapters.chat_memory.session import session_of
from aimind_memory.memory.errors import said
from aimind_memory.memory.views.context import RECALL_HEADER, recall_block

__all__ = ["RECALL_TOOL", "recall_memory_tool"]

log = logging.getLogger("aimind.chat_memory")

RECALL_TOOL = "recall_memory"
NOTHING_FOUND = "Nothing earlier in this conversation matches that."
NO_MEMORY = "This conversation's memory cannot be searched right now."
DESCRIPTION = (
    "Search earlier parts of this conversation that are no longer in view (older turns "
    "are folded into a summary, and kept in an archive). Give a few distinctive words of "
    "what to find (names, places, numbers); returns the matching earlier messages, quoted."
)


def recall_memory_tool(opener: MemoryOpener) -> BaseTool:
    """The ``recall_memory`` tool on the service ``opener`` gives (the middleware's)."""

    @tool(RECALL_TOOL, description=DESCRIPTION)
    async def recall_memory(query: str, runtime: ToolRuntime[Any, Any]) -> str:
        try:
            session = await session_of(runtime.config, runtime.context)
            if session is None:
                return NO_MEMORY
            service = await opener()
            hits = await service.recall(session, query)
        except Exception as exc:
            log.warning("the recall_memory tool failed (%s)", said(exc))
            return NO_MEMORY
        quoted = recall_block(hits, service.limits.recall_chars)
        return f"{RECALL_HEADER}\n{quoted}" if quoted else NOTHING_FOUND

    return recall_memory
