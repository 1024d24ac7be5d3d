"""What a ``langgraph.json`` (or ``aegra.json``) of your own names to serve your graphs
with this project's session identity, memory routes, chat page and fast runs:

```json
"auth": {"path": "aimind_memory.server:auth"},
"http": {"app": "aimind_memory.server:app"}
```

``auth`` authenticates each request by its session token and keeps threads, runs and
crons owner-scoped; ``app`` serves ``/api/chat/*``, the chat page, and — under
``langgraph dev`` — starts a queued run at once instead of at the queue's next poll.
Needs ``pip install "aimind-memory[server]"`` (``[production]`` for Aegra).
"""

from aimind_memory.adapters.server.app import app
from aimind_memory.adapters.server.auth import auth

__all__ = ["app", "auth"]
