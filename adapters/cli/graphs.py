"""The served graphs, loaded the way the servers load them: by the paths in ``langgraph.json``.

``langgraph.json`` maps each graph id to ``./<file>.py:<attribute>``; the servers
import that file, and so does the CLI — it never imports ``graphs`` by name, so
every import in the code base points down (graphs → adapters → memory). The file is
imported under the name it has installed (``./graphs/chat/graph.py`` is
``aimind_memory.graphs.chat.graph``), so the graph's own imports
(``aimind_memory.graphs.chat.nodes``) resolve to the same modules.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from aimind_memory.adapters.errors import GraphLoadError

__all__ = ["CONFIG_FILE", "GraphLoadError", "graph_paths", "load_graph"]

CONFIG_FILE = Path(__file__).resolve().parents[2] / "langgraph.json"
PACKAGE = "aimind_memory"
"""The name the repository's folders install under (``graphs/``: ``aimind_memory.graphs``)."""


def graph_paths(config: Path = CONFIG_FILE) -> dict[str, str]:
    """Graph id → ``./file.py:attribute``, as ``langgraph.json`` says."""
    try:
        return dict(json.loads(config.read_text())["graphs"])
    except (OSError, ValueError, KeyError) as exc:
        message = (
            "aimind runs the graphs of a checkout of this project, and there is no readable "
            f"{config.name} with a 'graphs' map next to its code"
        )
        raise GraphLoadError(message) from exc


def load_graph(graph_id: str, config: Path = CONFIG_FILE) -> Any:
    """The compiled graph ``langgraph.json`` names ``graph_id``."""
    paths = graph_paths(config)
    if graph_id not in paths:
        raise GraphLoadError(f"{config.name} names no graph {graph_id!r}")
    file, _, attribute = paths[graph_id].partition(":")
    root = config.parent
    relative = (root / file).resolve().relative_to(root.resolve())
    module_name = ".".join((PACKAGE, *relative.with_suffix("").parts))
    module = importlib.import_module(module_name)
    if Path(module.__file__ or "").resolve() != (root / file).resolve():
        raise GraphLoadError(f"{file} is shadowed by another module named {module_name}")
    return getattr(module, attribute)
