"""Which server this process is, and whether its internals are the ones we reviewed.

What development-only behaviour keys on is ``langgraph dev``'s server process;
what reaches into a server's internals also needs the exact versions reviewed.

``langgraph dev`` (``langgraph_api.cli.run_server``) marks its process with the
local-dev API variant on the in-memory runtime. Studio's development identity
(``adapters.chat_memory.session``) and the run-queue wake-up
(``adapters.server.langgraph_dev.run_queue``) apply only there, and never with
``AIMIND_ENV=production``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version

from aimind_memory.memory.session import is_production

API_VARIANT_ENV, DEV_VARIANT = "LANGSMITH_LANGGRAPH_API_VARIANT", "local_dev"
RUNTIME_EDITION_ENV, INMEM_EDITION = "LANGGRAPH_RUNTIME_EDITION", "inmem"


def is_langgraph_dev(environ: Mapping[str, str] | None = None) -> bool:
    """True in ``langgraph dev``'s server process, unless ``AIMIND_ENV=production``.

    The marks are the server's own variables, not settings of ours: read as they are."""
    marks = os.environ if environ is None else environ
    return (
        not is_production(environ)
        and marks.get(API_VARIANT_ENV) == DEV_VARIANT
        and marks.get(RUNTIME_EDITION_ENV) == INMEM_EDITION
    )


def unreviewed_versions(reviewed: Mapping[str, str]) -> str | None:
    """None when every package in ``reviewed`` is installed at exactly its reviewed
    version; else a sentence saying what is installed. What reaches into a server's
    internals (``adapters.server.langgraph_dev.run_queue`` and ``.delta_history``,
    ``adapters.server.aegra.runs``) stays off unless this says None."""
    installed: dict[str, str | None] = {}
    for name in reviewed:
        try:
            installed[name] = version(name)
        except PackageNotFoundError:
            installed[name] = None
    if installed == dict(reviewed):
        return None
    found = ", ".join(f"{k} {v}" for k, v in installed.items())
    wanted = ", ".join(f"{k} {v}" for k, v in reviewed.items())
    return f"installed {found}; reviewed for {wanted}"
