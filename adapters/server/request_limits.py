"""How much one request may carry, on both servers (contract §8): its body, and its
input's messages.

Why: neither server bounds a request. A 30 MB message or a 200,000-message list is
parsed, validated and (on Aegra) stored as the run's input before any graph looks at
it — seconds of one core and hundreds of MB for nothing a chat needs. A body above
``AIMIND_MAX_BODY_MB`` is refused with a 413 at the HTTP edge
(``adapters.server.request_guard``); a run whose input lists more than
``AIMIND_MAX_INPUT_MESSAGES`` messages with a 422 before it is queued
(``adapters.server.run_input``). The defaults are far above what any of our clients
sends: a turn is one message (memory rebuilds the context), and a stored message is
capped at ``AIMIND_MESSAGE_CHAR_CAP`` characters anyway. Read once, at start-up: a
malformed value stops the server with one sentence (both are declared in
``adapters.settings``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aimind_memory.adapters.errors import RequestLimitsError
from aimind_memory.adapters.settings import (
    MAX_BODY_MB,
    MAX_INPUT_MESSAGES,
    AdapterSettings,
    adapter_settings,
)

__all__ = [
    "BODY_LIMIT_ENV",
    "MAX_INPUT_MESSAGES",
    "MESSAGES_LIMIT_ENV",
    "RequestLimits",
    "RequestLimitsError",
]

BODY_LIMIT_ENV = AdapterSettings.env_name("max_body_mb")
MESSAGES_LIMIT_ENV = AdapterSettings.env_name("max_input_messages")
MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class RequestLimits:
    max_body_bytes: int = int(MAX_BODY_MB * MB)
    max_input_messages: int = MAX_INPUT_MESSAGES

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RequestLimits:
        """``AIMIND_MAX_BODY_MB`` (a positive number of MiB) and ``AIMIND_MAX_INPUT_MESSAGES``
        (a positive whole number); unset or empty means the default."""
        settings = adapter_settings(environ)
        return cls(
            max_body_bytes=max(1, int(settings.max_body_mb * MB)),
            max_input_messages=settings.max_input_messages,
        )
