"""What a ``langgraph.json`` (or ``aegra.json``) of your own names to serve your graphs
with this project's session identity, memory routes, chat page and fast runs:

```json
"auth": {"path": "aimind_memory.server:auth"},
"http": {"app": "aimind_memory.server:app"},
"checkpointer": {"path": "aimind_memory.server.checkpointer"}
```

``auth`` authenticates each request by its session token and keeps threads, runs and
crons owner-scoped; ``app`` serves ``/api/chat/*``, the chat page, and — under
``langgraph dev`` — starts a queued run at once instead of at the queue's next poll.
``checkpointer`` (``langgraph dev`` only: Aegra brings its own) keeps your agent's
threads in memory's database (``AIMIND_DATABASE_URL``, or the data folder's SQLite
file), where forgetting a session reaches them; without it ``langgraph dev`` keeps them
in its own files under ``.langgraph_api/``. Its path is dotted (no ``:``): that is how
``langgraph dev`` loads a checkpointer from an installed module.
Needs ``pip install "aimind-memory[server]"`` (``[production]`` for Aegra).
"""

from aimind_memory.adapters.server.app import app
from aimind_memory.adapters.server.auth import auth
from aimind_memory.adapters.server.langgraph_dev.checkpointer import (
    server_checkpointer as checkpointer,
)

__all__ = ["app", "auth", "checkpointer"]
