"""Read-only access to a local folder of documents, the resources a turn may reference.

The folder is ``adapters/tools/documents/`` unless ``AIMIND_DOCS_DIR`` names another.
A resource name is a relative path inside it (``requirements.md``,
``rubrics/review.md``). Names that are absolute, contain ``..``, or resolve
(through symlinks) outside the folder are refused with ``ResourceError``, so a
model or a user cannot read arbitrary files. A resource is at most
``RESOURCE_MAX_BYTES``; longer ones are cut with ``RESOURCE_TRUNCATION_MARKER``.

Reference format in user text: ``@docs/<name>`` — e.g. ``@docs/requirements.md``
or ``@docs/rubrics/review.md``. The ``docs/`` prefix keeps ordinary ``@mentions``
and e-mail addresses from being taken as references; a trailing ``.``, ``,`` or
``)`` ends the reference. ``await resolve_references(text)`` returns the text
with each readable resource appended as a delimited block, plus the names read.
The expanded text is for the model only: memory stores what the user typed.

Graph nodes run on the server's event loop, where a file read or a relative
path's resolution (``os.getcwd``) would stall every other run (``langgraph dev``
fails the run outright). So the async readers do all file work in a worker
thread, and a configured folder is resolved once per value.
"""

from __future__ import annotations

import asyncio
import functools
import re
from pathlib import Path, PurePosixPath, PureWindowsPath

from aimind_memory.adapters.errors import ResourceError
from aimind_memory.adapters.settings import AdapterSettings, adapter_settings

DOCS_DIR_ENV = AdapterSettings.env_name("docs_dir")
DEFAULT_DOCS_DIR = Path(__file__).resolve().parent / "documents"
RESOURCE_MAX_BYTES = 64_000
"""One resource's size cap; a model context is not a file server."""
RESOURCE_TRUNCATION_MARKER = "\n\n[resource truncated]"
REFERENCE_PREFIX = "@docs/"
REFERENCE_RE = re.compile(r"(?<![\w@])@docs/([A-Za-z0-9_\-./]*[A-Za-z0-9_\-])")
REFERENCES_HEADER = "\n\nReferenced resources:\n"
"""Separates the user's own text from appended resource blocks in the model's copy."""
RESOURCE_BLOCK_OPEN = "<resource name="
_RESOURCE_SUFFIXES = (".md", ".txt", ".json", ".yaml", ".yml", ".csv")


def docs_dir() -> Path:
    """The documents folder, resolved (``AIMIND_DOCS_DIR`` or the packaged one).

    Blocking the first time a value is seen (a relative one needs the working
    directory): call it from a thread, as the readers below do.
    """
    return _resolved_dir(str(adapter_settings().docs_dir or DEFAULT_DOCS_DIR))


@functools.cache
def _resolved_dir(configured: str) -> Path:
    return Path(configured).resolve()


def _checked_name(name: object) -> PurePosixPath:
    if not isinstance(name, str) or not name.strip():
        raise ResourceError("a resource name must be a non-empty relative path")
    name = name.strip().removeprefix(REFERENCE_PREFIX)
    if "\x00" in name:
        raise ResourceError("a resource name must not contain NUL bytes")
    posix, windows = PurePosixPath(name), PureWindowsPath(name)
    if posix.is_absolute() or windows.is_absolute() or windows.drive or name.startswith("\\"):
        raise ResourceError(f"refused {name!r}: absolute paths are not allowed")
    if ".." in posix.parts or ".." in windows.parts:
        raise ResourceError(f"refused {name!r}: '..' may not leave the documents folder")
    return posix


def resource_path(name: str) -> Path:
    """The file behind ``name``, guaranteed inside the documents folder."""
    relative = _checked_name(name)
    root = docs_dir()
    candidate = root.joinpath(*relative.parts)
    try:
        resolved = candidate.resolve(strict=True)
    except (FileNotFoundError, NotADirectoryError):
        raise ResourceError(f"no resource named {str(relative)!r}") from None
    except (OSError, RuntimeError):
        raise ResourceError(f"resource {str(relative)!r} cannot be read") from None
    if not resolved.is_relative_to(root):
        raise ResourceError(f"refused {str(relative)!r}: it leads outside the documents folder")
    if not resolved.is_file():
        raise ResourceError(f"{str(relative)!r} is not a document")
    return resolved


def read_resource(name: str) -> str:
    """The text of one document (UTF-8, capped); raises ``ResourceError`` when refused."""
    path = resource_path(name)
    try:
        with path.open("rb") as fh:
            data = fh.read(RESOURCE_MAX_BYTES + 1)
    except OSError:
        raise ResourceError(f"resource {name!r} cannot be read") from None
    if len(data) > RESOURCE_MAX_BYTES:
        keep = RESOURCE_MAX_BYTES - len(RESOURCE_TRUNCATION_MARKER.encode())
        return data[:keep].decode("utf-8", errors="ignore") + RESOURCE_TRUNCATION_MARKER
    return data.decode("utf-8", errors="replace")


def list_resources() -> list[str]:
    """Names of the readable documents (symlinks leading outside are left out)."""
    root = docs_dir()
    names: list[str] = []
    if not root.is_dir():
        return names
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix.lower() not in _RESOURCE_SUFFIXES:
            continue
        name = path.relative_to(root).as_posix()
        try:
            resource_path(name)
        except ResourceError:
            continue
        names.append(name)
    return names


def find_references(text: str) -> list[str]:
    """The ``@docs/<name>`` references in ``text``, in order, without repeats."""
    seen: list[str] = []
    for match in REFERENCE_RE.finditer(text or ""):
        if match.group(1) not in seen:
            seen.append(match.group(1))
    return seen


async def resolve_references(text: str) -> tuple[str, list[str]]:
    """``text`` plus a block per readable referenced resource, and the names read.

    A refused or missing reference gets a one-line note instead of content: the
    ``ResourceError`` sentence, which is ours and names only what the user typed.
    """
    if not find_references(text):
        return text, []
    return await asyncio.to_thread(_resolve_references, text)


def _resolve_references(text: str) -> tuple[str, list[str]]:
    blocks: list[str] = []
    names: list[str] = []
    for name in find_references(text):
        try:
            content = read_resource(name)
        except ResourceError as exc:
            blocks.append(f"[resource {REFERENCE_PREFIX}{name} unavailable: {exc}]")
            continue
        names.append(name)
        blocks.append(f'<resource name="{REFERENCE_PREFIX}{name}">\n{content}\n</resource>')
    return text + REFERENCES_HEADER + "\n\n".join(blocks), names
