"""Every error memory raises to its users, on one base (contract §13b).

``AIMindError`` is the one tree's root: the servers', the tools', the command's and the
graphs' errors derive from it too, each keeping its builtin base (``ValueError``, …), and
``aimind_memory`` exports those a library user meets (``tests/layout/test_errors.py``
lists the few internal ones left off, and why).

Each message is one plain sentence that is safe to show a user: no database error, no
stored text, no token. The HTTP routes map them to status codes by class.
"""

from __future__ import annotations


class AIMindError(Exception):
    """The base of every error this project raises to its users."""


class MemoryUnavailableError(AIMindError, RuntimeError):
    """Memory could not be read or written. Its message is safe to show; the cause is logged."""

    def __init__(self) -> None:
        super().__init__("chat memory is unavailable right now")


class MemoryEditError(AIMindError, ValueError):
    """A user's edit of memory that cannot be made as asked (contract §9a)."""


class PinTextError(MemoryEditError):
    """A pin's text is blank or longer than a pin may be."""


class PinSourceError(MemoryEditError):
    """The message a pin was taken from is described in a way memory cannot record."""


class SummaryTextError(MemoryEditError):
    """A summary is longer than the summary may be."""


class PinLimitError(MemoryEditError):
    """Every pin is the user's own and the pins are full: one must go first."""


class PinNotFoundError(MemoryEditError, LookupError):
    """The session has no pin with that id."""

    def __init__(self) -> None:
        super().__init__("This session's memory has no pin with that id.")


class SettingsError(AIMindError, ValueError):
    """A setting (an environment variable) is malformed or missing.

    Raised when memory, a server or the command starts, before anything is served or
    written; its message is one sentence naming the variable (``memory.config.settings``)."""
