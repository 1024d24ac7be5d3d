"""Every error memory raises, in one place, on one base (contract §13b).

``AIMindError`` is the one tree's root: the adapters' errors (``adapters/errors.py``) and
the graphs' (``graphs/errors.py``) derive from it too, each keeping its builtin base
(``ValueError``, …), and ``aimind_memory`` exports those a library user meets. Each
package keeps its errors in its ``errors`` module (``tests/layout/test_errors.py``); the
two at the bottom of this file are internal signals, off the tree on purpose.

Each message is one plain sentence that is safe to show a user: no database error, no
stored text, no token. The HTTP routes map them to status codes by class.
"""

from __future__ import annotations


class AIMindError(Exception):
    """The base of every error this project raises to its users."""


def said(exc: BaseException) -> str:
    """``exc`` as a log line may say it: an ``AIMindError``'s own sentence (safe to show
    by design, and it names what to fix, e.g. the setting), anything else by its type
    (a database's or a library's words may quote a row, a host or a user)."""
    return str(exc) if isinstance(exc, AIMindError) else type(exc).__name__


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


class LimitsError(SettingsError):
    """A memory limit (``AIMIND_RECENT_TURNS`` … or a ``MemoryLimits`` field) is out of
    range; raised when memory is opened, before anything is written."""


class DatabaseURLError(SettingsError):
    """AIMIND_DATABASE_URL (or a URL passed in its place) names no backend we support."""


class DatabaseUnreachableError(SettingsError, ConnectionError):
    """AIMIND_DATABASE_URL (or a URL passed in its place) names a database that did not
    answer when memory was opened; the message names the setting, never the URL."""


class SecretConfigError(SettingsError, RuntimeError):
    """The session secret is missing or too weak; raised at start-up."""


class InvalidSessionError(AIMindError, ValueError):
    """A session token or identity is malformed. Safe to show to the client."""


class ForbiddenFieldError(AIMindError, ValueError):
    """A DTO about to leave the server carries a runtime-only field."""


class UnknownSettingWarning(UserWarning):
    """An ``AIMIND_*`` variable is set that no setting declares: a misspelling, most
    likely, which would otherwise be ignored without a word. A warning, not an error:
    the package runs on, with that variable's setting at its default."""


# Internal signals: they never leave memory, so they are not on the tree. ``AIMindError``
# means "its sentence may be shown, pass it on" (the service re-raises it as it is); these
# are turned into ``MemoryUnavailableError`` or a ``failed`` status where they are caught.


class WriteConflictError(RuntimeError):
    """Other processes kept writing the session first, ``WRITE_ATTEMPTS`` times over.

    Never reaches a user: a turn then reports ``memory-unavailable``, an edit raises
    ``MemoryUnavailableError`` and a landing is reported ``failed``."""


class ScrubBusyError(RuntimeError):
    """Readers in other processes kept the WAL from being emptied, ``SCRUB_ATTEMPTS`` times."""


class RefusedOutput(Exception):
    """A compactor's output the gate refused (``memory.compaction.gate``): a failed
    compaction, folded by the extractive compactor instead. Internal, off the tree:
    ``reason`` names the check, and the message never carries the output's text."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
