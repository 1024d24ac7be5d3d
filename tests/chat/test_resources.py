"""The document reader refuses everything outside its folder; the calculator never evals."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aimind_memory.adapters.errors import ResourceError
from aimind_memory.adapters.tools.builtin import calculator, current_time, read_resource_tool
from aimind_memory.adapters.tools.resources import (
    RESOURCE_MAX_BYTES,
    RESOURCE_TRUNCATION_MARKER,
    list_resources,
    read_resource,
    resolve_references,
)
from tests.chat.conftest import RESOURCE_MARKER


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("OUTSIDE-SECRET")
    return secret


def test_reads_documents_inside_the_folder(docs: Path) -> None:
    (docs / "sub").mkdir()
    (docs / "sub" / "note.md").write_text("nested note")
    assert RESOURCE_MARKER in read_resource("secret-plan.md")
    assert read_resource("sub/note.md") == "nested note"
    assert read_resource("@docs/sub/note.md") == "nested note"
    assert "sub/note.md" in list_resources()


@pytest.mark.parametrize(
    "name",
    ["../outside-secret.txt", "sub/../../outside-secret.txt", "..", "..\\outside-secret.txt"],
)
def test_refuses_dotdot_escapes(docs: Path, outside: Path, name: str) -> None:
    with pytest.raises(ResourceError, match=r"'\.\.'"):
        read_resource(name)


def test_refuses_absolute_paths(docs: Path, outside: Path) -> None:
    for name in (str(outside), "/etc/passwd", "C:\\Windows\\win.ini", "\\\\server\\share\\x"):
        with pytest.raises(ResourceError, match="absolute"):
            read_resource(name)


def test_refuses_symlinks_leading_outside(docs: Path, outside: Path) -> None:
    os.symlink(outside, docs / "link.txt")
    os.symlink(outside.parent, docs / "linkdir")
    for name in ("link.txt", "linkdir/outside-secret.txt"):
        with pytest.raises(ResourceError, match="outside the documents folder"):
            read_resource(name)
    assert "link.txt" not in list_resources()
    os.symlink(docs / "secret-plan.md", docs / "inside-link.md")
    assert RESOURCE_MARKER in read_resource("inside-link.md")


def test_tool_reports_refusal_as_text(docs: Path, outside: Path) -> None:
    assert read_resource_tool.invoke({"name": "../outside-secret.txt"}).startswith("error:")
    assert "OUTSIDE-SECRET" not in read_resource_tool.invoke({"name": str(outside)})
    assert "secret-plan.md" in read_resource_tool.invoke({"name": ""})


def test_missing_and_oversized(docs: Path) -> None:
    with pytest.raises(ResourceError, match="no resource"):
        read_resource("nope.md")
    (docs / "big.txt").write_text("x" * (RESOURCE_MAX_BYTES * 3))
    text = read_resource("big.txt")
    assert text.endswith(RESOURCE_TRUNCATION_MARKER)
    assert len(text.encode()) <= RESOURCE_MAX_BYTES


async def test_resolve_references(docs: Path, outside: Path) -> None:
    text, names = await resolve_references(
        "Compare @docs/secret-plan.md with @docs/../outside-secret.txt, mail me@docs/x.md."
    )
    assert names == ["secret-plan.md"]
    assert RESOURCE_MARKER in text and "OUTSIDE-SECRET" not in text
    assert "unavailable" in text
    assert await resolve_references("no references here") == ("no references here", [])


async def test_a_relative_documents_folder_is_resolved_against_the_working_directory(
    docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(docs.parent)
    monkeypatch.setenv("AIMIND_DOCS_DIR", docs.name)
    text, names = await resolve_references("See @docs/secret-plan.md")
    assert names == ["secret-plan.md"] and RESOURCE_MARKER in text


@pytest.mark.parametrize(
    ("expression", "result"),
    [("12 * (3 + 4)", "84"), ("2 ^ 10", "1024"), ("7 / 2", "3.5"), ("sqrt(16) + abs(-1)", "5")],
)
def test_calculator(expression: str, result: str) -> None:
    assert calculator.invoke({"expression": expression}) == result


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os').system('echo pwned')",
        "(1).__class__",
        "open('/etc/passwd')",
        "9 ** 9 ** 9",
        "10 ** 999 * 10 ** 999 * 10 ** 999 * 10 ** 999 * 10 ** 999",
        "1 / 0",
        "x + 1",
        "1 +" * 100,
    ],
)
def test_calculator_refuses(expression: str) -> None:
    assert calculator.invoke({"expression": expression}).startswith("error:")


@pytest.mark.parametrize(
    ("expression", "python_says"),
    [
        ("sqrt(-1)", "math domain error"),
        ("round(1, 2, 3)", "takes at most"),
        ("round(1.5, 2.5)", "'float' object"),
        ("0 ** -1", "cannot be raised"),
        ("sqrt(10 ** 300 * 10 ** 300)", "int too large"),
    ],
)
def test_calculator_errors_are_our_sentences(expression: str, python_says: str) -> None:
    answer = calculator.invoke({"expression": expression})
    assert answer.startswith("error:") and python_says not in answer


@pytest.mark.parametrize("zone", ["America", "z" * 300, "Europe/Nowhere", "../etc"])
def test_an_unknown_timezone_is_named_without_a_path(zone: str) -> None:
    answer = current_time.invoke({"timezone": zone})
    assert answer.startswith("error: unknown timezone")
    assert "zoneinfo" not in answer and "Errno" not in answer and len(answer) < 120
