"""A small stdio MCP server shipped with the repo: one tool and one resource.

It serves the glossary document of the local documents folder
(``AIMIND_DOCS_DIR`` or ``adapters/tools/documents/``): the ``lookup_term`` tool
returns the glossary lines that mention a term, the ``aimind://glossary``
resource returns the whole document. Run it with
``python -m aimind_memory.adapters.tools.mcp.server``;
``mcp.json`` at the repo root starts it for the chat graph.
"""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP

from aimind_memory.adapters.errors import ResourceError
from aimind_memory.adapters.tools.resources import read_resource

SERVER_NAME = "aimind-docs"
GLOSSARY_DOCUMENT = "glossary.md"
GLOSSARY_URI = "aimind://glossary"

server = FastMCP(SERVER_NAME, log_level="WARNING")


def _glossary() -> str:
    try:
        return read_resource(GLOSSARY_DOCUMENT)
    except ResourceError as exc:
        return f"error: {exc}"


@server.tool()
def lookup_term(term: str) -> str:
    """Look a term up in the project glossary; returns the matching glossary lines."""
    needle = term.strip().lower()
    if not needle:
        return "error: give a term to look up"
    lines = [line for line in _glossary().splitlines() if needle in line.lower()]
    return "\n".join(lines) if lines else f"no glossary entry mentions {term!r}"


@server.resource(GLOSSARY_URI, name="glossary", mime_type="text/markdown")
def glossary() -> str:
    """The whole project glossary."""
    return _glossary()


def main() -> None:
    server.run("stdio")


if __name__ == "__main__":
    main()
