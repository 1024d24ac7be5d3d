"""``aegra.json`` serves what ``langgraph.json`` serves, and both servers name our graphs alike.

When a graph, the auth or the routes change in ``langgraph.json``, this test says
what ``aegra.json`` must change too (contract §15: the same graphs and auth).
"""

from __future__ import annotations

import importlib.util
import json
import re
import uuid
from pathlib import Path

from aimind_memory.adapters.server.auth import TURN_ASSISTANTS
from aimind_memory.adapters.server.run_input import GRAPH_ASSISTANT_NAMESPACE, TURN_GRAPHS
from harness.langgraph_server import REPO_ROOT

DEV, PROD = "langgraph.json", "aegra.json"
AEGRA_IGNORES = {"python_version", "env"}
"""``langgraph.json`` keys Aegra has no use for (its checkpointer and headers are its own)."""


def config(name: str) -> dict:
    return json.loads((REPO_ROOT / name).read_text())


def test_aegra_serves_the_graphs_auth_routes_and_retention_of_langgraph_dev() -> None:
    dev, prod = config(DEV), config(PROD)
    assert prod["graphs"] == dev["graphs"], f"copy the graphs of {DEV} into {PROD}"
    assert prod["auth"]["path"] == dev["auth"]["path"]
    assert prod["http"]["app"] == dev["http"]["app"]
    # No keep_latest TTL on either: it would cut a chat thread's DeltaChannel history.
    assert "ttl" not in prod.get("checkpointer", {}) and "ttl" not in dev["checkpointer"]
    assert prod["dependencies"] == dev["dependencies"]
    assert "path" not in prod.get("checkpointer", {})  # Aegra brings its own saver
    assert set(prod) <= set(dev) - AEGRA_IGNORES


def langgraph_dev_namespace() -> uuid.UUID:
    """``langgraph_api.graph.NAMESPACE_GRAPH``, read from its source: importing that module
    outside its server loads the server's configuration, which fails without it."""
    spec = importlib.util.find_spec("langgraph_api")
    assert spec is not None and spec.submodule_search_locations
    source = (Path(spec.submodule_search_locations[0]) / "graph.py").read_text()
    found = re.search(r'^NAMESPACE_GRAPH = UUID\("([0-9a-f-]{36})"\)$', source, re.MULTILINE)
    assert found, "langgraph_api.graph no longer defines NAMESPACE_GRAPH that way"
    return uuid.UUID(found.group(1))


def test_both_servers_derive_a_graphs_assistant_id_as_auth_does() -> None:
    from aegra_api.constants import ASSISTANT_NAMESPACE_UUID

    NAMESPACE_GRAPH = langgraph_dev_namespace()
    assert GRAPH_ASSISTANT_NAMESPACE == NAMESPACE_GRAPH == ASSISTANT_NAMESPACE_UUID
    for graph in TURN_GRAPHS:
        assert graph in TURN_ASSISTANTS  # Aegra passes the graph id the client sent
        assert str(uuid.uuid5(NAMESPACE_GRAPH, graph)) in TURN_ASSISTANTS
