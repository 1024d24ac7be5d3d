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
malformed value stops the server with one sentence.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "BODY_LIMIT_ENV",
    "MESSAGES_LIMIT_ENV",
    "RequestLimits",
    "RequestLimitsError",
]

BODY_LIMIT_ENV = "AIMIND_MAX_BODY_MB"
MESSAGES_LIMIT_ENV = "AIMIND_MAX_INPUT_MESSAGES"
MAX_BODY_MB = 4.0
MAX_INPUT_MESSAGES = 1_000
MB = 1024 * 1024


class RequestLimitsError(ValueError):
    """A request limit in the environment is malformed; raised at start-up."""


@dataclass(frozen=True, slots=True)
class RequestLimits:
    max_body_bytes: int = int(MAX_BODY_MB * MB)
    max_input_messages: int = MAX_INPUT_MESSAGES

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RequestLimits:
        """``AIMIND_MAX_BODY_MB`` (a positive number of MiB) and ``AIMIND_MAX_INPUT_MESSAGES``
        (a positive whole number); unset or empty means the default."""
        env = os.environ if environ is None else environ
        megabytes = _positive(env, BODY_LIMIT_ENV, float, MAX_BODY_MB)
        messages = _positive(env, MESSAGES_LIMIT_ENV, int, MAX_INPUT_MESSAGES)
        return cls(max_body_bytes=max(1, int(megabytes * MB)), max_input_messages=int(messages))


def _positive(
    env: Mapping[str, str], name: str, kind: type[float] | type[int], default: float
) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise RequestLimitsError(f"{name} must be a positive number, got {raw!r}.")
    return value
