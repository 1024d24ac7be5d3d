"""MkDocs hook: the API pages read the package as it installs (``scripts/stage.py``)."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "stage.py"


def on_startup(**_: Any) -> None:
    runpy.run_path(str(SCRIPT))["stage"]()
