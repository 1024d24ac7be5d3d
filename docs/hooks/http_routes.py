"""The HTTP routes page's reference, from the served app's OpenAPI at build time.

``docs/reference/http.md`` holds the marker below; this hook replaces it with one section
per route of ``aimind_memory.server.app`` (method, path, what it does, its body, its
answers), read from FastAPI's ``app.openapi()``, so the page says what the code serves.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

MARKER = "<!-- generated: http-routes -->"
METHODS = ("get", "post", "put", "patch", "delete")


def openapi() -> dict[str, Any]:
    """The served app's OpenAPI document (importing the app needs a session secret: a
    throwaway one here, so building the docs writes nothing into a data folder)."""
    os.environ.setdefault("AIMIND_SESSION_SECRET", secrets.token_urlsafe(48))
    from aimind_memory.server import app

    return app.openapi()


def _schema_name(schema: dict[str, Any]) -> str:
    ref = schema.get("$ref") or schema.get("items", {}).get("$ref", "")
    return ref.rsplit("/", 1)[-1]


def _body(op: dict[str, Any], spec: dict[str, Any]) -> list[str]:
    content = op.get("requestBody", {}).get("content", {}).get("application/json")
    if not content:
        return []
    name = _schema_name(content["schema"])
    schema = spec["components"]["schemas"].get(name, content["schema"])
    required = set(schema.get("required", []))
    lines = ["", "Body (JSON object, no other keys):", "", "| key | type | |", "|---|---|---|"]
    for key, prop in schema.get("properties", {}).items():
        kind = prop.get("type") or " or ".join(
            p.get("type", _schema_name(p)) for p in prop.get("anyOf", [])
        )
        need = "required" if key in required else "optional"
        about = " ".join((prop.get("description") or "").split())
        lines.append(f"| `{key}` | {kind} | {need}{': ' + about if about else ''} |")
    return lines


def _responses(op: dict[str, Any]) -> list[str]:
    lines = ["", "| status | meaning |", "|---|---|"]
    for status, response in op.get("responses", {}).items():
        lines.append(f"| {status} | {' '.join(response.get('description', '').split())} |")
    return lines


def render(spec: dict[str, Any]) -> str:
    lines: list[str] = []
    for path, ops in spec["paths"].items():
        for method in METHODS:
            if not (op := ops.get(method)):
                continue
            lines += [f"### `{method.upper()} {path}`", "", op.get("summary", "")]
            if description := op.get("description"):
                lines += ["", description.strip()]
            lines += _body(op, spec) + _responses(op) + [""]
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render(openapi()))
