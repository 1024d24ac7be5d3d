"""The docs site states each figure once and generates what must match the code: the
results page is exactly what the bench renders from ``bench/results/``, no other page or
the README types a benchmark figure, the configuration tables come from the settings'
rows (and the build stops, saying why, without them), and the HTTP routes page lists
every route the app serves."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

import pytest
from mkdocs.exceptions import PluginError

from bench import report
from bench.common import RESULTS_DIR

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FIGURE = re.compile(r"\d[\d,.]*\s?(?:×|ms\b|%)")
"""A benchmark figure: a ratio, a latency or a share (``3.2×``, ``35 ms``, ``51.6 %``)."""


def hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"docs_hook_{name}", DOCS / "hooks" / f"{name}.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_results_page_is_what_the_bench_renders() -> None:
    page = report.results_page(RESULTS_DIR)
    assert page == DOCS / "benchmarks" / "results.md"
    assert page.read_text() == report.render(RESULTS_DIR), (
        "docs/benchmarks/results.md differs from bench/results/: "
        "run `python -m bench --render` (never edit the page by hand)"
    )


def test_the_results_page_shows_the_runs_charts() -> None:
    page = DOCS / "benchmarks" / "results.md"
    charts = re.findall(r"!\[[^]]*\]\(([^)]+)\)", page.read_text())
    assert charts and {(page.parent / c).resolve() for c in charts} == {
        p.resolve() for p in RESULTS_DIR.glob("*.png")
    }, "each chart of bench/results/ is on the results page, linked from where it lies"


def test_no_other_page_types_a_benchmark_figure() -> None:
    pages = [ROOT / "README.md", ROOT / "bench" / "README.md", *DOCS.rglob("*.md")]
    typed = {
        str(page.relative_to(ROOT)): found
        for page in pages
        if page.name != "results.md" and (found := FIGURE.findall(page.read_text()))
    }
    assert not typed, f"figures belong on the results page only: {typed}"


class Row(NamedTuple):
    name: str
    type: str
    default: str
    description: str
    component: str


def test_the_configuration_tables_are_the_settings_rows() -> None:
    rows = [
        Row("AIMIND_RECENT_TURNS", "integer", "4", "Turns kept verbatim.", "memory"),
        Row("AIMIND_DOCS_DIR", "path", "", "What | may be read.", "servers and tools"),
        Row("AIMIND_SUMMARY_CHARS", "integer", "2500", "The summary's bound.", "memory"),
    ]
    text = hook("settings_table").render(rows)
    assert text.count("## ") == 2 and text.index("## Memory") < text.index("## Servers")
    memory, servers = text.split("## Servers and tools")
    assert "`AIMIND_RECENT_TURNS` | integer | `4` |" in memory
    assert "`AIMIND_SUMMARY_CHARS`" in memory and "`AIMIND_DOCS_DIR`" in servers
    assert "What \\| may be read." in servers


def test_the_build_stops_without_the_settings_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "aimind_memory.settings", None)  # import fails
    with pytest.raises(PluginError, match="configuration_rows is not importable"):
        hook("settings_table").configuration_rows()


def test_the_http_page_lists_every_route_the_app_serves() -> None:
    routes = hook("http_routes")
    spec = routes.openapi()
    text = routes.render(spec)
    served = [
        f"### `{method.upper()} {path}`"
        for path, ops in spec["paths"].items()
        for method in ops
        if method in routes.METHODS
    ]
    assert served and all(heading in text for heading in served)
    assert "### `GET /api/chat/memory`" in text
