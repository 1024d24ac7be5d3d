"""Every error the adapters raise, in one place, on memory's one base (contract §13b).

Each keeps its builtin base (``ValueError``, ``RuntimeError``, …) so existing ``except``
clauses hold, and its message is one sentence safe to show (no token, no stored text, no
database error). ``aimind_memory`` exports those a library user meets
(``MemoryThreadError``, ``MemoryNotServedError``); the rest are the servers', the tools'
and the command's, which the HTTP routes and the command map to replies by class.
"""

from __future__ import annotations

from aimind_memory.memory.errors import AIMindError, SettingsError

__all__ = [
    "CalculationError",
    "ConfigError",
    "ForgetIncompleteError",
    "GraphLoadError",
    "MCPConfigError",
    "MCPConfigReplacedError",
    "MCPServerLostError",
    "MemoryNotServedError",
    "MemoryThreadError",
    "RequestLimitsError",
    "ResourceError",
    "RunInputError",
    "SessionTokenError",
    "StartLockTimeout",
]

# --- memory's edge: the final-turn adapters and the middleware (chat_memory/) ----------------


class MemoryThreadError(AIMindError, ValueError):
    """A graph was asked to run on a ``chat:`` thread, which only memory may write.

    Args:
        prefix: The reserved prefix (``chat:``), named in the message.
    """

    def __init__(self, prefix: str) -> None:
        super().__init__(
            f"agent runs never use a '{prefix}' thread id: that prefix is reserved for chat memory"
        )


class MemoryNotServedError(AIMindError, RuntimeError):
    """A served run without an authenticated user: its server has no auth, so memory
    cannot tell callers apart. The message says what to add to ``langgraph.json``."""


# --- the settings the servers and tools read (settings.py) ------------------------------------


class RequestLimitsError(SettingsError):
    """A request limit in the environment is malformed; raised at start-up."""


# --- the servers' edge (server/) -------------------------------------------------------------


class SessionTokenError(AIMindError, ValueError):
    """No usable session token; ``message`` is a sentence safe to return with a 401.

    ``source`` is the header that was malformed, ``"cookie"`` for a malformed
    cookie, or None when the request carried no token at all.
    """

    def __init__(self, message: str, source: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source


class RunInputError(AIMindError, ValueError):
    """A run's input is malformed; the message is a sentence safe to return."""


class ForgetIncompleteError(AIMindError):
    """The server refused or failed a delete; what is gone stays gone, and calling
    forget again finishes the job."""

    def __init__(self) -> None:
        super().__init__("Forgetting this session did not finish: please try again.")


class ConfigError(SettingsError, RuntimeError):
    """A production replica cannot start; the message is one sentence for the operator."""


class StartLockTimeout(AIMindError, RuntimeError):
    """Another replica held the start lock for longer than ``WAIT_LIMIT_S``."""


# --- the command (cli/) -----------------------------------------------------------------------


class GraphLoadError(AIMindError, RuntimeError):
    """A graph id ``langgraph.json`` does not name, or a path it cannot import."""


# --- the tools (tools/) -----------------------------------------------------------------------


class ResourceError(AIMindError, ValueError):
    """A resource name was refused or cannot be read. The message is safe to show."""


class CalculationError(AIMindError, ValueError):
    """The expression is not allowed or cannot be computed. Safe to show."""


class MCPConfigError(AIMindError, ValueError):
    """``mcp.json`` is malformed."""


class MCPServerLostError(AIMindError, ConnectionError):
    """The server's session broke during a call; the next call starts the server again."""

    def __init__(self, server: str) -> None:
        super().__init__(
            f"the MCP server {server!r} stopped during the call; it starts again on the next call"
        )


class MCPConfigReplacedError(AIMindError, ConnectionError):
    """A tool of an ``mcp.json`` version that has since changed was called."""

    def __init__(self) -> None:
        super().__init__("the MCP configuration changed; its old servers were stopped")
