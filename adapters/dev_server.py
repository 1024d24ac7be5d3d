"""Whether this process is ``langgraph dev``'s server: what development-only behaviour keys on.

``langgraph dev`` (``langgraph_api.cli.run_server``) marks its process with the
local-dev API variant on the in-memory runtime. Studio's development identity
(``adapters.memory_runtime``) and the run-queue wake-up (``adapters.dev_run_queue``)
apply only there, and never with ``AIMIND_ENV=production``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from memory.session import is_production

API_VARIANT_ENV, DEV_VARIANT = "LANGSMITH_LANGGRAPH_API_VARIANT", "local_dev"
RUNTIME_EDITION_ENV, INMEM_EDITION = "LANGGRAPH_RUNTIME_EDITION", "inmem"


def is_langgraph_dev(environ: Mapping[str, str] = os.environ) -> bool:
    """True in ``langgraph dev``'s server process, unless ``AIMIND_ENV=production``."""
    return (
        not is_production(environ)
        and environ.get(API_VARIANT_ENV) == DEV_VARIANT
        and environ.get(RUNTIME_EDITION_ENV) == INMEM_EDITION
    )
