"""The configuration table, generated at build time from the settings' own rows.

``docs/reference/configuration.md`` holds the marker below; this hook replaces it with
one table per component (memory, servers and tools, scripts) of
``aimind_memory.settings.configuration_rows()`` — every environment variable the code
reads, declared once with its type, default and one sentence — so the page lists exactly
what the code reads and nobody keeps a copy by hand.

Without that function the build fails with a sentence saying so (``mkdocs build
--strict`` must not publish a configuration page with no configuration on it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

MARKER = "<!-- generated: settings-table -->"
COLUMNS = ("variable", "type", "default", "meaning")


def configuration_rows() -> list[Any]:
    """The settings' rows, or a build error naming what is missing."""
    try:
        from aimind_memory.settings import configuration_rows as rows
    except ImportError as error:
        raise PluginError(
            "docs/hooks/settings_table.py: aimind_memory.settings.configuration_rows is "
            f"not importable ({error}); the configuration page is generated from it, so "
            "the site cannot be built without it"
        ) from None
    found = rows()
    if not found:
        raise PluginError("docs/hooks/settings_table.py: configuration_rows() is empty")
    return found


def _cell(value: object) -> str:
    return " ".join(str(value).split()).replace("|", "\\|")


def _code(value: object) -> str:
    text = _cell(value)
    return f"`{text}`" if text else ""


def render(rows: Iterable[Any]) -> str:
    """One ``## <component>`` section per component, in the rows' order, each a table."""
    components: dict[str, list[Any]] = {}
    for row in rows:
        components.setdefault(row.component, []).append(row)
    lines: list[str] = []
    for component, members in components.items():
        lines += [f"## {component[:1].upper()}{component[1:]}", ""]
        lines += ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        lines += [
            f"| {_code(r.name)} | {_cell(r.type)} | {_code(r.default)} | {_cell(r.description)} |"
            for r in members
        ]
        lines.append("")
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render(configuration_rows()))
