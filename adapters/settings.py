"""The servers', tools' and scripts' settings, declared once (contract §8, §15).

The environment variables the HTTP edge, the engine patches, the tools and the shell
scripts read, each a field of ``AdapterSettings`` or ``ScriptSettings`` on memory's
settings base (``memory.config.settings``: typed, a default, one sentence, read as the
environment is now, never from a file). Memory's own are ``MemorySettings``; the docs'
configuration table lists all three (``aimind_memory.settings.configuration_rows()``).

Checked at start: both servers' app and auth modules, and the ``aimind`` command, call
``check_settings`` before anything else, so a malformed value stops them with one
sentence naming the variable (``exit_on_bad_settings``: no traceback), and a production
replica's preflight checks the scripts' too (``adapters.server.aegra.preflight``).
"""

from __future__ import annotations

import difflib
import multiprocessing
import os
import signal
import sys
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import SecretStr

from aimind_memory.adapters.errors import RequestLimitsError
from aimind_memory.memory.config.settings import (
    AIMindSettings,
    MemorySettings,
    SettingsError,
    backend_name,
    memory_settings,
    setting,
    unknown_variables,
)
from aimind_memory.memory.errors import DatabaseURLError, UnknownSettingWarning

__all__ = [
    "MAX_BODY_MB",
    "MAX_INPUT_MESSAGES",
    "AdapterSettings",
    "ScriptSettings",
    "adapter_settings",
    "check_settings",
    "exit_on_bad_settings",
    "script_settings",
    "warn_unknown_settings",
]

MAX_BODY_MB = 4.0
MAX_INPUT_MESSAGES = 1_000


class AdapterSettings(AIMindSettings):
    """What the servers and the tools read: request limits, the engine patches' switches,
    the documents folder and the MCP servers."""

    component: ClassVar[str] = "servers and tools"
    errors: ClassVar[Mapping[str, type[SettingsError]]] = {
        "max_body_mb": RequestLimitsError,
        "max_input_messages": RequestLimitsError,
    }

    max_body_mb: float = setting(
        MAX_BODY_MB,
        "The largest request body either server accepts, in MiB (a larger one gets a 413).",
        expects="a positive number",
        gt=0,
        allow_inf_nan=False,
    )
    max_input_messages: int = setting(
        MAX_INPUT_MESSAGES,
        "The most messages a run's input may list (more get a 422 before the run is queued).",
        expects="a positive whole number",
        gt=0,
    )
    dev_queue_wakeup: bool = setting(
        True,
        "Under `langgraph dev`, start a new run at once instead of at the run queue's next "
        "poll (up to a second later); 0 leaves the queue as shipped.",
    )
    dev_delta_history: bool = setting(
        True,
        "Under `langgraph dev`, read a chat thread's transcript in one query; 0 leaves the "
        "server's checkpointer adapter as shipped.",
    )
    aegra_wait_wakeup: bool = setting(
        True,
        "Under Aegra, answer `runs.wait` and `runs.join` when the run ends instead of at "
        "Aegra's next 2 s poll; 0 leaves Aegra's wait as shipped.",
    )
    docs_dir: Path | None = setting(
        None,
        "The folder `@docs/<path>` references and the `read_resource` tool may read, and "
        "nothing outside it.",
        shown_default="the packaged adapters/tools/documents/",
    )
    mcp_config: Path | None = setting(
        None,
        'The MCP servers (`{"mcpServers": …}`) whose tools the `chat` graph offers, each '
        "started once and reused.",
        shown_default="mcp.json at the checkout's root",
    )


class ScriptSettings(AIMindSettings):
    """What ``scripts/serve.sh``, ``scripts/serve-prod.sh``, ``scripts/bootstrap.sh`` and
    ``scripts/lock.sh`` read (the shell reads them; a production replica's preflight
    checks them)."""

    component: ClassVar[str] = "scripts"

    redis_url: SecretStr | None = setting(
        None,
        "The Redis every production replica shares (Aegra's run queue and run events); "
        "required by scripts/serve-prod.sh, as a redis://, rediss:// or unix:// URL.",
        env="REDIS_URL",
    )
    port: int | None = setting(
        None,
        "The port the server listens on.",
        env="PORT",
        expects="a port number (1-65535)",
        shown_default="8000 (serve-prod.sh), 2024 (serve.sh)",
        ge=1,
        le=65_535,
    )
    host: str = setting(
        "127.0.0.1",
        "The address scripts/serve-prod.sh listens on (scripts/serve.sh always uses 127.0.0.1).",
        env="HOST",
    )
    worker_drain_timeout: float = setting(
        4.0,
        "Aegra's own: seconds a stopping replica gives its running runs before they go back "
        "to the queue for another replica (serve-prod.sh's default keeps a stop under 20 s).",
        env="WORKER_DRAIN_TIMEOUT",
        expects="a number of seconds",
        ge=0,
        allow_inf_nan=False,
    )
    skip_browser_install: Literal["0", "1"] = setting(
        "0",
        "1 makes scripts/bootstrap.sh skip installing Chromium, which only the browser "
        "tests need (serve.sh and serve-prod.sh set it).",
    )
    python: str | None = setting(
        None,
        "The Python 3.12 or newer scripts/bootstrap.sh makes the virtual environment with.",
        env="PYTHON",
        shown_default="the first python3.13, python3.12 or python3 on PATH",
    )
    uv: str = setting(
        "uv",
        "The uv scripts/lock.sh resolves the two locks with (`pip install uv`), when it is not "
        "the one on PATH.",
        env="UV",
    )
    env_mode: str = setting(
        "PRODUCTION",
        "Aegra's own: PRODUCTION logs one JSON object a line (scripts/serve-prod.sh only).",
        env="ENV_MODE",
    )
    langsmith_tracing: str = setting(
        "false",
        "LangSmith's own: whether runs are traced to LangSmith; the scripts turn it off "
        "unless it is set.",
        env="LANGSMITH_TRACING",
    )


SETTINGS_CLASSES: tuple[type[AIMindSettings], ...] = (
    MemorySettings,
    AdapterSettings,
    ScriptSettings,
)
"""Every settings class of the package, in the order the configuration table lists them."""


def adapter_settings(environ: Mapping[str, str] | None = None) -> AdapterSettings:
    """The servers' and tools' settings from ``environ`` (default: the process environment
    as it is now); raises a ``SettingsError`` naming the first malformed variable."""
    return AdapterSettings.load(environ)


def script_settings(environ: Mapping[str, str] | None = None) -> ScriptSettings:
    """The scripts' settings, as ``adapter_settings``."""
    return ScriptSettings.load(environ)


def check_settings(environ: Mapping[str, str] | None = None) -> None:
    """Every setting a server, the command or an agent's graph reads (memory's, the
    servers' and tools'), validated; raises a ``SettingsError`` naming the first bad one,
    and warns once of an ``AIMIND_*`` variable no setting declares."""
    warn_unknown_settings(environ, stacklevel=3)  # the server's or the command's start
    memory_settings(environ)
    adapter_settings(environ)


_WARNED: set[str] = set()
"""The unknown variables already named in a warning: each is named once a process."""


def warn_unknown_settings(environ: Mapping[str, str] | None = None, *, stacklevel: int = 2) -> None:
    """One ``UnknownSettingWarning`` naming every ``AIMIND_*`` variable in ``environ``
    (default: the process environment) that none of the settings declares, each with the
    setting it most resembles; a variable is named once a process. ``stacklevel`` as
    ``warnings.warn``'s, from the caller's point of view: the line the warning points at.

    A misspelt variable (one ``S`` short) would otherwise leave memory at its default
    without a word. Here, not in memory, because only here are all three settings
    classes known (memory's, the servers' and tools', the scripts')."""
    known = {name for cls in SETTINGS_CLASSES for name in cls.env_names()}
    unknown = [name for name in unknown_variables(known, environ) if name not in _WARNED]
    if not unknown:
        return
    _WARNED.update(unknown)
    described = []
    for name in unknown:
        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
        described.append(f"{name} (did you mean {close[0]}?)" if close else name)
    verb = "is not a setting and is" if len(unknown) == 1 else "are not settings and are"
    warnings.warn(
        f"{', '.join(described)} {verb} ignored; the settings are listed in the "
        "configuration reference (aimind_memory.settings.configuration_rows()).",
        UnknownSettingWarning,
        stacklevel=stacklevel + 1,
    )


def check_served_database(environ: Mapping[str, str] | None = None) -> None:
    """A server in production keeps memory on PostgreSQL: raises a ``DatabaseURLError``
    otherwise.

    Unset, ``AIMIND_DATABASE_URL`` means the SQLite file in the data folder — right for
    development, and in production a memory of its own on each machine that a replica
    restarted from its image or a second replica never sees. Aegra's own threads are on
    ``DATABASE_URL`` whatever memory is told, so forgetting memory's setting would go
    unnoticed until turns were missing. The library (``open_memory(url)``) is not
    checked: its caller names the database.
    """
    settings = memory_settings(environ)
    if settings.production and backend_name(settings.database or "") != "postgres":
        name = settings.env_name("database_url")
        raise DatabaseURLError(
            f"AIMIND_ENV is production but {name} is not a postgresql:// URL: set it to the "
            "PostgreSQL database of the server's threads (Aegra's DATABASE_URL), the same on "
            "every replica, or memory stays in a SQLite file on this machine."
        )


@contextmanager
def exit_on_bad_settings(*, at_once: bool = False) -> Iterator[None]:
    """For a server's start-up (its modules' import): a ``SettingsError`` inside stops the
    process with its sentence on stderr and exit status 1, not a traceback.

    ``SystemExit`` because a server imports these modules itself: Aegra logs an auth
    module's exception and goes on serving *without* auth, and ``langgraph dev`` prints
    its own traceback around ours. A server that reloads (``langgraph dev`` without
    ``--no-reload``, as a user's own runs) or runs workers loads us in a worker process
    under a supervisor that would outlive it, up and serving nothing: the supervisor is
    stopped too (``_stop_supervisor``), so the start fails as a whole, non-zero.

    ``at_once`` for a server's lifespan (its checkpointer opening): the server reports any
    exception there, ``SystemExit`` too, with a traceback of its start-up around it; the
    process ends instead with the sentence alone (``os._exit``: nothing has started, and
    what was opened was closed on the way out)."""
    try:
        yield
    except SettingsError as exc:
        sys.stderr.write(f"aimind: {exc}\n")
        sys.stderr.flush()
        _stop_supervisor()
        if at_once:
            sys.stdout.flush()
            os._exit(1)
        raise SystemExit(1) from None


def _stop_supervisor() -> None:
    """Kill the uvicorn supervisor (a reloader or a worker manager) this process is a
    worker of, if it is one. SIGKILL: the supervisor handles SIGINT and SIGTERM as a
    clean stop, exit status 0, and takes SIGHUP as "restart the workers" — which would
    start this worker again into the same refusal."""
    parent = multiprocessing.parent_process()
    if parent is not None and parent.pid is not None and "uvicorn._subprocess" in sys.modules:
        os.kill(parent.pid, signal.SIGKILL)
